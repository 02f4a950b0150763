"""RoI pooling ops: roi_align (bilinear sampling, averaged per bin), roi_pool (max per quantized bin) and
psroi_pool (position-sensitive average pooling).

Boxes are ``[num_rois, 4]`` as (x1, y1, x2, y2) in input-image coordinates; ``boxes_num[b]`` says how many of them
belong to image b. Each kernel builds, per RoI, the sparse map from input pixels to output bins; the gradient
ops apply its transpose, so one description serves forward and backward."""
import math

import numpy as np

from ...framework import dtype as D
from ...ops.registry import apply, defop

_NO_ONNX = "detection op: not lowered yet"  # the onnx_reason of this family's ops


def _batch_index(boxes_num, n_rois):
    idx = np.repeat(np.arange(len(boxes_num)), boxes_num.astype(np.int64))
    if len(idx) != n_rois:
        raise ValueError(f"boxes_num sums to {len(idx)} but there are {n_rois} boxes")
    return idx


# ---- roi_align: out[r, c, bin] = sum_p W[r][bin, p] * x[b(r), c, p] ---------------------------------------------

def _bilinear_rows(ys, xs, H, W):
    """For sample points (ys, xs): flat pixel indices [n, 4] and weights [n, 4] (zero outside the image)."""
    valid = (ys >= -1.0) & (ys <= H) & (xs >= -1.0) & (xs <= W)
    y = np.clip(ys, 0, None)
    x = np.clip(xs, 0, None)
    y0 = np.floor(y).astype(np.int64)
    x0 = np.floor(x).astype(np.int64)
    top = y0 >= H - 1
    left = x0 >= W - 1
    y0 = np.where(top, H - 1, y0)
    x0 = np.where(left, W - 1, x0)
    y1 = np.where(top, H - 1, y0 + 1)
    x1 = np.where(left, W - 1, x0 + 1)
    y = np.where(top, y0, y)
    x = np.where(left, x0, x)
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    idx = np.stack([y0 * W + x0, y0 * W + x1, y1 * W + x0, y1 * W + x1], -1)
    w = np.stack([hy * hx, hy * lx, ly * hx, ly * lx], -1) * valid[:, None]
    return idx, w


def _align_matrix(box, H, W, ph, pw, scale, sampling_ratio, aligned):
    """The [ph*pw, H*W] averaging-of-bilinear-samples matrix of one RoI."""
    off = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (float(v) * scale - off for v in box)
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rh / ph))
    gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rw / pw))
    gh, gw = max(gh, 1), max(gw, 1)
    iy = (np.arange(ph)[:, None] * bh + (np.arange(gh)[None, :] + 0.5) * bh / gh + y1).reshape(-1)  # [ph*gh]
    ix = (np.arange(pw)[:, None] * bw + (np.arange(gw)[None, :] + 0.5) * bw / gw + x1).reshape(-1)  # [pw*gw]
    ys = np.repeat(iy, len(ix))
    xs = np.tile(ix, len(iy))
    idx, w = _bilinear_rows(ys, xs, H, W)
    py = np.repeat(np.arange(ph), gh)
    px = np.repeat(np.arange(pw), gw)
    bins = (py[:, None] * pw + px[None, :]).reshape(-1)  # bin of each (ys, xs) sample
    m = np.zeros((ph * pw, H * W))
    np.add.at(m, (np.repeat(bins, 4), idx.reshape(-1)), w.reshape(-1) / (gh * gw))
    return m


def _roi_align(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned):
    N, C, H, W = x.shape
    out = np.zeros((len(boxes), C, pooled_height * pooled_width), x.dtype)
    for r, b in enumerate(_batch_index(boxes_num, len(boxes))):
        m = _align_matrix(boxes[r], H, W, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned)
        out[r] = x[b].reshape(C, H * W) @ m.T
    return out.reshape(len(boxes), C, pooled_height, pooled_width)


