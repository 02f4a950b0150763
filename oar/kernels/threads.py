"""The math library's thread count (OpenBLAS/MKL under NumPy) and oar's default policy for it.

Policy (`apply_default`, run once when the op registry is imported, so eager ops, the executor and the predictor
all run under it): **one BLAS thread**, as Paddle pins its math library (``FLAGS_paddle_num_threads`` = 1). On a
machine where anything else runs (a notebook, DataLoader workers, other jobs), a multi-threaded BLAS makes each
small GEMM wait for its other threads to be scheduled: an ``(32, 128) @ (128, 512)`` projection took ~1 ms with 2
threads beside one busy process and ~60 µs with one (`docs/threads.md`, "BLAS threads"). Overrides, highest first:

- at run time: ``oar.set_flags({'FLAGS_paddle_num_threads': n})``,
  ``inference.Config.set_cpu_math_library_num_threads(n)`` (applied when its predictor is created), or
  `set_blas_threads` here;
- at start-up: the environment variable ``FLAGS_paddle_num_threads`` (as Paddle reads it), or a count the user
  already gave BLAS itself (``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``), which oar
  then leaves alone.

The count is process-wide and NumPy's own: code calling NumPy directly in the same process runs with it too.
Changing it after BLAS has loaded needs the library's own call, which `threadpoolctl` (a dependency of
`oar-dl`) makes portably.

Example:
    >>> from oar.kernels.threads import default_threads
    >>> default_threads({})                                   # nothing chosen in the environment
    1
    >>> default_threads({'FLAGS_paddle_num_threads': '4'})
    4
    >>> default_threads({'OMP_NUM_THREADS': '8'}) is None     # the user's own BLAS setting stands
    True
"""
import os
import warnings

BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
FLAG_ENV = "FLAGS_paddle_num_threads"
DEFAULT_THREADS = 1
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
    n = int(n)
    if n < 1:
        raise ValueError(f"the BLAS thread count must be >= 1, got {n}")
    c = _blas()
    if c is None:
        return False
    c.limit(limits=n, user_api="blas")  # the limit stays in force: the returned context is not exited
    return True


def blas_threads():
    """The current BLAS thread count, or None when it cannot be read (threadpoolctl missing)."""
    c = _blas()
    if c is None:
        return None
    counts = [i["num_threads"] for i in c.info() if i.get("user_api") == "blas"]
    return max(counts) if counts else None


def default_threads(environ=None):
    """The count the policy sets, or None when the user gave BLAS its own count through its environment
    variables (then oar leaves it as BLAS started)."""
    environ = os.environ if environ is None else environ
    flag = environ.get(FLAG_ENV)
    if flag:
        try:
            n = int(flag)
        except ValueError:
            raise ValueError(f"environment variable {FLAG_ENV}={flag!r} is not a thread count") from None
        if n < 1:
            raise ValueError(f"environment variable {FLAG_ENV}={flag!r}: the thread count must be >= 1")
        return n
    if any(environ.get(v) for v in BLAS_ENV):
        return None
    return DEFAULT_THREADS


def apply_default():
    """Applies the policy (module docstring); returns the count it set, or None when it set none."""
    n = default_threads()
    if n is None:
        return None
    if not set_blas_threads(n):
        warnings.warn("oar could not set the BLAS thread count (threadpoolctl is not installed): NumPy's BLAS keeps "
                      "its default, which can be many times slower on a busy machine; pip install threadpoolctl, "
                      "or set OPENBLAS_NUM_THREADS=1 before starting Python", RuntimeWarning, stacklevel=2)
        return None
    return n
