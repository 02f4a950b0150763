"""Creation kernels: filled arrays, literal values, ranges, identities."""
import math

import numpy as np

from ..core import dtype as D


def full(shape, value, dtype):
    return np.full(shape, value, D.np_dtype(dtype))


def assign_value(shape, values, dtype):
    return np.asarray(values, D.np_dtype(dtype)).reshape(shape)


def is_uniform(a):
    """Whether every element of the array `a` equals its first (a 0-D array counts)."""
    return a.ndim == 0 or bool(a.size and np.all(a == a.flat[0]))


def arange(start, end, step, dtype):
    return np.arange(start, end, step, dtype=D.np_dtype(dtype))


def arange_length(start, end, step):
    return max(0, math.ceil((end - start) / step))


def linspace(start, stop, num, dtype):
    return np.linspace(start, stop, num).astype(D.np_dtype(dtype))


def eye(num_rows, num_columns, dtype):
    return np.eye(num_rows, num_columns, dtype=D.np_dtype(dtype))


def full_dynamic(shape, value, dtype, static_shape):
    """`full` with the shape given as an int array."""
    return np.full([int(s) for s in np.asarray(shape).reshape(-1)], value, D.np_dtype(dtype))


def arange_dynamic(start, end, step, dtype):
    """`arange` with 0-D (or 1-element) array bounds."""
    return np.arange(np.asarray(start).reshape(()), np.asarray(end).reshape(()), np.asarray(step).reshape(()),
                     dtype=D.np_dtype(dtype))


def full_dynamic_count(shape, **attrs):
    """An upper bound of `full_dynamic`'s element count (for the output budget)."""
    return int(np.prod(np.abs(np.asarray(shape, np.float64))))


def arange_dynamic_count(start, end, step, **attrs):
    """`arange_dynamic`'s element count (for the output budget)."""
    return int(np.ceil(abs((float(np.asarray(end).reshape(())) - float(np.asarray(start).reshape(())))
                           / float(np.asarray(step).reshape(())))))
