"""RoI pooling ops: roi_align (bilinear sampling, averaged per bin), roi_pool (max per quantized bin) and
psroi_pool (position-sensitive average pooling).

Boxes are ``[num_rois, 4]`` as (x1, y1, x2, y2) in input-image coordinates; ``boxes_num[b]`` says how many of them
belong to image b. Each kernel (oar/kernels/roi.py) builds, per RoI, the sparse map from input pixels to output
bins; the gradient ops apply its transpose, so one description serves forward and backward."""
from ...core import dtype as D
from ...kernels import roi as roi_kernels
from ...ops.registry import apply, defop

_NO_ONNX = "detection op: not lowered yet"  # the onnx_reason of this family's ops


# ---- roi_align: out[r, c, bin] = sum_p W[r][bin, p] * x[b(r), c, p] ---------------------------------------------


def _roi_infer(m, pooled_height, pooled_width, **_):
    return [([m[1][0][0], m[0][0][1], pooled_height, pooled_width], m[0][1])]


_ATTRS = ("pooled_height", "pooled_width", "spatial_scale", "sampling_ratio", "aligned")
ROI_ALIGN_GRAD = defop("roi_align_grad", roi_kernels.roi_align_grad, inputs=("grad", "x", "boxes", "boxes_num"),
                       nondiff=(1, 2, 3), infer=lambda m, **a: [m[1]],
                       grad=lambda g, out, grad, x, boxes, boxes_num, **a: (
                           apply(ROI_ALIGN, (g, boxes, boxes_num), a), None, None, None))


def _onnx_axis_matrix(ctx, op, start, length, size, bins, grid, dt):
    """[R, bins, size]: per RoI, the mean over a bin's `grid` samples of the bilinear weights along one axis
    (`oar.kernels.roi.bilinear_rows` is the product of two such factors, validity included)."""
    def c(v):
        return ctx.const(v, dt)
    steps = roi_kernels.sample_steps(bins, grid)[None, :]
    pos = ctx.node("Add", [ctx.node("Unsqueeze", [start, ctx.ints([1])]),
                           ctx.node("Mul", [ctx.node("Unsqueeze", [ctx.node("Div", [length, c(bins)]),
                                                                   ctx.ints([1])]), c(steps)])])  # [R, bins*grid]
    valid = ctx.node("And", [ctx.node("GreaterOrEqual", [pos, c(-1.0)]), ctx.node("LessOrEqual", [pos, c(size)])])
    p = ctx.node("Max", [pos, c(0.0)])
    lo = ctx.node("Floor", [p])
    edge = ctx.node("GreaterOrEqual", [lo, c(size - 1)])
    lo = ctx.node("Where", [edge, c(size - 1), lo])
    hi = ctx.node("Where", [edge, c(size - 1), ctx.node("Add", [lo, c(1.0)])])
    frac = ctx.node("Sub", [ctx.node("Where", [edge, lo, p]), lo])
    frac_lo = ctx.node("Mul", [ctx.node("Sub", [c(1.0), frac]), ctx.cast(valid, dt)])
    frac_hi = ctx.node("Mul", [frac, ctx.cast(valid, dt)])
    pixels = c(list(range(size)))

    def weight(index, w):  # [R, S, size]: w where pixel == index
        hit = ctx.cast(ctx.node("Equal", [ctx.node("Unsqueeze", [index, ctx.ints([2])]), pixels]), dt)
        return ctx.node("Mul", [hit, ctx.node("Unsqueeze", [w, ctx.ints([2])])])
    m = ctx.node("Add", [weight(lo, frac_lo), weight(hi, frac_hi)])
    m = ctx.node("Reshape", [m, ctx.ints([0, bins, grid, size])])
    return ctx.node("ReduceMean", [m], axes=[2], keepdims=0)


