"""Indexing kernels: gather/scatter in their forms (along an axis, n-d, rows, along indices), one_hot."""
import math
import numpy as np
from .backend import array_module, scatter_add, scatter_reduce


def take_along_axis(arr, indices, axis):
    xp = array_module(arr, indices, axis)
    return xp.take_along_axis(arr, indices, axis)


def index_add(x, index, value, axis):
    xp = array_module(x, index, value, axis)
    out = x.copy()
    idx = index.reshape(-1)
    value = value.reshape(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:])
    scatter_add(xp.moveaxis(out, axis, 0), idx, xp.moveaxis(value, axis, 0))
    return out


def gather(x, index, axis):
    xp = array_module(x, index, axis)
    n = x.shape[axis] if x.ndim else 1
    if index.size and (index.max() >= n or index.min() < -n):
        raise IndexError(f"gather: index values must be in [{-n}, {n}) for axis {axis} of input shape "
                         f"{list(x.shape)}, got min {index.min()} max {index.max()}")
    return xp.take(x, index, axis=axis)


def nd_index(index):
    xp = array_module(index)
    return tuple(xp.moveaxis(index, -1, 0)) if index.shape[-1] else ()


def gather_nd(x, index):
    xp = array_module(x, index)
    if index.shape[-1] == 0:
        return xp.broadcast_to(x, index.shape[:-1] + x.shape).copy()
    return x[nd_index(index)]


def scatter_nd_add(x, index, updates):
    out = x.copy()
    if index.shape[-1] == 0:
        out += updates.reshape((-1,) + x.shape).sum(0)
    else:
        scatter_add(out, nd_index(index), updates)
    return out


def scatter(x, index, updates, overwrite):
    out = x.copy()
    idx = index.reshape(-1)
    updates = updates.reshape((idx.size,) + x.shape[1:])
    if overwrite:
        out[idx] = updates
    else:
        out[idx] = 0
        scatter_add(out, idx, updates)
    return out


def along(idx, axis):
    """A full fancy index that addresses ``idx`` along `axis` and every other position as-is."""
    xp = array_module(idx, axis)
    grids = list(xp.ogrid[tuple(xp.s_[:n] for n in idx.shape)])
    grids[axis] = idx
    return tuple(grids)


def put_along_axis(arr, indices, values, axis, reduce, include_self=True):
    """Paddle's put_along_axis: `reduce` 'assign', 'add', 'mul', 'mean', 'amax' or 'amin' combines the values sent
    to one place (with the value already there unless `include_self` is False)."""
    xp = array_module(arr, indices, values, axis, reduce)
    out = arr.copy()
    values = xp.broadcast_to(values, indices.shape)
    where_ = along(indices, axis)
    if reduce == "assign":
        out[where_] = values
        return out
    if not include_self:  # the targeted places start from the reduction's identity
        out[where_] = _IDENTITY[reduce](out.dtype)
    if xp is np:
        _UFUNC[reduce].at(out, where_, values)
    else:
        scatter_reduce(out, where_, values, reduce)
    if reduce == "mean":
        count = xp.full(arr.shape, 1 if include_self else 0, xp.int64)
        scatter_add(count, where_, 1)
        hit = count > 0
        out[hit] = (out[hit] / count[hit]).astype(out.dtype)
    return out


def _extreme(dtype, low):
    xp = array_module(dtype, low)
    if dtype.kind == "f":
        return -xp.inf if low else xp.inf
    info = xp.iinfo(dtype) if dtype.kind in "iu" else None
    return (info.min if low else info.max) if info is not None else (not low)


_UFUNC = {"add": np.add, "mean": np.add, "mul": np.multiply, "amax": np.maximum, "amin": np.minimum}
_IDENTITY = {"add": lambda dt: 0, "mean": lambda dt: 0, "mul": lambda dt: 1,
             "amax": lambda dt: _extreme(dt, True), "amin": lambda dt: _extreme(dt, False)}


def one_hot(x, num_classes):
    xp = array_module(x, num_classes)
    if x.size and (x.min() < 0 or x.max() >= num_classes):
        raise ValueError(f"one_hot: labels must be in [0, {num_classes}), got min {x.min()} max {x.max()}")
    return (x[..., None] == xp.arange(num_classes)).astype(xp.float32)


