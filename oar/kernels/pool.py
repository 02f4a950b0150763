"""Pooling kernels (NC + spatial layout) on strided window views; backward scatters with one strided add
per kernel offset. Adaptive pooling uses averaging matrices (avg) or clamped gather indices (max)."""
import itertools
import math

import numpy as np


from .conv import pad, windows
from .backend import array_module, scatter_add


def pool_out_sizes(spatial, ksize, strides, paddings, ceil_mode):
    out = []
    for s, k, st, (pb, pa) in zip(spatial, ksize, strides, paddings):
        span = s + pb + pa - k
        o = (-(-span // st) if ceil_mode else span // st) + 1
        if ceil_mode and (o - 1) * st >= s + pb:  # the last window must start inside the input
            o -= 1
        out.append(o)
    return out


def _full_pads(spatial, ksize, strides, paddings, ceil_mode):
    osz = pool_out_sizes(spatial, ksize, strides, paddings, ceil_mode)
    pads = [(pb, max(pa, (o - 1) * st + k - s - pb)) for s, k, st, (pb, pa), o
            in zip(spatial, ksize, strides, paddings, osz)]
    return pads, osz


def max_pool(x, ksize, strides, paddings, ceil_mode):
    """Returns (out, argmax index inside each window, flattened over the kernel)."""
    xp = array_module(x, ksize, strides, paddings, ceil_mode)
    nd = len(ksize)
    pads, osz = _full_pads(x.shape[2:], ksize, strides, paddings, ceil_mode)
    fill = -xp.inf if x.dtype.kind == "f" else xp.iinfo(x.dtype).min
    xpad = pad(x, pads, fill)
    if int(math.prod(ksize)) <= 16 and x.dtype.kind == "f" and not xp.isnan(x).any():
        return _max_pool_by_offsets(xpad, ksize, strides, osz)
    v = windows(xpad, ksize, strides, [1] * nd)[(slice(None),) * 2 + tuple(slice(0, o) for o in osz)]
    flat = v.reshape(v.shape[:2 + nd] + (-1,))
    idx = flat.argmax(axis=-1)
    out = xp.take_along_axis(flat, idx[..., None], axis=-1)[..., 0]
    return out, idx.astype(xp.int32)


def _max_pool_by_offsets(xpad, ksize, strides, osz):
    """Small windows: a running maximum over one strided slice per kernel offset (whole-array ufuncs, no
    per-window reduction); the index is the first offset holding the maximum, as argmax gives."""
    xp = array_module(xpad, ksize, strides, osz)
    offs = list(itertools.product(*[range(k) for k in ksize]))
    sl = [(slice(None), slice(None)) + tuple(slice(i, i + s * (o - 1) + 1, s) for i, s, o in zip(off, strides, osz))
          for off in offs]
    out = xpad[sl[0]].copy()
    for s in sl[1:]:
        xp.maximum(out, xpad[s], out=out)
    idx = xp.full(out.shape, len(offs) - 1, xp.uint8)
    for i in range(len(offs) - 2, -1, -1):  # idx -= (idx - i) where offset i holds the maximum
        d = idx - xp.uint8(i)
        d *= xpad[sl[i]] == out
        idx -= d
    return out, idx.astype(xp.int32)


def _scatter(x_shape, ksize, strides, paddings, ceil_mode, dtype, contribution, xp=np):
    """Sums ``contribution(kernel_offset_index, offset)`` (an output-shaped array of the module `xp`) into the
    input positions."""
    pads, osz = _full_pads(x_shape[2:], ksize, strides, paddings, ceil_mode)
    padded = [s + pb + pa for s, (pb, pa) in zip(x_shape[2:], pads)]
    dxp = xp.zeros(list(x_shape[:2]) + padded, dtype)
    for flat_i, off in enumerate(itertools.product(*[range(k) for k in ksize])):
        sl = tuple(slice(i, i + s * (o - 1) + 1, s) for i, s, o in zip(off, strides, osz))
        dxp[(slice(None), slice(None)) + sl] += contribution(flat_i, off)
    crop = tuple(slice(pb, pb + s) for s, (pb, pa) in zip(x_shape[2:], pads))
    return dxp[(slice(None), slice(None)) + crop]


def max_pool_grad(x_shape, idx, g, ksize, strides, paddings, ceil_mode):
    xp = array_module(x_shape, idx, g, ksize, strides, paddings, ceil_mode)
    if list(ksize) == list(strides) and not any(pb or pa for pb, pa in paddings) and \
            all(s % k == 0 for s, k in zip(x_shape[2:], ksize)) and len(ksize) == 2:
        # non-overlapping windows tiling the input: each kernel offset's strided slice gets g where it held the max
        kh, kw = ksize
        dx = xp.empty(x_shape, g.dtype)
        for i in range(kh):
            for j in range(kw):
                xp.multiply(g, idx == i * kw + j, out=dx[:, :, i::kh, j::kw])
        return dx
    return _scatter(x_shape, ksize, strides, paddings, ceil_mode, g.dtype,
                    lambda i, off: xp.where(idx == i, g, 0), xp)


def max_pool_gather(g, idx, ksize, strides, paddings, ceil_mode):
    """The adjoint of `max_pool_grad`: per window, `g` (input-shaped) at the window's argmax `idx`."""
    xp = array_module(g, idx, ksize, strides, paddings, ceil_mode)
    nd = len(ksize)
    pads, osz = _full_pads(g.shape[2:], ksize, strides, paddings, ceil_mode)
    v = windows(pad(g, pads, 0), ksize, strides, [1] * nd)[(slice(None),) * 2 + tuple(slice(0, o) for o in osz)]
    flat = v.reshape(v.shape[:2 + nd] + (-1,))
    return xp.take_along_axis(flat, idx[..., None].astype(xp.intp), axis=-1)[..., 0]


def _counts(spatial, ksize, strides, paddings, ceil_mode, exclusive, dtype):
    """Number of elements each window averages: real (non-padding) elements when `exclusive`."""
    xp = array_module(spatial, ksize, strides, paddings, ceil_mode, exclusive, dtype)
    nd = len(ksize)
    if not exclusive:
        return xp.asarray(float(math.prod(ksize)), dtype)
    pads, osz = _full_pads(spatial, ksize, strides, paddings, ceil_mode)
    ones = pad(xp.ones([1, 1] + list(spatial), dtype), pads)
    v = windows(ones, ksize, strides, [1] * nd)[(slice(None),) * 2 + tuple(slice(0, o) for o in osz)]
    return v.sum(axis=tuple(range(-nd, 0)))


def avg_pool(x, ksize, strides, paddings, ceil_mode, exclusive):
    nd = len(ksize)
    pads, osz = _full_pads(x.shape[2:], ksize, strides, paddings, ceil_mode)
    v = windows(pad(x, pads), ksize, strides, [1] * nd)[(slice(None),) * 2 + tuple(slice(0, o) for o in osz)]
    s = v.sum(axis=tuple(range(-nd, 0)))
    counts = array_module(x).asarray(_counts(x.shape[2:], ksize, strides, paddings, ceil_mode, exclusive, x.dtype))
    return (s / counts).astype(x.dtype)


def avg_pool_grad(x_shape, g, ksize, strides, paddings, ceil_mode, exclusive):
    gc = g / array_module(g).asarray(_counts(x_shape[2:], ksize, strides, paddings, ceil_mode, exclusive, g.dtype))
    return _scatter(x_shape, ksize, strides, paddings, ceil_mode, g.dtype, lambda i, off: gc, array_module(g))


def adaptive_bounds(size, out):
    starts = [int(math.floor(i * size / out)) for i in range(out)]
    ends = [int(math.ceil((i + 1) * size / out)) for i in range(out)]
    return starts, ends


def adaptive_matrix(size, out, dtype):
    """``(out, size)`` matrix averaging each adaptive window (Paddle's floor/ceil window bounds)."""
    xp = array_module(size, out, dtype)
    m = xp.zeros((out, size), dtype)
    for i, (s, e) in enumerate(zip(*adaptive_bounds(size, out))):
        m[i, s:e] = 1.0 / (e - s)
    return m


def adaptive_avg_pool(x, output_size):
    """Average pooling to `output_size` over the trailing dims via per-axis averaging matrices."""
    xp = array_module(x, output_size)
    out = x
    nd = len(output_size)
    for ax in range(nd):
        axis = x.ndim - nd + ax
        m = xp.asarray(adaptive_matrix(x.shape[axis], output_size[ax], x.dtype))  # (built on the host)
        out = xp.moveaxis(xp.tensordot(out, m, axes=([axis], [1])), -1, axis)
    return xp.ascontiguousarray(out)


def adaptive_avg_pool_grad(x_shape, g, output_size):
    xp = array_module(x_shape, g, output_size)
    out = g
    nd = len(output_size)
    for ax in range(nd):
        axis = len(x_shape) - nd + ax
        m = xp.asarray(adaptive_matrix(x_shape[axis], output_size[ax], g.dtype))
        out = xp.moveaxis(xp.tensordot(out, m, axes=([axis], [0])), -1, axis)
    return xp.ascontiguousarray(out)


def _adaptive_index(size, out):
    xp = array_module(size, out)
    starts, ends = adaptive_bounds(size, out)
    kmax = max(e - s for s, e in zip(starts, ends))
    # windows shorter than kmax repeat their last index: duplicates do not change a max
    return xp.array([[min(s + j, e - 1) for j in range(kmax)] for s, e in zip(starts, ends)])


def adaptive_max_pool2d(x, output_size):
    """Returns (out, flat index into H*W of each maximum)."""
    xp = array_module(x, output_size)
    n, c, h, w = x.shape
    hi, wi = _adaptive_index(h, output_size[0]), _adaptive_index(w, output_size[1])
    flat_idx = hi[:, None, :, None] * w + wi[None, :, None, :]          # (Ho, Wo, kh, kw)
    ho, wo = flat_idx.shape[:2]
    flat_idx = xp.asarray(flat_idx.reshape(ho, wo, -1))  # (the window table is built on the host)
    vals = x.reshape(n, c, h * w)[:, :, flat_idx]                         # (N, C, Ho, Wo, K)
    arg = vals.argmax(axis=-1)
    out = xp.take_along_axis(vals, arg[..., None], axis=-1)[..., 0]
    idx = xp.take_along_axis(xp.broadcast_to(flat_idx, vals.shape), arg[..., None], axis=-1)[..., 0]
    return out, idx.astype(xp.int64)


def adaptive_max_pool2d_grad(x_shape, idx, g):
    xp = array_module(idx, g)
    n, c = x_shape[:2]
    dx = xp.zeros((n, c, int(math.prod(x_shape[2:]))), g.dtype)
    ni, ci = xp.meshgrid(xp.arange(n), xp.arange(c), indexing="ij")
    scatter_add(dx, (ni[:, :, None, None], ci[:, :, None, None], idx), g)
    return dx.reshape(x_shape)


def adaptive_max_pool2d_gather(g, idx):
    """The adjoint of `adaptive_max_pool2d_grad`: `g` (input-shaped) at each output's flat argmax `idx`."""
    xp = array_module(g, idx)
    n, c = g.shape[:2]
    flat = xp.take_along_axis(g.reshape(n, c, -1), idx.reshape(n, c, -1).astype(xp.intp), axis=-1)
    return flat.reshape(idx.shape)
