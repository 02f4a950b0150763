"""Statistics kernels: mode, running extreme indices, log-cumsum-exp, histogram, bincount."""
import numpy as np


def logcumsumexp(x, axis):
    return np.logaddexp.accumulate(x, axis=axis)


def mode_index(x, axis):
    """Index (kept as a size-1 `axis`) of the last occurrence of the most frequent value, smallest on ties."""
    xs = np.moveaxis(x, axis, -1)
    flat = xs.reshape(-1, xs.shape[-1])
    idx = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        vals, counts = np.unique(row, return_counts=True)
        idx[r] = np.flatnonzero(row == vals[np.argmax(counts)])[-1]
    return np.moveaxis(idx.reshape(xs.shape[:-1] + (1,)), -1, axis)


def cum_index(x, axis, largest):
    """Index of the running max/min; from the first NaN on, NaN is the extreme and its index stays (Paddle)."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    run = (np.maximum if largest else np.minimum).accumulate(x, axis=axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    pos = np.arange(x.shape[axis], dtype=np.int64).reshape(shape)
    hit = x == run
    if x.dtype.kind in "fc":
        nan = np.isnan(x)
        hit |= nan & (np.cumsum(nan, axis=axis) == 1)
    return np.maximum.accumulate(np.where(hit, pos, 0), axis=axis)


def median_lower_index(x, axis, ignore_nan):
    """Index (kept as a size-1 `axis`) of the lower median along `axis`. A lane holding NaN gives the index of
    its first NaN, unless `ignore_nan`, which takes the lower median of the other values."""
    n = x.shape[axis]
    order = np.argsort(x, axis=axis, kind="stable")  # NaNs sort last
    nan = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
    valid = n - nan.sum(axis=axis, keepdims=True)
    k = np.maximum((valid - 1) // 2, 0) if ignore_nan else np.full(valid.shape, max((n - 1) // 2, 0))
    idx = np.take_along_axis(order, k, axis)
    if not ignore_nan:
        idx = np.where(valid < n, np.argmax(nan, axis=axis, keepdims=True), idx)
    return idx.astype(np.int64)


def logcumsumexp_grad(g, x, out, axis):
    """sum_{j >= i} g_j exp(x_i - out_j), in log space with the signs of g apart (no overflow for large x)."""
    with np.errstate(divide="ignore"):
        parts = []
        for gs in (np.maximum(g, 0), np.maximum(-g, 0)):
            terms = np.flip(np.log(gs) - out, axis)
            parts.append(np.exp(x + np.flip(np.logaddexp.accumulate(terms, axis=axis), axis)))
    return (parts[0] - parts[1]).astype(x.dtype)


def histogram(x, bins, min, max):
    lo, hi = (float(x.min()), float(x.max())) if min == 0 and max == 0 and x.size else (min, max)
    if lo == hi:
        lo, hi = lo - 1, hi + 1  # Paddle widens an empty range
    return np.histogram(x, bins=bins, range=(lo, hi))[0].astype(np.int64)


def bincount(x, *weights, minlength):
    if x.size and x.min() < 0:
        raise ValueError("bincount: the input must be non-negative")
    w = weights[0] if weights else None
    out = np.bincount(x.reshape(-1), None if w is None else w.reshape(-1), minlength=minlength)
    return out.astype(w.dtype if w is not None and w.dtype.kind == "f" else np.int64 if w is None else out.dtype)
