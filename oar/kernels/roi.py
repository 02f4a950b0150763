"""RoI pooling kernels (oar/vision/detection/roi.py): roi_align, roi_pool and psroi_pool and their gradients.

Boxes are ``[num_rois, 4]`` as (x1, y1, x2, y2) in input-image coordinates; ``boxes_num[b]`` says how many of them
belong to image b. Each kernel builds, per RoI, the sparse map from input pixels to output bins; the gradient
kernels apply its transpose, so one description serves forward and backward."""
import math

import numpy as np


def batch_index(boxes_num, n_rois):
    idx = np.repeat(np.arange(len(boxes_num)), boxes_num.astype(np.int64))
    if len(idx) != n_rois:
        raise ValueError(f"boxes_num sums to {len(idx)} but there are {n_rois} boxes")
    return idx


def bilinear_rows(ys, xs, H, W):
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


def sample_steps(bins, grid):
    """Sample positions along one axis of a RoI, in bin widths from its start: ``j + (g + 0.5) / grid`` for bin j,
    sample g (the ONNX lowering of roi_align builds its matrices from these)."""
    return (np.arange(bins)[:, None] + (np.arange(grid)[None, :] + 0.5) / grid).reshape(-1)


def align_matrix(box, H, W, ph, pw, scale, sampling_ratio, aligned):
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
    idx, w = bilinear_rows(ys, xs, H, W)
    py = np.repeat(np.arange(ph), gh)
    px = np.repeat(np.arange(pw), gw)
    bins = (py[:, None] * pw + px[None, :]).reshape(-1)  # bin of each (ys, xs) sample
    m = np.zeros((ph * pw, H * W))
    np.add.at(m, (np.repeat(bins, 4), idx.reshape(-1)), w.reshape(-1) / (gh * gw))
    return m


def roi_align(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned):
    N, C, H, W = x.shape
    out = np.zeros((len(boxes), C, pooled_height * pooled_width), x.dtype)
    for r, b in enumerate(batch_index(boxes_num, len(boxes))):
        m = align_matrix(boxes[r], H, W, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned)
        out[r] = x[b].reshape(C, H * W) @ m.T
    return out.reshape(len(boxes), C, pooled_height, pooled_width)


def roi_align_grad(g, x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned):
    N, C, H, W = x.shape
    gx = np.zeros((N, C, H * W), g.dtype)
    for r, b in enumerate(batch_index(boxes_num, len(boxes))):
        m = align_matrix(boxes[r], H, W, pooled_height, pooled_width, spatial_scale, sampling_ratio, aligned)
        gx[b] += g[r].reshape(C, -1) @ m
    return gx.reshape(x.shape)


def pool_bins(box, H, W, ph, pw, scale):
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


def roi_pool(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale):
    N, C, H, W = x.shape
    out = np.zeros((len(boxes), C, pooled_height, pooled_width), x.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, b in enumerate(batch_index(boxes_num, len(boxes))):
        for i, j, h0, h1, w0, w1 in pool_bins(boxes[r], H, W, pooled_height, pooled_width, spatial_scale):
            if h1 <= h0 or w1 <= w0:
                continue
            win = x[b, :, h0:h1, w0:w1].reshape(C, -1)
            k = win.argmax(1)
            out[r, :, i, j] = win[np.arange(C), k]
            arg[r, :, i, j] = (h0 + k // (w1 - w0)) * W + w0 + k % (w1 - w0)
    return out, arg


def roi_pool_grad(g, arg, x, boxes_num):
    N, C, H, W = x.shape
    gx = np.zeros((N, C, H * W), g.dtype)
    bidx = batch_index(boxes_num, g.shape[0])
    for r, b in enumerate(bidx):
        a, gr = arg[r].reshape(C, -1), g[r].reshape(C, -1)
        for c in range(C):
            ok = a[c] >= 0
            np.add.at(gx[b, c], a[c][ok], gr[c][ok])
    return gx.reshape(x.shape)


def roi_pool_gather(gx, arg, boxes_num):
    """The adjoint of `roi_pool_grad`: per box and bin, `gx` (x-shaped) at the bin's argmax (0 if empty)."""
    N, C = gx.shape[:2]
    flat = gx.reshape(N, C, -1)[batch_index(boxes_num, arg.shape[0])]
    a = arg.reshape(arg.shape[0], C, -1)
    return (np.take_along_axis(flat, np.maximum(a, 0), axis=-1) * (a >= 0)).reshape(arg.shape).astype(gx.dtype)


def ps_bins(box, H, W, ph, pw, scale):
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
    for r, b in enumerate(batch_index(boxes_num, len(boxes))):
        for i, j, h0, h1, w0, w1 in ps_bins(boxes[r], H, W, ph, pw, scale):
            if h1 <= h0 or w1 <= w0:
                continue
            chans = (np.arange(co) * ph + i) * pw + j
            area = (h1 - h0) * (w1 - w0)
            if backward:
                res[b, chans, h0:h1, w0:w1] += (g[r, :, i, j] / area)[:, None, None]
            else:
                res[r, :, i, j] = x[b, chans, h0:h1, w0:w1].sum((1, 2)) / area
    return res


def psroi_pool(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale):
    return _psroi(x, x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, False)


def psroi_pool_grad(g, x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale):
    return _psroi(x, g, boxes, boxes_num, pooled_height, pooled_width, spatial_scale, True)