def _roi_align_grad(g, x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned):
    N, C, H, W = x.shape
    gx = np.zeros((N, C, H * W), g.dtype)
    for r, b in enumerate(_batch_index(boxes_num, len(boxes))):
        m = _align_matrix(boxes[r], H, W, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned)
        gx[b] += g[r].reshape(C, -1) @ m
    return gx.reshape(x.shape)


def _roi_infer(m, pooled_height, pooled_width, **_):
    return [([m[1][0][0], m[0][0][1], pooled_height, pooled_width], m[0][1])]


_ATTRS = ("pooled_height", "pooled_width", "spatial_scale", "sampling_ratio", "aligned")
ROI_ALIGN_GRAD = defop("roi_align_grad", _roi_align_grad, inputs=("grad", "x", "boxes", "boxes_num"),
                       nondiff=(1, 2, 3), infer=lambda m, **a: [m[1]],
                       grad=lambda g, out, grad, x, boxes, boxes_num, **a: (
                           apply(ROI_ALIGN, (g, boxes, boxes_num), a), None, None, None))
ROI_ALIGN = defop("roi_align", _roi_align, inputs=("x", "boxes", "boxes_num"), nondiff=(1, 2), infer=_roi_infer,
                  grad=lambda g, out, x, boxes, boxes_num, **a: (
                      apply(ROI_ALIGN_GRAD, (g, x, boxes, boxes_num), a), None, None),
                  onnx_reason=_NO_ONNX)


def _pair(output_size):
    return (int(output_size), int(output_size)) if isinstance(output_size, int) else tuple(int(v) for v in output_size)


def _boxes_num(boxes, boxes_num):
    if boxes_num is None:
        from ...ops.creation import full
        return full([1], boxes.shape[0], "int32")
    return boxes_num


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=True, name=None):
    """RoI Align: each box of `boxes` [R, 4] (x1, y1, x2, y2) is cut into ``output_size`` bins whose values
    average bilinear samples of `x` [N, C, H, W]; returns [R, C, ph, pw].

    Args:
        boxes_num: [N] int tensor, how many boxes belong to each image (in order).
        spatial_scale: box coordinates times this give feature-map coordinates.
        sampling_ratio: samples per bin side (-1: ceil(bin size)).
        aligned: shift boxes by -0.5 pixel (the corrected RoIAlign).

    Example:
        >>> x = oar.arange(16.0).reshape([1, 1, 4, 4])
        >>> out = oar.vision.ops.roi_align(x, oar.to_tensor([[0.0, 0.0, 2.0, 2.0]]), oar.to_tensor([1]), 1)
        >>> out.shape, out.item()
        ([1, 1, 1, 1], 2.5)
    """
    ph, pw = _pair(output_size)
    return apply(ROI_ALIGN, (x, boxes, _boxes_num(boxes, boxes_num)), {
        "pooled_height": ph, "pooled_width": pw, "spatial_scale": float(spatial_scale),
        "sampling_ratio": int(sampling_ratio), "aligned": bool(aligned)})


# ---- roi_pool: max over integer bins ------------------------------------------------------------------------------

def _pool_bins(box, H, W, ph, pw, scale):
    """Per bin (i, j): the [h0, h1) x [w0, w1) pixel window of a quantized RoI (Paddle's roi_pool)."""
    x1, y1, x2, y2 = (int(round(float(v) * scale)) for v in box)
    rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
    bh, bw = rh / ph, rw / pw
    for i in range(ph):
        h0 = min(max(int(math.floor(i * bh)) + y1, 0), H)
        h1 = min(max(int(math.ceil((i + 1) * bh)) + y1, 0), H)
        for j in range(pw):
            w0 = min(max(int(math.floor(j * bw)) + x1, 0), W)
            w1 = min(max(int(math.ceil((j + 1) * bw)) + x1, 0), W)
            yield i, j, h0, h1, w0, w1


