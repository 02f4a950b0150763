"""Comparison, logical and bitwise kernels, and the all/any reductions."""

from .reduction import axis_tuple
from .backend import array_module, ufunc_kernel

equal = ufunc_kernel("equal")
not_equal = ufunc_kernel("not_equal")
less_than = ufunc_kernel("less")
less_equal = ufunc_kernel("less_equal")
greater_than = ufunc_kernel("greater")
greater_equal = ufunc_kernel("greater_equal")
logical_and = ufunc_kernel("logical_and")
logical_or = ufunc_kernel("logical_or")
logical_xor = ufunc_kernel("logical_xor")
logical_not = ufunc_kernel("logical_not")
bitwise_and = ufunc_kernel("bitwise_and")
bitwise_or = ufunc_kernel("bitwise_or")
bitwise_xor = ufunc_kernel("bitwise_xor")
bitwise_not = ufunc_kernel("invert")


def all(x, axis, keepdim):
    xp = array_module(x, axis, keepdim)
    return xp.asarray(xp.all(x, axis=axis_tuple(axis), keepdims=keepdim))


def any(x, axis, keepdim):
    xp = array_module(x, axis, keepdim)
    return xp.asarray(xp.any(x, axis=axis_tuple(axis), keepdims=keepdim))


def isclose(x, y, rtol, atol, equal_nan):
    xp = array_module(x, y, rtol, atol, equal_nan)
    return xp.isclose(x, y, rtol, atol, equal_nan)