def _onnx_roi_align(ctx, op):
    """Separable: out[r] = Ay[r] @ x[b(r)] @ Ax[r]^T with per-axis averaging matrices built in the graph, b(r) from
    the cumulative boxes_num; a fixed sampling_ratio and a known H, W are needed (the adaptive grid's size depends
    on each box)."""
    a = op.attrs
    shape, dt = ctx.in_meta(op, "x")
    if a["sampling_ratio"] <= 0 or any(d < 0 for d in shape[2:]):
        raise ctx.block_op_error(op, "roi_align lowers to ONNX with sampling_ratio > 0 and a known H, W only "
                                     f"(sampling_ratio={a['sampling_ratio']}, x {shape})")
    H, W = shape[2:]
    ph, pw, g = a["pooled_height"], a["pooled_width"], a["sampling_ratio"]
    boxes = ctx.inp(op, "boxes")
    if ctx.in_meta(op, "boxes")[1] != dt:
        boxes = ctx.cast(boxes, dt)
    off = 0.5 if a["aligned"] else 0.0
    coord = ctx.node("Sub", [ctx.node("Mul", [boxes, ctx.const(a["spatial_scale"], dt)]), ctx.const(off, dt)])
    x1, y1, x2, y2 = (ctx.node("Gather", [coord, ctx.const(k, "int64")], axis=1) for k in range(4))
    rw, rh = ctx.node("Sub", [x2, x1]), ctx.node("Sub", [y2, y1])
    if not a["aligned"]:
        one = ctx.const(1.0, dt)
        rw, rh = ctx.node("Max", [rw, one]), ctx.node("Max", [rh, one])
    ay = _onnx_axis_matrix(ctx, op, y1, rh, H, ph, g, dt)  # [R, ph, H]
    ax = _onnx_axis_matrix(ctx, op, x1, rw, W, pw, g, dt)  # [R, pw, W]
    counts = ctx.cast(ctx.inp(op, "boxes_num"), "int64")
    ends = ctx.node("CumSum", [counts, ctx.const(0, "int64")])
    n_rois = ctx.node("Gather", [ctx.node("Shape", [boxes]), ctx.const(0, "int64")], axis=0)
    rows = ctx.node("Range", [ctx.const(0, "int64"), n_rois, ctx.const(1, "int64")])
    image = ctx.node("ReduceSum", [ctx.cast(ctx.node("GreaterOrEqual", [
        ctx.node("Unsqueeze", [rows, ctx.ints([1])]), ctx.node("Unsqueeze", [ends, ctx.ints([0])])]), "int64"),
        ctx.ints([1])], keepdims=0)
    feats = ctx.node("Gather", [ctx.inp(op, "x"), image], axis=0)  # [R, C, H, W]
    out = ctx.node("MatMul", [ctx.node("Unsqueeze", [ay, ctx.ints([1])]), feats])  # [R, C, ph, W]
    ctx.node("MatMul", [out, ctx.node("Unsqueeze", [ctx.node("Transpose", [ax], perm=[0, 2, 1]), ctx.ints([1])])],
             [ctx.out(op)])


ROI_ALIGN = defop("roi_align", roi_kernels.roi_align, inputs=("x", "boxes", "boxes_num"), nondiff=(1, 2),
                  infer=_roi_infer,
                  grad=lambda g, out, x, boxes, boxes_num, **a: (
                      apply(ROI_ALIGN_GRAD, (g, x, boxes, boxes_num), a), None, None),
                  onnx=_onnx_roi_align)


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


# the scatter to each bin's argmax and its adjoint gather: each is the other's gradient (x gives only the shape)
ROI_POOL_GRAD = defop("roi_pool_grad", roi_kernels.roi_pool_grad, inputs=("grad", "argmax", "x", "boxes_num"),
                      nondiff=(1, 2, 3), infer=lambda m: [m[2]],
                      grad=lambda gg, gx, g, arg, x, boxes_num: (
                          apply(ROI_POOL_GATHER, (gg, arg, boxes_num)), None, None, None))
ROI_POOL_GATHER = defop("roi_pool_gather", roi_kernels.roi_pool_gather, inputs=("x_grad", "argmax", "boxes_num"),
                        nondiff=(1, 2), infer=lambda m: [(m[1][0], m[0][1])],
                        onnx_reason="training-only (gradient kernel)",
                        grad=lambda gg, out, gx, arg, boxes_num: (
                            apply(ROI_POOL_GRAD, (gg, arg, gx, boxes_num)), None, None))
ROI_POOL = defop("roi_pool", roi_kernels.roi_pool, inputs=("x", "boxes", "boxes_num"), outputs=("out", "argmax"),
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


PSROI_POOL_GRAD = defop("psroi_pool_grad", roi_kernels.psroi_pool_grad,
                        inputs=("grad", "x", "boxes", "boxes_num"), nondiff=(1, 2, 3), infer=lambda m, **a: [m[1]],
                        grad=lambda gg, gx, g, x, boxes, boxes_num, **a: (  # linear in g: the pooling again
                            apply(PSROI_POOL, (gg, boxes, boxes_num), a), None, None, None))
PSROI_POOL = defop("psroi_pool", roi_kernels.psroi_pool,
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
