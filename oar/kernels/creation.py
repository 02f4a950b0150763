"""Creation kernels: filled arrays, literal values, ranges, identities."""
import math


from ..core import dtype as D
from .backend import array_module


def full(shape, value, dtype):
    xp = array_module(shape, value, dtype)
    return xp.full(shape, value, D.np_dtype(dtype))


def assign_value(shape, values, dtype):
    xp = array_module(shape, values, dtype)
    return xp.asarray(values, D.np_dtype(dtype)).reshape(shape)


def is_uniform(a):
    """Whether every element of the array `a` equals its first (a 0-D array counts); -0.0 and 0.0 differ (a
    static constant [0.0, -0.0] made one `full` of 0.0: `1 / x` gave inf twice)."""
    xp = array_module(a)
    if a.ndim == 0:
        return True
    same = bool(a.size and xp.all(a == a.flat[0]))
    return same and (a.dtype.kind not in "fc" or bool(xp.all(xp.signbit(a.real) == xp.signbit(a.flat[0].real))))


def arange(start, end, step, dtype):
    xp = array_module(start, end, step, dtype)
    return xp.arange(start, end, step, dtype=D.np_dtype(dtype))


def arange_length(start, end, step):
    return max(0, math.ceil((end - start) / step))


def linspace(start, stop, num, dtype):
    xp = array_module(start, stop, num, dtype)
    return xp.linspace(start, stop, num).astype(D.np_dtype(dtype))


def eye(num_rows, num_columns, dtype):
    xp = array_module(num_rows, num_columns, dtype)
    return xp.eye(num_rows, num_columns, dtype=D.np_dtype(dtype))


def full_dynamic(shape, value, dtype, static_shape):
    """`full` with the shape given as an int array."""
    xp = array_module(shape, value, dtype, static_shape)
    return xp.full([int(s) for s in xp.asarray(shape).reshape(-1)], value, D.np_dtype(dtype))


def arange_dynamic(start, end, step, dtype):
    """`arange` with 0-D (or 1-element) array bounds."""
    xp = array_module(start, end, step, dtype)
    return xp.arange(xp.asarray(start).reshape(()), xp.asarray(end).reshape(()), xp.asarray(step).reshape(()),
                     dtype=D.np_dtype(dtype))


def full_dynamic_count(shape, **attrs):
    """An upper bound of `full_dynamic`'s element count (for the output budget)."""
    xp = array_module(shape)
    return int(xp.prod(xp.abs(xp.asarray(shape, xp.float64))))


def arange_dynamic_count(start, end, step, **attrs):
    """`arange_dynamic`'s element count (for the output budget)."""
    xp = array_module(start, end, step)
    return int(xp.ceil(abs((float(xp.asarray(end).reshape(())) - float(xp.asarray(start).reshape(())))
                           / float(xp.asarray(step).reshape(())))))
