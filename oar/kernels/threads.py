"""The math library's thread count (OpenBLAS/MKL under NumPy), set through `threadpoolctl` when installed.

NumPy's BLAS reads OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS once, at import; changing the count
later needs the library's own call, which `threadpoolctl` (optional extra ``oar-dl[threads]``) makes portably.
Without it the count can only be chosen by those environment variables before the first ``import numpy``.

Example:
    >>> from oar.kernels.threads import set_blas_threads
    >>> set_blas_threads(1)     # True when applied, False when threadpoolctl is missing
"""
_controller = None


def _blas():
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _controller = False
        else:
            _controller = ThreadpoolController()
    return _controller or None


def set_blas_threads(n):
    """Sets the BLAS thread count of this process to `n`; returns whether it could (threadpoolctl installed)."""
    c = _blas()
    if c is None:
        return False
    c.limit(limits=int(n), user_api="blas")  # the limit stays in force: the returned context is not exited
    return True


def blas_threads():
    """The current BLAS thread count, or None when it cannot be read (threadpoolctl missing)."""
    c = _blas()
    if c is None:
        return None
    counts = [i["num_threads"] for i in c.info() if i.get("user_api") == "blas"]
    return max(counts) if counts else None
