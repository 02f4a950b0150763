"""Reduction kernels: sums, means, extremes, products, log-sum-exp and cumulative scans over axes."""
import math

import numpy as np

from ..core import dtype as D
from ..core.devices import RUNTIME
from .backend import array_module, errstate


def axis_tuple(axis):
    """Axis attrs are lists once a Program went through JSON; NumPy reductions want a tuple."""
    return tuple(axis) if type(axis) is list else axis


def max(x, axis, keepdim):
    xp = array_module(x, axis, keepdim)
    return xp.asarray(xp.max(x, axis=axis_tuple(axis), keepdims=keepdim))


def min(x, axis, keepdim):
    xp = array_module(x, axis, keepdim)
    return xp.asarray(xp.min(x, axis=axis_tuple(axis), keepdims=keepdim))


def prod(x, axis, keepdim):
    # an integer product keeps its dtype (Paddle; NumPy would widen int32 to int64)
    xp = array_module(x, axis, keepdim)
    keep = x.dtype if x.dtype.kind in "iu" else None
    return xp.asarray(xp.prod(x, axis=axis_tuple(axis), keepdims=keepdim, dtype=keep))


def cumprod(x, dim):
    xp = array_module(x, dim)
    return xp.cumprod(x, axis=dim, dtype=x.dtype if x.dtype.kind in "iu" else None) if x.ndim else x.copy()


def sum(x, axis, keepdim, dtype):
    xp = array_module(x, axis, keepdim, dtype)
    axis = axis_tuple(axis)
    if dtype is None and x.dtype.kind in "biu":
        dtype = "int64"  # Paddle sums bool/int32 into int64 (it wraps int8/int16/uint8 sums in their own dtype)
    r = xp.sum(x, axis=axis, keepdims=keepdim, dtype=D.np_dtype(dtype) if dtype else None)
    return xp.asarray(r)


def mean(x, axis, keepdim):
    xp = array_module(x) if RUNTIME.types else np  # (every loss.mean(): the call costs more than the test)
    if x.dtype.kind not in "fc":
        x = x.astype(xp.float32)
    n = x.size if axis is None else math.prod([x.shape[a] for a in axis])
    s = xp.add.reduce(x, axis=axis_tuple(axis), keepdims=keepdim)  # xp.mean's Python wrapper costs more than the sum
    return xp.asarray(xp.true_divide(s, n, dtype=x.dtype) if n else s * xp.nan)


def mean_grad(g, x, axis, keepdim):
    # g * (1/n) broadcast back to x's shape, as one kernel: the gradient of every `loss.mean()`
    xp = array_module(g, x) if RUNTIME.types else np
    if not keepdim and axis is not None and g.ndim != x.ndim:
        g = xp.expand_dims(g, axis_tuple(axis))
    r = g.size / x.size if x.size else 0.0
    out = xp.empty(x.shape, g.dtype)
    if g.ndim or xp is not np:
        out[...] = g * r
    else:  # (the host mean of everything: one value, and `fill` costs less than an assignment through `...`)
        out.fill(g * r)
    return out


def logsumexp(x, axis, keepdim):
    xp = array_module(x, axis, keepdim)
    axis = axis_tuple(axis)
    m = xp.max(x, axis=axis, keepdims=True, initial=-xp.inf)  # an empty sum is 0: its log is -inf
    m = xp.where(xp.isfinite(m), m, 0)
    with errstate(xp, divide="ignore"):
        r = xp.log(xp.sum(xp.exp(x - m), axis=axis, keepdims=True)) + m
    return xp.asarray(r if keepdim else (xp.squeeze(r, axis=axis) if axis is not None else r.reshape(())))


def cumsum(x, axis, reverse=False):
    xp = array_module(x, axis)
    # Paddle: integer scans run in int64 (NumPy would scan uint8 in uint64); float ones in their own dtype
    dtype = xp.int64 if x.dtype.kind in "biu" else None
    if x.ndim == 0 and axis is not None:  # Paddle: a 0-D input along its axis stays 0-D (NumPy gives [1])
        return x.astype(dtype or x.dtype)
    if axis is None:
        x, axis = x.reshape(-1), 0
    if reverse:
        return xp.flip(xp.cumsum(xp.flip(x, axis), axis=axis, dtype=dtype), axis)
    return xp.cumsum(x, axis=axis, dtype=dtype)