def decode_index(spec, arrays):
    """The NumPy index of an encoded subscript `spec` (see `oar.ops.subscript.encode_index`) and its index arrays."""
    it = iter(arrays)
    out = []
    for s in spec:
        k = s[0]
        if k == "i":
            out.append(s[1])
        elif k == "s":
            out.append(slice(s[1], s[2], s[3]))
        elif k == "n":
            out.append(None)
        elif k == "e":
            out.append(Ellipsis)
        elif k == "S":
            out.append(slice(*[int(next(it).reshape(-1)[0]) if p == "t" else p for p in s[1:]]))
        else:
            a = next(it)
            out.append(a.item() if a.ndim == 0 and a.dtype.kind in "iu" else a)
    return tuple(out)


def getitem(x, *idx, spec):
    xp = array_module(x, *idx)
    return xp.asarray(x[decode_index(spec, idx)])


def getitem_grad(x, g, *idx, spec):
    xp = array_module(x, g, *idx)
    gx = xp.zeros_like(x, dtype=g.dtype)
    scatter_add(gx, decode_index(spec, idx), g)
    return gx


def setitem(x, v, *idx, spec):
    out = x.copy()
    out[decode_index(spec, idx)] = v
    return out


def window_index(windows, size, step):
    """The flat int64 gather index of `windows` sliding windows of `size` elements every `step`."""
    xp = array_module(windows, size, step)
    return (xp.arange(windows)[:, None] * step + xp.arange(size)).reshape(-1).astype(xp.int64)


def strided_index(shape, stride, offset):
    """The int64 array of `shape` holding ``offset + sum(i_k * stride[k])`` at each index i (element strides)."""
    xp = array_module(shape, stride, offset)
    return int(offset) + sum(xp.arange(s).reshape([-1 if k == d else 1 for k in range(len(shape))]) * st
                             for d, (s, st) in enumerate(zip(shape, stride))) + xp.zeros(shape, xp.int64)


def segment_pool(data, segment_ids, pooltype):
    """Paddle's segment_pool: rows of `data` pooled by their sorted segment id (``SUM``, ``MEAN``, ``MAX``,
    ``MIN``) into ``max(id) + 1`` rows; a segment no row names is 0. Integer means truncate toward zero."""
    xp = array_module(data, segment_ids, pooltype)
    ids = xp.asarray(segment_ids).reshape(-1)
    if ids.size != data.shape[0]:
        raise ValueError(f"segment_{pooltype.lower()}: {ids.size} segment ids for {data.shape[0]} rows of data")
    if ids.size and (ids[0] < 0 or xp.any(xp.diff(ids) < 0)):
        raise ValueError(f"segment_{pooltype.lower()}: the segment ids must be sorted and non-negative, got "
                         f"{ids.tolist()[:20]}")
    n = int(ids[-1]) + 1 if ids.size else 0
    counts = xp.bincount(ids, minlength=n).reshape((n,) + (1,) * (data.ndim - 1))
    if pooltype in ("SUM", "MEAN"):
        out = xp.zeros((n,) + data.shape[1:], xp.float64 if pooltype == "MEAN" else data.dtype)
        scatter_add(out, ids, data)
        if pooltype == "MEAN":
            out = out / xp.maximum(counts, 1)
        return out.astype(data.dtype)
    if pooltype not in ("MAX", "MIN"):
        raise ValueError(f"segment_pool: pooltype must be SUM, MEAN, MAX or MIN, got {pooltype!r}")
    info = xp.finfo(data.dtype) if data.dtype.kind == "f" else xp.iinfo(data.dtype)
    out = xp.full((n,) + data.shape[1:], info.min if pooltype == "MAX" else info.max, data.dtype)
    (xp.maximum if pooltype == "MAX" else xp.minimum).at(out, ids, data)
    return xp.where(counts > 0, out, xp.zeros((), data.dtype))


def segment_count(data, segment_ids, **attrs):
    """The element count of `segment_pool`'s output (for the output budget of loaded programs)."""
    xp = array_module(data, segment_ids)
    ids = xp.asarray(segment_ids).reshape(-1)
    return (int(ids.max()) + 1 if ids.size else 0) * int(math.prod(data.shape[1:]))
