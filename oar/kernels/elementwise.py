"""Elementwise kernels: arithmetic, unary math, casts, clipping, selection, broadcasting to a shape.

Where NumPy's ufunc is the kernel it is bound by name (no wrapper call on the eager hot path); a backend that
plugs in another array library rebinds these names."""
import math

import numpy as np

from ..core import dtype as D
from ..core.devices import RUNTIME
from .backend import array_module, errstate, special, ufunc_kernel

add = ufunc_kernel("add")
subtract = ufunc_kernel("subtract")
multiply = ufunc_kernel("multiply")
_floor_divide = ufunc_kernel("floor_divide")
_mod = ufunc_kernel("mod")


def _no_integer_zero(y):
    """Integer division by zero raises, as in Python and Paddle (NumPy returns 0 with a warning)."""
    if y.dtype.kind in "iub" and not array_module(y).all(y):
        raise ZeroDivisionError("integer division by zero")


def floor_divide(x, y):
    _no_integer_zero(y)
    return _floor_divide(x, y)


def remainder(x, y):
    _no_integer_zero(y)
    return _mod(x, y)
power = ufunc_kernel("power")
maximum = ufunc_kernel("maximum")
minimum = ufunc_kernel("minimum")
fmax = ufunc_kernel("fmax")
fmin = ufunc_kernel("fmin")
atan2 = ufunc_kernel("arctan2")


def copysign(x, y):
    """|x| with the sign of y: IEEE copysign for floats (``-0.0`` counts as negative); integers keep their dtype
    (a negative y negates |x|) and booleans pass x through, as Paddle's kernel does."""
    xp = array_module(x, y)
    if x.dtype.kind == "b":
        return xp.broadcast_to(x, xp.broadcast_shapes(x.shape, y.shape)).copy()
    if x.dtype.kind in "iu":
        return xp.where(y < 0, -xp.abs(x), xp.abs(x)).astype(x.dtype, copy=False)
    return xp.copysign(x, y).astype(x.dtype, copy=False)
negative = ufunc_kernel("negative")
exp = ufunc_kernel("exp")
expm1 = ufunc_kernel("expm1")
log = ufunc_kernel("log")
log2 = ufunc_kernel("log2")
log10 = ufunc_kernel("log10")
log1p = ufunc_kernel("log1p")
sqrt = ufunc_kernel("sqrt")
square = ufunc_kernel("square")
abs = ufunc_kernel("abs")
sign = ufunc_kernel("sign")
sin = ufunc_kernel("sin")
cos = ufunc_kernel("cos")
tan = ufunc_kernel("tan")
asin = ufunc_kernel("arcsin")
acos = ufunc_kernel("arccos")
atan = ufunc_kernel("arctan")
sinh = ufunc_kernel("sinh")
cosh = ufunc_kernel("cosh")
tanh = ufunc_kernel("tanh")
floor = ufunc_kernel("floor")
ceil = ufunc_kernel("ceil")
trunc = ufunc_kernel("trunc")
reciprocal = ufunc_kernel("reciprocal")
isnan = ufunc_kernel("isnan")
isinf = ufunc_kernel("isinf")
isfinite = ufunc_kernel("isfinite")


def reduce_as(g, x):
    """Sums `g` down to the shape of `x` (the adjoint of broadcasting)."""
    xp = array_module(g, x) if RUNTIME.types else np  # (the call costs more than the test: on every bias gradient)
    if g.shape == x.shape:  # static programs cannot always prove this at build time
        return g
    nd = g.ndim - x.ndim
    if g.shape[nd:] == x.shape:  # only leading dims were added (a bias): one plain sum
        return xp.add.reduce(g, axis=0 if nd == 1 else tuple(range(nd)))
    axes = tuple(range(nd)) + tuple(i + nd for i, (a, b) in enumerate(zip(x.shape, g.shape[nd:])) if a == 1 != b)
    r = g.sum(axis=axes, keepdims=True) if axes else g
    return r.reshape(x.shape)


def expand_as(x, y):
    """`x` broadcast to the shape of `y`."""
    xp = array_module(x, y)
    if y.size > 4096:
        return xp.broadcast_to(x, y.shape)  # a view: no copy of large results
    out = xp.empty(y.shape, x.dtype)  # small: a copy is cheaper than broadcast_to's Python wrapper
    out[...] = x
    return out


def cast(x, dtype):
    return x.astype(D.np_dtype(dtype), copy=False)


def true_divide(x, y):
    xp = array_module(x, y)
    if x.dtype.kind in "iub":  # Paddle: integer division of tensors gives a float result
        return xp.true_divide(x, y, dtype=D.default_float().np)
    return xp.true_divide(x, y)


def rsqrt(x):
    xp = array_module(x)
    return 1 / xp.sqrt(x)


def sigmoid(x):
    """``1 / (1 + exp(-x))``, Paddle's formula: small results keep their relative precision (``sigmoid(-17.2)`` is
    3.3e-8 in float32; the ``(tanh(x / 2) + 1) / 2`` oar had gave 6e-8, ``tanh + 1`` cancelling, and 0 below -17).
    Below -88 ``exp(-x)`` overflows to inf in float32 and the result is 0, as Paddle's."""
    xp = array_module(x)
    with errstate(xp, over="ignore"):
        return 1 / (1 + xp.exp(-x))


def round_half_even(x):
    """Paddle 3 rounds halves to even, as NumPy does (``round([0.5, 2.5])`` is ``[0, 2]``; Paddle 2.x rounded
    them away from zero)."""
    xp = array_module(x)
    return xp.round(x)


def erf(x):
    if array_module(x) is not np:  # the device: cupyx.scipy.special.erf
        return special("erf")(x)
    if x.dtype == np.float64 or x.dtype.kind != "f":  # exact, elementwise
        return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()
    # float32/16: Abramowitz & Stegun 7.1.26 (abs error < 1.5e-7, about float32's resolution), vectorized
    a = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (np.sign(x) * (1.0 - poly * np.exp(-a * a))).astype(x.dtype)


def scale(x, scale, bias, bias_after_scale):
    """``x * scale + bias`` (or ``(x + bias) * scale``) in the dtype of `x`."""
    if bias == 0.0:
        r = x * scale
    else:
        r = x * scale + bias if bias_after_scale else (x + bias) * scale
    return r.astype(x.dtype, copy=False)


def clip(x, min, max):
    xp = array_module(x, min, max)
    return xp.clip(x, min, max).astype(x.dtype, copy=False)


def nan_to_num(x, nan, posinf, neginf):
    xp = array_module(x, nan, posinf, neginf)
    return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def where(c, x, y):
    xp = array_module(c, x, y) if RUNTIME.types else np
    return xp.where(c, x, y)


def zeros_like(x):
    xp = array_module(x)
    return xp.zeros_like(x)
