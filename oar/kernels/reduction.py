"""Reduction kernels: sums, means, extremes, products, log-sum-exp and cumulative scans over axes."""
import math

import numpy as np

from ..core import dtype as D


def axis_tuple(axis):
    """Axis attrs are lists once a Program went through JSON; NumPy reductions want a tuple."""
    return tuple(axis) if type(axis) is list else axis


def max(x, axis, keepdim):
    return np.asarray(np.max(x, axis=axis_tuple(axis), keepdims=keepdim))


def min(x, axis, keepdim):
    return np.asarray(np.min(x, axis=axis_tuple(axis), keepdims=keepdim))


def prod(x, axis, keepdim):
    # an integer product keeps its dtype (Paddle; NumPy would widen int32 to int64)
    keep = x.dtype if x.dtype.kind in "iu" else None
    return np.asarray(np.prod(x, axis=axis_tuple(axis), keepdims=keepdim, dtype=keep))


def cumprod(x, dim):
    return np.cumprod(x, axis=dim, dtype=x.dtype if x.dtype.kind in "iu" else None) if x.ndim else x.copy()


def sum(x, axis, keepdim, dtype):
    axis = axis_tuple(axis)
    r = np.sum(x, axis=axis, keepdims=keepdim, dtype=D.np_dtype(dtype) if dtype else None)
    if dtype is None and x.dtype.kind in "bi" and x.dtype != np.int64:
        r = r.astype(np.int64)  # Paddle sums bool/int32 into int64
    return np.asarray(r)


def mean(x, axis, keepdim):
    if x.dtype.kind not in "fc":
        x = x.astype(np.float32)
    n = x.size if axis is None else math.prod([x.shape[a] for a in axis])
    s = np.add.reduce(x, axis=axis_tuple(axis), keepdims=keepdim)  # np.mean's Python wrapper costs more than the sum
    return np.asarray(np.true_divide(s, n, dtype=x.dtype) if n else s * np.nan)


def mean_grad(g, x, axis, keepdim):
    # g * (1/n) broadcast back to x's shape, as one kernel: the gradient of every `loss.mean()`
    if not keepdim and axis is not None and g.ndim != x.ndim:
        g = np.expand_dims(g, axis_tuple(axis))
    r = g.size / x.size if x.size else 0.0
    out = np.empty(x.shape, g.dtype)
    out[...] = g * r
    return out


def logsumexp(x, axis, keepdim):
    axis = axis_tuple(axis)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return np.asarray(r if keepdim else (np.squeeze(r, axis=axis) if axis is not None else r.reshape(())))


def cumsum(x, axis, reverse=False):
    if x.ndim == 0 and axis is not None:  # Paddle: a 0-D input along its axis stays 0-D (NumPy gives [1])
        return x.copy()
    if axis is None:
        x, axis = x.reshape(-1), 0
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)
    return np.cumsum(x, axis=axis)
