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


def _shift_count(xp, x, y):
    """Where the shift count `y` is inside ``[0, bits of x)``, and `y` with the others replaced by 0. Paddle defines
    a count outside that range (C leaves it undefined): the bits all leave the value."""
    inside = (y >= 0) & (y < x.dtype.itemsize * 8)
    return inside, xp.where(inside, y, 0).astype(x.dtype)


def bitwise_left_shift(x, y):
    """``x << y`` (arithmetic and logical left shifts are one); 0 where `y` is negative or not below the bit width."""
    xp = array_module(x, y)
    inside, count = _shift_count(xp, x, y)
    return xp.where(inside, xp.left_shift(x, count), 0).astype(x.dtype)


def bitwise_right_shift(x, y, is_arithmetic):
    """``x >> y``: arithmetic (the sign bit fills in; -1 or 0 for a count outside the bit width) or logical (zeros
    fill in, as for the unsigned integer of the same bits; 0 outside the bit width)."""
    xp = array_module(x, y)
    inside, count = _shift_count(xp, x, y)
    if is_arithmetic:
        return xp.where(inside, xp.right_shift(x, count), xp.where(x < 0, -1, 0)).astype(x.dtype)
    unsigned = xp.dtype(f"u{x.dtype.itemsize}")
    shifted = xp.right_shift(x.astype(unsigned), count.astype(unsigned)).astype(x.dtype)
    return xp.where(inside, shifted, 0).astype(x.dtype)
