"""Statistics kernels: mode, running extreme indices, log-cumsum-exp, histogram, bincount."""
from .backend import array_module, errstate


def logcumsumexp(x, axis):
    xp = array_module(x, axis)
    return xp.logaddexp.accumulate(x, axis=axis)


def mode_index(x, axis):
    """Index (kept as a size-1 `axis`) of the last occurrence of the most frequent value, smallest on ties. Every
    NaN counts once (Paddle's), so NaN is the mode only of an all-NaN lane, at index 0."""
    xp = array_module(x, axis)
    xs = xp.moveaxis(x, axis, -1)
    flat = xs.reshape(-1, xs.shape[-1])
    idx = xp.empty(flat.shape[0], xp.int64)
    nan = {"equal_nan": False} if x.dtype.kind in "fc" else {}
    for r, row in enumerate(flat):
        vals, counts = xp.unique(row, return_counts=True, **nan)
        hits = xp.flatnonzero(row == vals[xp.argmax(counts)])
        idx[r] = hits[-1] if hits.size else 0
    return xp.moveaxis(idx.reshape(xs.shape[:-1] + (1,)), -1, axis)


def cum_index(x, axis, largest):
    """Index of the running max/min; from the first NaN on, NaN is the extreme and its index stays (Paddle)."""
    xp = array_module(x, axis, largest)
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    run = (xp.maximum if largest else xp.minimum).accumulate(x, axis=axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    pos = xp.arange(x.shape[axis], dtype=xp.int64).reshape(shape)
    hit = x == run
    if x.dtype.kind in "fc":
        nan = xp.isnan(x)
        hit |= nan & (xp.cumsum(nan, axis=axis) == 1)
    return xp.maximum.accumulate(xp.where(hit, pos, 0), axis=axis)


def median_lower_index(x, axis, ignore_nan):
    """Index (kept as a size-1 `axis`) of the lower median along `axis`. A lane holding NaN gives the index of
    its first NaN, unless `ignore_nan`, which takes the lower median of the other values."""
    xp = array_module(x, axis, ignore_nan)
    n = x.shape[axis]
    order = xp.argsort(x, axis=axis, kind="stable")  # NaNs sort last
    nan = xp.isnan(x) if x.dtype.kind in "fc" else xp.zeros(x.shape, bool)
    valid = n - nan.sum(axis=axis, keepdims=True)
    k = xp.maximum((valid - 1) // 2, 0) if ignore_nan else xp.full(valid.shape, max((n - 1) // 2, 0))
    idx = xp.take_along_axis(order, k, axis)
    if not ignore_nan:
        idx = xp.where(valid < n, xp.argmax(nan, axis=axis, keepdims=True), idx)
    return idx.astype(xp.int64)


def logcumsumexp_grad(g, x, out, axis):
    """sum_{j >= i} g_j exp(x_i - out_j), in log space with the signs of g apart (no overflow for large x)."""
    xp = array_module(g, x, out, axis)
    with errstate(xp, divide="ignore"):
        parts = []
        for gs in (xp.maximum(g, 0), xp.maximum(-g, 0)):
            terms = xp.flip(xp.log(gs) - out, axis)
            parts.append(xp.exp(x + xp.flip(xp.logaddexp.accumulate(terms, axis=axis), axis)))
    return (parts[0] - parts[1]).astype(x.dtype)


def histogram(x, bins, min, max):
    xp = array_module(x, bins, min, max)
    lo, hi = (float(x.min()), float(x.max())) if min == 0 and max == 0 and x.size else (min, max)
    if lo == hi:
        lo, hi = lo - 1, hi + 1  # Paddle widens an empty range
    return xp.histogram(x, bins=bins, range=(lo, hi))[0].astype(xp.int64)


def bincount(x, *weights, minlength):
    xp = array_module(x, *weights)
    if x.size and x.min() < 0:
        raise ValueError("bincount: the input must be non-negative")
    w = weights[0] if weights else None
    out = xp.bincount(x.reshape(-1), None if w is None else w.reshape(-1), minlength=minlength)
    return out.astype(w.dtype if w is not None and w.dtype.kind == "f" else xp.int64 if w is None else out.dtype)