def _roi_pool(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale):
    N, C, H, W = x.shape
    out = np.zeros((len(boxes), C, pooled_height, pooled_width), x.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, b in enumerate(_batch_index(boxes_num, len(boxes))):
        for i, j, h0, h1, w0, w1 in _pool_bins(boxes[r], H, W, pooled_height, pooled_width, spatial_scale):
            if h1 <= h0 or w1 <= w0:
                continue
            win = x[b, :, h0:h1, w0:w1].reshape(C, -1)
            k = win.argmax(1)
            out[r, :, i, j] = win[np.arange(C), k]
            arg[r, :, i, j] = (h0 + k // (w1 - w0)) * W + w0 + k % (w1 - w0)
    return out, arg


def _roi_pool_backward(g, arg, x, boxes_num):
    N, C, H, W = x.shape
    gx = np.zeros((N, C, H * W), g.dtype)
    bidx = _batch_index(boxes_num, g.shape[0])
    for r, b in enumerate(bidx):
        a, gr = arg[r].reshape(C, -1), g[r].reshape(C, -1)
        for c in range(C):
            ok = a[c] >= 0
            np.add.at(gx[b, c], a[c][ok], gr[c][ok])
    return gx.reshape(x.shape)


def _roi_pool_gather(gx, arg, boxes_num):
    """The adjoint of `_roi_pool_backward`: per box and bin, `gx` (x-shaped) at the bin's argmax (0 if empty)."""
    N, C = gx.shape[:2]
    flat = gx.reshape(N, C, -1)[_batch_index(boxes_num, arg.shape[0])]
    a = arg.reshape(arg.shape[0], C, -1)
    return (np.take_along_axis(flat, np.maximum(a, 0), axis=-1) * (a >= 0)).reshape(arg.shape).astype(gx.dtype)


# the scatter to each bin's argmax and its adjoint gather: each is the other's gradient (x gives only the shape)
ROI_POOL_GRAD = defop("roi_pool_grad", _roi_pool_backward, inputs=("grad", "argmax", "x", "boxes_num"),
                      nondiff=(1, 2, 3), infer=lambda m: [m[2]],
                      grad=lambda gg, gx, g, arg, x, boxes_num: (
                          apply(ROI_POOL_GATHER, (gg, arg, boxes_num)), None, None, None))
ROI_POOL_GATHER = defop("roi_pool_gather", _roi_pool_gather, inputs=("x_grad", "argmax", "boxes_num"),
                        nondiff=(1, 2), infer=lambda m: [(m[1][0], m[0][1])],
                        onnx_reason="training-only (gradient kernel)",
                        grad=lambda gg, out, gx, arg, boxes_num: (
                            apply(ROI_POOL_GRAD, (gg, arg, gx, boxes_num)), None, None))
ROI_POOL = defop("roi_pool", _roi_pool, inputs=("x", "boxes", "boxes_num"), outputs=("out", "argmax"),
                 nondiff=(1, 2), nondiff_out=(1,),
                 infer=lambda m, **a: [_roi_infer(m, **a)[0], (_roi_infer(m, **a)[0][0], D.int64)],
                 grad=lambda g, out, x, boxes, boxes_num, **a: (
                     apply(ROI_POOL_GRAD, (g[0], out[1], x, boxes_num)), None, None),
                 onnx_reason=_NO_ONNX)


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """RoI max pooling: each box (rounded to the feature grid) is cut into ``output_size`` bins and each bin takes
    the maximum of `x` in it (0 for an empty bin); returns [R, C, ph, pw].

    Example:
        >>> x = oar.arange(16.0).reshape([1, 1, 4, 4])
        >>> oar.vision.ops.roi_pool(x, oar.to_tensor([[0.0, 0.0, 3.0, 3.0]]), oar.to_tensor([1]), 2).numpy().tolist()
        [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    ph, pw = _pair(output_size)
    out, _ = apply(ROI_POOL, (x, boxes, _boxes_num(boxes, boxes_num)), {
        "pooled_height": ph, "pooled_width": pw, "spatial_scale": float(spatial_scale)})
    return out


# ---- psroi_pool: bin (i, j) of output channel c averages input channel (c * ph + i) * pw + j ---------------------

def _ps_bins(box, H, W, ph, pw, scale):
    x1 = round(float(box[0])) * scale
    y1 = round(float(box[1])) * scale
    x2 = (round(float(box[2])) + 1.0) * scale
    y2 = (round(float(box[3])) + 1.0) * scale
    rh, rw = max(y2 - y1, 0.1), max(x2 - x1, 0.1)
    bh, bw = rh / ph, rw / pw
    for i in range(ph):
        h0 = min(max(int(math.floor(i * bh + y1)), 0), H)
        h1 = min(max(int(math.ceil((i + 1) * bh + y1)), 0), H)
        for j in range(pw):
            w0 = min(max(int(math.floor(j * bw + x1)), 0), W)
            w1 = min(max(int(math.ceil((j + 1) * bw + x1)), 0), W)
            yield i, j, h0, h1, w0, w1


def _psroi(x, g, boxes, boxes_num, ph, pw, scale, backward):
    N, C, H, W = x.shape
    co = C // (ph * pw)
    res = np.zeros(x.shape, g.dtype) if backward else np.zeros((len(boxes), co, ph, pw), x.dtype)
    for r, b in enumerate(_batch_index(boxes_num, len(boxes))):
        for i, j, h0, h1, w0, w1 in _ps_bins(boxes[r], H, W, ph, pw, scale):
            if h1 <= h0 or w1 <= w0:
                continue
            chans = (np.arange(co) * ph + i) * pw + j
            area = (h1 - h0) * (w1 - w0)
            if backward:
                res[b, chans, h0:h1, w0:w1] += (g[r, :, i, j] / area)[:, None, None]
            else:
                res[r, :, i, j] = x[b, chans, h0:h1, w0:w1].sum((1, 2)) / area
    return res


PSROI_POOL_GRAD = defop("psroi_pool_grad", lambda g, x, boxes, boxes_num, pooled_height, pooled_width,
                        spatial_scale: _psroi(x, g, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, True),
                        inputs=("grad", "x", "boxes", "boxes_num"), nondiff=(1, 2, 3), infer=lambda m, **a: [m[1]],
                        grad=lambda gg, gx, g, x, boxes, boxes_num, **a: (  # linear in g: the pooling again
                            apply(PSROI_POOL, (gg, boxes, boxes_num), a), None, None, None))
PSROI_POOL = defop("psroi_pool", lambda x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale: _psroi(
    x, x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, False),
    inputs=("x", "boxes", "boxes_num"), nondiff=(1, 2),
    infer=lambda m, pooled_height, pooled_width, spatial_scale: [
        ([m[1][0][0], m[0][0][1] // (pooled_height * pooled_width), pooled_height, pooled_width], m[0][1])],
    grad=lambda g, out, x, boxes, boxes_num, **a: (apply(PSROI_POOL_GRAD, (g, x, boxes, boxes_num), a), None, None),
                   onnx_reason=_NO_ONNX)


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI average pooling (R-FCN): with C = C_out * ph * pw input channels, bin (i, j) of output
    channel c averages input channel ``(c * ph + i) * pw + j`` over the bin; returns [R, C_out, ph, pw].

    Example:
        >>> x = oar.ones([1, 8, 4, 4])
        >>> oar.vision.ops.psroi_pool(x, oar.to_tensor([[0.0, 0.0, 3.0, 3.0]]), oar.to_tensor([1]), 2).shape
        [1, 2, 2, 2]
    """
    ph, pw = _pair(output_size)
    if x.shape[1] % (ph * pw):
        raise ValueError(f"psroi_pool: input channels ({x.shape[1]}) must be a multiple of output_size "
                         f"{ph}x{pw} = {ph * pw}")
    return apply(PSROI_POOL, (x, boxes, _boxes_num(boxes, boxes_num)), {
        "pooled_height": ph, "pooled_width": pw, "spatial_scale": float(spatial_scale)})
