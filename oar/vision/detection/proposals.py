"""Detection post-processing and proposal ops: matrix_nms (SOLOv2's parallel soft suppression), generate_proposals
(RPN anchors + deltas -> NMS-filtered RoIs) and distribute_fpn_proposals (RoIs to FPN levels by scale).
They select boxes, so they have no gradient; outputs whose length depends on the data have unknown (-1) dims."""
import math

from ...core import dtype as D
from ...kernels.detection import (distribute_fpn_proposals as _distribute, generate_proposals as _generate,
                                  matrix_nms as _matrix_nms)
from ...ops.registry import apply, defop

_NO_ONNX = "detection op: not lowered yet"  # the onnx_reason of this family's ops


# ---- matrix_nms -------------------------------------------------------------------------------------------------


MATRIX_NMS = defop("matrix_nms", _matrix_nms, inputs=("bboxes", "scores"), outputs=("out", "index", "rois_num"),
                   infer=lambda m, **a: [([-1, 6], m[0][1]), ([-1, 1], D.int32), ([m[0][0][0]], D.int32)],
                   differentiable=False, onnx_reason=_NO_ONNX)


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian=False,
               gaussian_sigma=2.0, background_label=0, normalized=True, return_index=False, return_rois_num=True,
               name=None):
    """Matrix NMS (SOLOv2): per class, each box's score decays by its overlap with higher-scored boxes (linear
    ``(1 - iou) / (1 - iou_max)`` or Gaussian), all in one matrix step; boxes whose decayed score exceeds
    `post_threshold` are kept, best first, at most `keep_top_k` per image.

    Args:
        bboxes: [N, M, 4] boxes; scores: [N, C, M] class scores.
        score_threshold: candidates need a score above this; nms_top_k: candidates per class (-1: all).
        background_label: the class to skip (-1: none).

    Returns:
        (out [K, 6] rows of (label, score, x1, y1, x2, y2), rois_num [N] or None, index [K, 1] or None)

    Example:
        >>> boxes = oar.to_tensor([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9], [2.0, 2.0, 3.0, 3.0]]])
        >>> scores = oar.to_tensor([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.7]]])
        >>> out, num, _ = oar.vision.ops.matrix_nms(boxes, scores, 0.1, 0.5, -1, -1)
        >>> [[round(v, 2) for v in row] for row in out[:, :2].numpy().tolist()], num.numpy().tolist()
        ([[1.0, 0.9], [1.0, 0.7]], [2])
    """
    out, index, num = apply(MATRIX_NMS, (bboxes, scores), {
        "score_threshold": float(score_threshold), "post_threshold": float(post_threshold),
        "nms_top_k": int(nms_top_k), "keep_top_k": int(keep_top_k), "use_gaussian": bool(use_gaussian),
        "gaussian_sigma": float(gaussian_sigma), "background_label": int(background_label),
        "normalized": bool(normalized)})
    return out, (num if return_rois_num else None), (index if return_index else None)


# ---- distribute_fpn_proposals ------------------------------------------------------------------------------------


def _distribute_infer(m, min_level, max_level, **_):
    n = max_level - min_level + 1
    outs = [([-1, 4], m[0][1])] * n + [([m[0][0][0], 1], D.int32)]
    return outs + ([([m[1][0][0]], D.int32)] * n if len(m) > 1 else [])


