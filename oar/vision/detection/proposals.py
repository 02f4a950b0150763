"""Detection post-processing and proposal ops: matrix_nms (SOLOv2's parallel soft suppression), generate_proposals
(RPN anchors + deltas -> NMS-filtered RoIs) and distribute_fpn_proposals (RoIs to FPN levels by scale).
They select boxes, so they have no gradient; outputs whose length depends on the data have unknown (-1) dims."""
import numpy as np

from ...framework import dtype as D
from ...ops.registry import apply, defop
from .boxes import _nms

_NO_ONNX = "detection op: not lowered yet"  # the onnx_reason of this family's ops


def _iou(a, b, norm):
    """IoU matrix between box sets a [n, 4] and b [m, 4] (+1 on sides for pixel boxes)."""
    area = lambda t: np.clip(t[:, 2] - t[:, 0] + norm, 0, None) * np.clip(t[:, 3] - t[:, 1] + norm, 0, None)  # noqa
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt + norm, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area(a)[:, None] + area(b)[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, 0.0)


# ---- matrix_nms -------------------------------------------------------------------------------------------------

def _matrix_nms_class(boxes, scores, score_threshold, post_threshold, nms_top_k, use_gaussian, sigma, norm):
    cand = np.flatnonzero(scores > score_threshold)
    cand = cand[np.argsort(-scores[cand], kind="stable")]
    if nms_top_k > -1:
        cand = cand[:nms_top_k]
    if not len(cand):
        return cand, scores[cand]
    iou = np.triu(_iou(boxes[cand], boxes[cand], norm), 1)  # iou[j, i] for j < i
    comp = iou.max(axis=0)  # the largest IoU of each box with a higher-scored one
    if use_gaussian:
        decay = np.exp((comp[:, None] ** 2 - iou ** 2) * sigma)
    else:
        decay = (1 - iou) / (1 - comp[:, None])
    decay = np.where(np.triu(np.ones_like(iou, bool), 1), decay, np.inf).min(axis=0)
    decay[0] = 1.0
    ds = scores[cand] * decay
    keep = ds > post_threshold
    return cand[keep], ds[keep]


def _matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian,
                gaussian_sigma, background_label, normalized):
    norm = 0.0 if normalized else 1.0
    outs, index, nums = [], [], []
    n, m = bboxes.shape[0], bboxes.shape[1]
    for b in range(n):
        dets = []
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            idx, ds = _matrix_nms_class(bboxes[b], scores[b, c], score_threshold, post_threshold, nms_top_k,
                                        use_gaussian, gaussian_sigma, norm)
            dets += [(s, c, i) for s, i in zip(ds, idx)]
        dets.sort(key=lambda d: -d[0])
        if keep_top_k > -1:
            dets = dets[:keep_top_k]
        for s, c, i in dets:
            outs.append([c, s, *bboxes[b, i]])
            index.append(b * m + i)
        nums.append(len(dets))
    out = np.asarray(outs, bboxes.dtype).reshape(-1, 6)
    return out, np.asarray(index, np.int32).reshape(-1, 1), np.asarray(nums, np.int32)


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

def _distribute(rois, *rois_num, min_level, max_level, refer_level, refer_scale, pixel_offset):
    off = 1.0 if pixel_offset else 0.0
    w = np.clip(rois[:, 2] - rois[:, 0] + off, 0, None)
    h = np.clip(rois[:, 3] - rois[:, 1] + off, 0, None)
    with np.errstate(divide="ignore"):
        lvl = np.floor(np.log2(np.sqrt(w * h) / refer_scale + 1e-8) + refer_level)
    lvl = np.clip(lvl, min_level, max_level).astype(np.int64)
    img = np.repeat(np.arange(len(rois_num[0])), rois_num[0]) if rois_num else np.zeros(len(rois), np.int64)
    per_level, order, nums = [], [], []
    for level in range(min_level, max_level + 1):
        sel = np.flatnonzero(lvl == level)
        sel = sel[np.argsort(img[sel], kind="stable")]  # grouped by image, original order within
        per_level.append(rois[sel])
        order.append(sel)
        if rois_num:
            nums.append(np.bincount(img[sel], minlength=len(rois_num[0])).astype(np.int32))
    restore = np.empty(len(rois), np.int32)
    restore[np.concatenate(order)] = np.arange(len(rois), dtype=np.int32)
    return tuple(per_level) + (restore.reshape(-1, 1),) + tuple(nums)


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

def _generate(scores, deltas, img_size, anchors, variances, pre_nms_top_n, post_nms_top_n, nms_thresh, min_size,
              eta, pixel_offset):
    off = 1.0 if pixel_offset else 0.0
    n = scores.shape[0]
    a = anchors.reshape(-1, 4)
    v = variances.reshape(-1, 4)
    rois, probs, nums = [], [], []
    for b in range(n):
        s = scores[b].transpose(1, 2, 0).reshape(-1)  # [H, W, A] order, as the anchors
        d = deltas[b].transpose(1, 2, 0).reshape(-1, 4)
        order = np.argsort(-s, kind="stable")
        if pre_nms_top_n > 0:
            order = order[:pre_nms_top_n]
        s, d, an, va = s[order], d[order], a[order], v[order]
        aw, ah = an[:, 2] - an[:, 0] + off, an[:, 3] - an[:, 1] + off
        acx, acy = an[:, 0] + 0.5 * aw, an[:, 1] + 0.5 * ah
        cx, cy = va[:, 0] * d[:, 0] * aw + acx, va[:, 1] * d[:, 1] * ah + acy
        clip = np.log(1000.0 / 16.0)
        w = np.exp(np.minimum(va[:, 2] * d[:, 2], clip)) * aw
        h = np.exp(np.minimum(va[:, 3] * d[:, 3], clip)) * ah
        box = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off], 1)
        ih, iw = img_size[b][:2]
        box[:, 0::2] = np.clip(box[:, 0::2], 0, iw - off)
        box[:, 1::2] = np.clip(box[:, 1::2], 0, ih - off)
        bw, bh = box[:, 2] - box[:, 0] + off, box[:, 3] - box[:, 1] + off
        ok = (bw >= max(min_size, 1.0)) & (bh >= max(min_size, 1.0))  # Paddle raises min_size to at least 1
        if pixel_offset:
            ok &= (box[:, 0] + bw / 2 <= iw) & (box[:, 1] + bh / 2 <= ih)
        box, s = box[ok], s[ok]
        keep = _nms(box - np.array([0, 0, -off, -off]) if off else box, nms_thresh) if len(box) else np.zeros(0, int)
        if post_nms_top_n > 0:
            keep = keep[:post_nms_top_n]
        rois.append(box[keep])
        probs.append(s[keep])
        nums.append(len(keep))
    return (np.concatenate(rois).astype(scores.dtype).reshape(-1, 4),
            np.concatenate(probs).astype(scores.dtype).reshape(-1, 1), np.asarray(nums, np.int32))


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
    rois, probs, num = apply(GENERATE, (scores, bbox_deltas, img_size, anchors, variances), {
        "pre_nms_top_n": int(pre_nms_top_n), "post_nms_top_n": int(post_nms_top_n), "nms_thresh": float(nms_thresh),
        "min_size": float(min_size), "eta": float(eta), "pixel_offset": bool(pixel_offset)})
    return rois, probs, (num if return_rois_num else None)


