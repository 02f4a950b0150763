"""Search and sort kernels: argmax/argmin, stable (arg)sort, topk, unique, nonzero, masked_select, searchsorted."""
import numpy as np

from ..core import dtype as D


def _arg(fn, nan_as):
    def kernel(x, axis, keepdim, dtype):
        if x.dtype.kind == "f" and np.isnan(x).any():  # Paddle skips NaNs (an all-NaN lane gives index 0)
            x = np.where(np.isnan(x), nan_as, x)
        if axis is None:
            r = fn(x.reshape(-1))
            r = np.asarray(r).reshape([1] * x.ndim if keepdim else [])
        else:
            r = fn(x, axis=axis[0], keepdims=keepdim)
        return np.asarray(r, dtype=D.np_dtype(dtype))
    return kernel


argmax, argmin = _arg(np.argmax, -np.inf), _arg(np.argmin, np.inf)


def nonzero(x):
    return np.argwhere(x).astype(np.int64)


def argsort(x, axis, descending):
    if x.ndim == 0:
        return np.zeros((), np.int64)
    if descending:
        key = -x.astype(np.int64) if x.dtype.kind in "ub" else -x
        idx = np.argsort(key, axis=axis, kind="stable")
        if x.dtype.kind in "fc" and np.isnan(x).any():  # NaN counts as the largest value: first, in input order
            last = ~np.isnan(np.take_along_axis(x, idx, axis=axis))
            idx = np.take_along_axis(idx, np.argsort(last, axis=axis, kind="stable"), axis=axis)
        return idx
    return np.argsort(x, axis=axis, kind="stable")  # NaNs last


def sort(x, axis, descending):
    idx = argsort(x, axis, descending)
    vals = np.take_along_axis(x, idx, axis=axis) if x.ndim else x.copy()
    return vals, idx.astype(np.int64)


def topk(x, k, axis, largest, sorted):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = argsort(x, axis, largest)
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


def unique(x, return_index, return_inverse, return_counts, axis, dtype):
    res = np.unique(x if axis is not None else x.reshape(-1), return_index=True, return_inverse=True,
                    return_counts=True, axis=axis)
    out, index, inverse, counts = res
    it = D.np_dtype(dtype)
    outs = [out]
    if return_index:
        outs.append(index.astype(it))
    if return_inverse:
        outs.append(inverse.reshape(-1).astype(it))
    if return_counts:
        outs.append(counts.astype(it))
    return tuple(outs)


def masked_select(x, mask):
    x, mask = np.broadcast_arrays(x, mask)
    return x[mask]


def masked_select_grad(x, mask, g):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    out = np.zeros(shape, g.dtype)
    out[np.broadcast_to(mask, shape)] = g
    return out


def searchsorted(sorted_sequence, values, out_int32, right):
    side = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        r = np.searchsorted(sorted_sequence, values, side=side)
    else:
        r = np.stack([np.searchsorted(s, v, side=side) for s, v in
                      zip(sorted_sequence.reshape(-1, sorted_sequence.shape[-1]),
                          values.reshape(-1, values.shape[-1]))]).reshape(values.shape)
    return r.astype(np.int32 if out_int32 else np.int64)


def unique_consecutive(x, return_inverse, return_counts, axis, dtype):
    a = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    if a.shape[0] == 0:
        keep = np.zeros(0, bool)
    else:
        flat = a.reshape(a.shape[0], -1)
        keep = np.concatenate([[True], (flat[1:] != flat[:-1]).any(axis=1)])
    out = a[keep] if axis is None else np.moveaxis(a[keep], 0, axis)
    res = [np.ascontiguousarray(out)]
    if return_inverse:
        res.append((np.cumsum(keep) - 1).astype(D.np_dtype(dtype)))
    if return_counts:
        starts = np.flatnonzero(keep)
        res.append(np.diff(np.append(starts, a.shape[0])).astype(D.np_dtype(dtype)))
    return tuple(res)