DISTRIBUTE = defop("distribute_fpn_proposals", _distribute, inputs=("fpn_rois", "rois_num"), variadic=True,
                   outputs=("outs*",), infer=_distribute_infer,
                   differentiable=False, onnx_reason=_NO_ONNX)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset=False,
                             rois_num=None, name=None):
    """Assigns each RoI to an FPN level ``floor(refer_level + log2(sqrt(area) / refer_scale))`` clipped to
    [min_level, max_level].

    Returns:
        (list of the RoIs of each level, restore_ind [R, 1] with ``concat(levels)[restore_ind] == fpn_rois``,
        list of per-level rois_num [N] (None without `rois_num`))

    Example:
        >>> rois = oar.to_tensor([[0.0, 0.0, 10.0, 10.0], [0.0, 0.0, 100.0, 100.0], [0.0, 0.0, 30.0, 30.0]])
        >>> multi, restore, _ = oar.vision.ops.distribute_fpn_proposals(rois, 2, 5, 4, 56)
        >>> [r.shape[0] for r in multi], restore.numpy().ravel().tolist()
        ([1, 1, 1, 0], [0, 2, 1])
    """
    inputs = (fpn_rois,) if rois_num is None else (fpn_rois, rois_num)
    outs = apply(DISTRIBUTE, inputs, {"min_level": int(min_level), "max_level": int(max_level),
                                      "refer_level": int(refer_level), "refer_scale": float(refer_scale),
                                      "pixel_offset": bool(pixel_offset)})
    n = int(max_level) - int(min_level) + 1
    return list(outs[:n]), outs[n], (list(outs[n + 1:]) if rois_num is not None else None)


# ---- generate_proposals ------------------------------------------------------------------------------------------


GENERATE = defop("generate_proposals", _generate, inputs=("scores", "bbox_deltas", "img_size", "anchors",
                                                           "variances"),
                 outputs=("rpn_rois", "rpn_roi_probs", "rpn_rois_num"),
                 infer=lambda m, **a: [([-1, 4], m[0][1]), ([-1, 1], m[0][1]), ([m[0][0][0]], D.int32)],
                 differentiable=False, onnx_reason=_NO_ONNX)


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000, post_nms_top_n=1000,
                       nms_thresh=0.5, min_size=0.1, eta=1.0, pixel_offset=False, return_rois_num=False, name=None):
    """RPN proposals: anchors [H, W, A, 4] moved by `bbox_deltas` [N, 4A, H, W] (scaled by `variances`), clipped to
    `img_size` [N, 2] (height, width), small boxes dropped, the `pre_nms_top_n` best by `scores` [N, A, H, W]
    suppressed by NMS at `nms_thresh`, and the `post_nms_top_n` best kept.

    Returns:
        (rpn_rois [R, 4], rpn_roi_probs [R, 1], rpn_rois_num [N] or None)

    Example:
        >>> anchors = oar.to_tensor([[[[0.0, 0.0, 4.0, 4.0]]]])
        >>> rois, probs, num = oar.vision.ops.generate_proposals(
        ...     oar.to_tensor([[[[0.9]]]]), oar.zeros([1, 4, 1, 1]), oar.to_tensor([[8.0, 8.0]]), anchors,
        ...     oar.ones([1, 1, 1, 4]), return_rois_num=True)
        >>> rois.numpy().tolist(), num.numpy().tolist()
        ([[0.0, 0.0, 4.0, 4.0]], [1])
    """
    if eta != 1.0:
        raise NotImplementedError("generate_proposals: adaptive NMS (eta < 1) is not supported; use eta=1.0")
    a, h, w = scores.shape[1:]
    want = a * h * w * 4
    for what, t in (("anchors", anchors), ("variances", variances)):
        n = math.prod(t.shape)
        if min(a, h, w) >= 0 and all(d >= 0 for d in t.shape) and n != want:
            raise ValueError(f"generate_proposals: {what} of shape {t.shape} hold {n // 4} boxes, but scores "
                             f"{scores.shape} need H*W*A = {want // 4} ([H, W, A, 4]); Paddle reads past the end")
    rois, probs, num = apply(GENERATE, (scores, bbox_deltas, img_size, anchors, variances), {
        "pre_nms_top_n": int(pre_nms_top_n), "post_nms_top_n": int(post_nms_top_n), "nms_thresh": float(nms_thresh),
        "min_size": float(min_size), "eta": float(eta), "pixel_offset": bool(pixel_offset)})
    return rois, probs, (num if return_rois_num else None)


