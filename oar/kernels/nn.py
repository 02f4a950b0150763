"""Kernels of the common NN layers: dropout (drawing from the generator it is given), embedding lookup and its
gradient, and separable linear/nearest resampling (interpolate)."""
import numpy as np

from .backend import array_module, scatter_add


def dropout(gen, x, p, training, mode, axis):
    """(out, mask): `x` times a 0/1 mask drawn from `gen` (scaled by 1/(1-p) in 'upscale_in_train' mode); outside
    training, `x` scaled for 'downscale_in_infer' and the constant mask."""
    xp = array_module(gen, x, p, training, mode, axis)
    keep = 1.0 - p
    if not training:
        scale = 1.0 if mode == "upscale_in_train" else keep
        return (x if scale == 1.0 else (x * scale).astype(x.dtype, copy=False)), \
            xp.broadcast_to(xp.asarray(scale, x.dtype), x.shape)
    if axis is None:
        shape = x.shape
    else:
        shape = [s if i in axis else 1 for i, s in enumerate(x.shape)]
    if p >= 1.0:
        mask = xp.zeros(shape, x.dtype)
    else:
        # drawn on the host from oar's generator (the same mask on every device), then where `x` lives
        draw = gen.random(shape, dtype=xp.float32 if x.dtype != xp.float64 else xp.float64)
        mask = xp.asarray((draw >= p).astype(x.dtype))
        if mode == "upscale_in_train":
            mask *= xp.asarray(1.0 / keep, x.dtype)
    mask = xp.broadcast_to(mask, x.shape)
    return x * mask, mask


def embedding_grad(ids, g, weight, padding_idx):
    """Rows of `g` summed per id: a sort groups each id's rows and one `np.add.reduceat` sums each group
    (2-2.5x faster than ``np.add.at`` for 320-2240 ids of width 128; the sums may round differently, reduceat
    adding pairwise)."""
    xp = array_module(ids, g, weight, padding_idx)
    dw = xp.zeros(weight.shape, g.dtype)
    flat = ids.reshape(-1)
    if flat.size and xp is not np:  # the device: one scatter-add (CuPy has no ufunc.reduceat)
        scatter_add(dw, flat, g.reshape(-1, weight.shape[-1]))
    elif flat.size:
        order = xp.argsort(flat, kind="stable")
        sid = flat[order]
        starts = xp.flatnonzero(xp.concatenate(([True], sid[1:] != sid[:-1])))
        dw[sid[starts]] = xp.add.reduceat(g.reshape(-1, weight.shape[-1])[order], starts, axis=0)
    if padding_idx is not None and padding_idx >= 0:
        dw[padding_idx] = 0
    return dw


def embedding(ids, w, padding_idx):
    if ids.size and (ids.min() < 0 or ids.max() >= w.shape[0]):
        raise IndexError(f"embedding ids must be in [0, {w.shape[0]}), "
                         f"got values in [{int(ids.min())}, {int(ids.max())}]")
    out = w[ids]
    if padding_idx is not None and padding_idx >= 0:
        out[ids == padding_idx] = 0
    return out


def interp_matrix(size, out, mode, align_corners, align_mode, scale, dtype):
    """``(out, size)`` matrix of a 1-D resampling; 2-D resampling applies one per axis."""
    xp = array_module(size, out, mode, align_corners, align_mode, scale, dtype)
    m = xp.zeros((out, size), xp.float64)
    rows = xp.arange(out)
    if mode == "nearest":
        if align_corners:
            r = (size - 1) / (out - 1) if out > 1 else 0.0
            src = xp.round(rows * r).astype(int)
        else:
            r = 1.0 / scale if scale else size / out
            src = xp.floor(rows * r).astype(int)
        m[rows, xp.minimum(src, size - 1)] = 1.0
        return m.astype(dtype)
    if align_corners:
        r = (size - 1) / (out - 1) if out > 1 else 0.0
        src = rows * r
    else:
        r = 1.0 / scale if scale else size / out
        src = (rows + 0.5) * r - 0.5 if align_mode == 0 else rows * r
        src = xp.maximum(src, 0.0)
    lo = xp.minimum(xp.floor(src).astype(int), size - 1)
    hi = xp.minimum(lo + 1, size - 1)
    frac = src - lo
    scatter_add(m, (rows, lo), 1 - frac)
    scatter_add(m, (rows, hi), frac)
    return m.astype(dtype)


def resample(a, in_shape, out_size, mode, align_corners, align_mode, scales, contract):
    """Applies the per-axis matrices to the trailing dims of `a`: ``contract=1`` maps input sizes to `out_size`
    (the forward), ``contract=0`` maps them back (the gradient, the transposed matrices)."""
    xp = array_module(a)
    nd = len(out_size)
    for k in range(nd):
        ax = a.ndim - nd + k
        m = xp.asarray(interp_matrix(in_shape[ax], out_size[k], mode, align_corners, align_mode, scales[k], a.dtype))
        a = xp.moveaxis(xp.tensordot(a, m, axes=([ax], [contract])), -1, ax)
    return xp.ascontiguousarray(a)


def interp(x, out_size, mode, align_corners, align_mode, scales):
    return resample(x, x.shape, out_size, mode, align_corners, align_mode, scales, 1)


def interp_grad(x, g, out_size, mode, align_corners, align_mode, scales):
    return resample(g, x.shape, out_size, mode, align_corners, align_mode, scales, 0)


def interp_dynamic(x, size, mode, align_corners, align_mode):
    """`interp` to the spatial size held by the int array `size`."""
    out_size = [int(v) for v in np.asarray(size).reshape(-1)]
    return interp(x, out_size, mode, align_corners, align_mode, [None] * len(out_size))


def interp_dynamic_grad(x, g, mode, align_corners, align_mode):
    nd = x.ndim - 2
    return interp_grad(x, g, list(g.shape[2:]), mode, align_corners, align_mode, [None] * nd)
