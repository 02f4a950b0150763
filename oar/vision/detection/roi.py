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
ROI_ALIGN = defop("roi_align", roi_kernels.roi_align, inputs=("x", "boxes", "boxes_num"), nondiff=(1, 2),
                  infer=_roi_infer,
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
