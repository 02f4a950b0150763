"""Creation kernels: filled arrays, literal values, ranges, identities."""
import math

import numpy as np

from ..framework import dtype as D


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
