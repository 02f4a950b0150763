"""The array module of a kernel (Chainer's `get_array_module`): NumPy for host arrays, the accelerator's module
(CuPy, or the test suite's fake device) for device arrays. A kernel that runs on the device starts with
``xp = array_module(x, ...)`` and calls ``xp.<name>`` where it called ``np.<name>``; where CuPy lacks a NumPy
function, one shim per function lives here.

Example:
    >>> import numpy as np
    >>> array_module(np.ones(2)) is np
    True
"""
import contextlib

import numpy as np

from ..core.devices import RUNTIME, to_device, to_host


def array_module(*arrays):
    """NumPy, or the device's array module when one of `arrays` is a device array."""
    types = RUNTIME.types
    if types:
        for a in arrays:
            if isinstance(a, types):
                return RUNTIME.xp
    return np


def scatter_add(a, indices, values):
    """``a[indices] += values`` with repeated indices accumulated (NumPy's ``np.add.at``; CuPy's
    ``cupyx.scatter_add``).

    Example:
        >>> a = np.zeros(3)
        >>> scatter_add(a, np.array([0, 0, 2]), np.ones(3))
        >>> a.tolist()
        [2.0, 0.0, 1.0]
    """
    if array_module(a) is np:
        np.add.at(a, indices, values)
    else:
        RUNTIME.extra.scatter_add(a, indices, values)


_SCATTERS = {"add": "scatter_add", "mean": "scatter_add", "amax": "scatter_max", "amin": "scatter_min"}


def scatter_reduce(a, indices, values, reduce):
    """``a[indices] = reduce(a[indices], values)`` with repeated indices combined, on device arrays: CuPy's
    ``cupyx.scatter_add`` / ``scatter_max`` / ``scatter_min`` ('add' and 'mean' add; 'mul' has no CuPy scatter
    and raises, so the op stays off the device list).

    Example:
        >>> callable(scatter_reduce)
        True
    """
    if reduce not in _SCATTERS:
        raise TypeError(f"no device scatter for reduce={reduce!r} (CuPy has scatter_add, scatter_max, scatter_min)")
    getattr(RUNTIME.extra, _SCATTERS[reduce])(a, indices, values)


def special(name):
    """Function `name` of ``cupyx.scipy.special`` (the device's special functions; `erf` for the exact GELU).

    Example:
        >>> callable(special) and special.__name__
        'special'
    """
    if RUNTIME.kind == "fake":
        return getattr(RUNTIME.extra, "special_" + name)
    import importlib
    return getattr(importlib.import_module("cupyx.scipy.special"), name)


def sliding_window_view(x, window_shape, axis=None):
    """NumPy's ``lib.stride_tricks.sliding_window_view`` (a zero-copy view of the windows), on the device
    ``cupy.lib.stride_tricks``'s.

    Example:
        >>> sliding_window_view(np.arange(4), 2).tolist()
        [[0, 1], [1, 2], [2, 3]]
    """
    xp = array_module(x)
    if xp is np:
        return np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)
    if RUNTIME.kind == "fake":
        return RUNTIME.extra.sliding_window_view(x, window_shape, axis=axis)
    import cupy.lib.stride_tricks
    return cupy.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)


def errstate(xp, **kwargs):
    """NumPy's ``np.errstate(...)`` on the host; on the device nothing (CuPy never raises on float errors).

    Example:
        >>> with errstate(np, divide="ignore"):
        ...     float(np.float64(1.0) / 0.0)
        inf
    """
    return np.errstate(**kwargs) if xp is np else contextlib.nullcontext()


def asnumpy(a):
    """A host array for `a` (the array itself when it is one already)."""
    return a if type(a) is np.ndarray else RUNTIME.xp.asnumpy(a) if array_module(a) is not np else np.asarray(a)


def copy_to(a, place):
    """A copy of `a` on `place`: 'cpu' (a NumPy array) or 'gpu:N'.

    Example:
        >>> copy_to(np.ones(2), 'cpu').tolist()
        [1.0, 1.0]
    """
    if place == "cpu":
        return to_host(a)
    b = to_device(a, int(place[4:]))
    return b.copy() if b is a else b


def ufunc_kernel(name):
    """The kernel of an elementwise op that is one ufunc: NumPy's `name` on host arrays, the device module's on
    device arrays (``add = ufunc_kernel("add")``).

    Example:
        >>> ufunc_kernel("add")(np.ones(2), np.ones(2)).tolist()
        [2.0, 2.0]
    """
    host = getattr(np, name)

    def kernel(*arrays):
        if not RUNTIME.types:
            return host(*arrays)
        return getattr(array_module(*arrays), name)(*arrays)
    kernel.__name__ = kernel.__qualname__ = name
    return kernel
