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


def _step(size, out, align_corners, scale, single_first):
    """Paddle's source step per output index, in float32 as its kernels compute it: ``(size-1)/(out-1)`` with
    aligned corners, else ``1/scale`` where a scale factor was given and ``size/out`` otherwise; 0 for a single
    output where `single_first` (its first input sample: Paddle's 2-D and 3-D kernels; its 1-D linear kernel
    keeps the step)."""
    if out <= 1 and (single_first or align_corners):
        return np.float32(0)
    if align_corners:
        return np.float32(size - 1) / np.float32(out - 1)
    return np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)


def _cubic_weights(t):
    """The four cubic-convolution weights (A = -0.75, Paddle's and OpenCV's) of the samples at offsets -1..2 from
    ``floor(src)``, for fractional positions `t`."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def interp_matrix(size, out, mode, align_corners, align_mode, scale, dtype, single_first=True):
    """``(out, size)`` matrix of a 1-D resampling ('nearest', 'linear' or 'cubic'); resampling more axes applies
    one per axis. Source positions follow Paddle's CPU kernels, float32 steps included: nearest rounds half up
    with aligned corners and truncates otherwise; linear uses half-pixel centres clamped at 0 (align_mode 0) or
    ``index * step`` (align_mode 1, and aligned corners); cubic uses half-pixel centres, unclamped, and repeats
    the edge samples. `single_first`: see `_step`."""
    xp = array_module(size, out, mode, align_corners, align_mode, scale, dtype)
    m = xp.zeros((out, size), xp.float64)
    rows = xp.arange(out)
    r = _step(size, out, align_corners, scale, single_first)
    at = rows.astype(np.float32) * r  # ``step * index`` in float32, as Paddle's kernels multiply
    if mode == "nearest":
        src = xp.floor(at.astype(np.float64) + 0.5) if align_corners else xp.floor(at)
        m[rows, xp.minimum(src.astype(int), size - 1)] = 1.0
        return m.astype(dtype)
    if mode == "cubic":
        src = at if align_corners else (float(r) * (rows + 0.5) - 0.5).astype(np.float32)
        lo = xp.floor(src)
        t = (src - lo).astype(np.float64)
        for j, w in enumerate(_cubic_weights(t)):
            scatter_add(m, (rows, xp.clip(lo.astype(int) - 1 + j, 0, size - 1)), w)
        return m.astype(dtype)
    if align_corners or align_mode == 1:
        src = at.astype(np.float64)
    else:  # half-pixel centres, computed in double and clamped at 0, as Paddle's `align_flag` branch
        src = xp.maximum(float(r) * (rows + 0.5) - 0.5, 0.0)
    lo = xp.minimum(xp.floor(src).astype(int), size - 1)
    hi = xp.minimum(lo + 1, size - 1)
    frac = src.astype(np.float32).astype(np.float64) - lo
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
        m = xp.asarray(interp_matrix(in_shape[ax], out_size[k], mode, align_corners, align_mode, scales[k], a.dtype,
                                     nd > 1))
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
