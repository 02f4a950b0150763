"""Comparison, logical and bitwise kernels, and the all/any reductions."""
import numpy as np

from .reduction import axis_tuple

equal, not_equal, less_than, less_equal = np.equal, np.not_equal, np.less, np.less_equal
greater_than, greater_equal = np.greater, np.greater_equal
logical_and, logical_or, logical_xor, logical_not = np.logical_and, np.logical_or, np.logical_xor, np.logical_not
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert


def all(x, axis, keepdim):
    return np.asarray(np.all(x, axis=axis_tuple(axis), keepdims=keepdim))


def any(x, axis, keepdim):
    return np.asarray(np.any(x, axis=axis_tuple(axis), keepdims=keepdim))


def isclose(x, y, rtol, atol, equal_nan):
    return np.isclose(x, y, rtol, atol, equal_nan)
