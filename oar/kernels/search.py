"""Search and sort kernels: argmax/argmin, stable (arg)sort, topk, unique, nonzero, masked_select, searchsorted,
the beam-search backtrack gather_tree."""
import numpy as np

from ..core import dtype as D
from .backend import array_module


def _arg(name, nan_as):
    def kernel(x, axis, keepdim, dtype):
        xp = array_module(x)
        fn = getattr(xp, name)
        if x.dtype.kind == "f" and xp.isnan(x).any():  # Paddle skips NaNs (an all-NaN lane gives index 0)
            x = xp.where(xp.isnan(x), nan_as, x)
        if axis is None:
            r = fn(x.reshape(-1))
            r = xp.asarray(r).reshape([1] * x.ndim if keepdim else [])
        else:
            r = fn(x, axis=axis[0], keepdims=keepdim)
        return xp.asarray(r, dtype=D.np_dtype(dtype))
    return kernel


argmax, argmin = _arg("argmax", -np.inf), _arg("argmin", np.inf)


def nonzero(x):
    xp = array_module(x)
    return xp.argwhere(x).astype(xp.int64)


def argsort(x, axis, descending):
    xp = array_module(x, axis, descending)
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    if descending:
        key = -x.astype(xp.int64) if x.dtype.kind in "ub" else -x
        idx = xp.argsort(key, axis=axis, kind="stable")
        if x.dtype.kind in "fc" and xp.isnan(x).any():  # NaN counts as the largest value: first, in input order
            last = ~xp.isnan(xp.take_along_axis(x, idx, axis=axis))
            idx = xp.take_along_axis(idx, xp.argsort(last, axis=axis, kind="stable"), axis=axis)
        return idx
    return xp.argsort(x, axis=axis, kind="stable")  # NaNs last


def sort(x, axis, descending):
    xp = array_module(x, axis, descending)
    idx = argsort(x, axis, descending)
    vals = xp.take_along_axis(x, idx, axis=axis) if x.ndim else x.copy()
    return vals, idx.astype(xp.int64)


def topk(x, k, axis, largest, sorted):
    xp = array_module(x)
    if x.ndim == 0:
        return x.copy(), xp.zeros((), xp.int64)
    idx = argsort(x, axis, largest)
    idx = xp.take(idx, xp.arange(k), axis=axis)
    return xp.take_along_axis(x, idx, axis=axis), idx.astype(xp.int64)


def unique(x, return_index, return_inverse, return_counts, axis, dtype):
    xp = array_module(x, return_index, return_inverse, return_counts, axis, dtype)
    nan = {"equal_nan": False} if x.dtype.kind in "fc" else {}  # every NaN is a value of its own (Paddle's)
    res = xp.unique(x if axis is not None else x.reshape(-1), return_index=True, return_inverse=True,
                    return_counts=True, axis=axis, **nan)
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
    xp = array_module(x, mask)
    x, mask = xp.broadcast_arrays(x, mask)
    return x[mask]


def masked_select_grad(x, mask, g):
    xp = array_module(x, mask, g)
    shape = xp.broadcast_shapes(x.shape, mask.shape)
    out = xp.zeros(shape, g.dtype)
    out[xp.broadcast_to(mask, shape)] = g
    return out


def searchsorted(sorted_sequence, values, out_int32, right):
    xp = array_module(sorted_sequence, values, out_int32, right)
    side = "right" if right else "left"
    if sorted_sequence.ndim == 1:
        r = xp.searchsorted(sorted_sequence, values, side=side)
    else:
        r = xp.stack([xp.searchsorted(s, v, side=side) for s, v in
                      zip(sorted_sequence.reshape(-1, sorted_sequence.shape[-1]),
                          values.reshape(-1, values.shape[-1]))]).reshape(values.shape)
    return r.astype(xp.int32 if out_int32 else xp.int64)


def unique_consecutive(x, return_inverse, return_counts, axis, dtype):
    xp = array_module(x, return_inverse, return_counts, axis, dtype)
    a = x.reshape(-1) if axis is None else xp.moveaxis(x, axis, 0)
    if a.shape[0] == 0:
        keep = xp.zeros(0, bool)
    else:
        flat = a.reshape(a.shape[0], -1)
        keep = xp.concatenate([[True], (flat[1:] != flat[:-1]).any(axis=1)])
    out = a[keep] if axis is None else xp.moveaxis(a[keep], 0, axis)
    res = [xp.ascontiguousarray(out)]
    if return_inverse:
        res.append((xp.cumsum(keep) - 1).astype(D.np_dtype(dtype)))
    if return_counts:
        starts = xp.flatnonzero(keep)
        res.append(xp.diff(xp.append(starts, a.shape[0])).astype(D.np_dtype(dtype)))
    return tuple(res)


def gather_tree(ids, parents):
    """Beam-search backtrack over ``[max_time, batch, beam]``: the last step's ids, then at each earlier step the id
    at the beam the later step came from. Every parent the walk follows must lie in [0, beam) (Paddle's check)."""
    xp = array_module(ids, parents)
    steps, beam = ids.shape[0], ids.shape[2]
    out = xp.empty_like(ids)
    if steps == 0:
        return out
    out[steps - 1] = ids[steps - 1]
    parent = parents[steps - 1]
    for t in range(steps - 2, -1, -1):
        bad = (parent < 0) | (parent >= beam)
        if bool(bad.any()):
            raise ValueError(f"gather_tree: the parents must be in [0, beam_size={beam}), got "
                             f"{int(parent[bad].reshape(-1)[0])} (read at step {t + 1})")
        out[t] = xp.take_along_axis(ids[t], parent, axis=1)
        parent = xp.take_along_axis(parents[t], parent, axis=1)
    return out
