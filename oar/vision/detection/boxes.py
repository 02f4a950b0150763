"""Box utilities of detection models: non-maximum suppression, box encoding/decoding (box_coder) and SSD prior
boxes (prior_box)."""

import numpy as np

from ...ops import math as math_ops
from ...ops.creation import zeros
from ...ops.indexing import gather
from ...ops.manipulation import concat, stack, unsqueeze
from ...ops.math import exp, log
from ...ops.search import argsort, nonzero
from ...eager.tensor import to_tensor
from ...core import dtype as D
from ...kernels.detection import nms as _nms, prior_box as _prior_box
from ...ops.registry import apply, defop


NMS = defop("nms", _nms, inputs=("boxes",), infer=lambda m, iou_threshold: [([-1], D.int64)],
            differentiable=False, onnx_reason="detection op: not lowered yet")


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None, top_k=None):
    """Non-maximum suppression: indices of the boxes kept, highest score first.

    Args:
        boxes: [N, 4] boxes (x1, y1, x2, y2); without `scores` they are taken to be sorted by score already.
        iou_threshold: a box overlapping a kept box by more than this IoU is dropped.
        scores: [N] scores; boxes are then visited from the highest score.
        category_idxs, categories: suppress only within each category (the ids listed in `categories`).
        top_k: keep at most this many.

    Example:
        >>> boxes = oar.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.1, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]])
        >>> oar.vision.ops.nms(boxes, 0.5, scores=oar.to_tensor([0.6, 0.9, 0.3])).numpy().tolist()
        [1, 2]
    """
    if scores is None:
        keep = apply(NMS, (boxes,), {"iou_threshold": float(iou_threshold)})
        return keep if top_k is None else keep[:top_k]
    order = argsort(scores, descending=True)
    if category_idxs is None:
        keep = gather(order, apply(NMS, (gather(boxes, order),), {"iou_threshold": float(iou_threshold)}))
        return keep if top_k is None else keep[:top_k]
    if categories is None:
        raise ValueError("nms: categories must be given with category_idxs")
    kept = []
    for c in categories:
        idx = nonzero(category_idxs == c).reshape([-1])
        if idx.shape[0] == 0:
            continue
        sub = argsort(gather(scores, idx), descending=True)
        sorted_idx = gather(idx, sub)
        kept.append(gather(sorted_idx, apply(NMS, (gather(boxes, sorted_idx),),
                                                 {"iou_threshold": float(iou_threshold)})))
    if not kept:
        return zeros([0], "int64")
    keep = concat(kept)
    keep = gather(keep, argsort(gather(scores, keep), descending=True))
    return keep if top_k is None else keep[:top_k]


# ---- box_coder ----------------------------------------------------------------------------------------------------

def _center_size(b, norm):
    w = b[..., 2] - b[..., 0] + norm
    h = b[..., 3] - b[..., 1] + norm
    return b[..., 0] + w * 0.5, b[..., 1] + h * 0.5, w, h


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, axis=0,
              name=None):
    """Encodes target boxes as offsets from prior boxes (``encode_center_size``) or decodes offsets back into boxes
    (``decode_center_size``), as in Faster R-CNN / SSD.

    Args:
        prior_box: [M, 4] boxes (x1, y1, x2, y2).
        prior_box_var: [M, 4] tensor, a list of 4 floats, or None (variances that divide the offsets).
        target_box: encode: [N, 4] boxes, giving [N, M, 4]; decode: [N, M, 4] offsets (or [M, 4] with axis=0).
        box_normalized: False adds 1 to widths and heights (pixel boxes).
        axis: for decoding, the axis of `target_box` that the priors broadcast along.

    Example:
        >>> prior = oar.to_tensor([[0.0, 0.0, 2.0, 2.0]])
        >>> enc = oar.vision.ops.box_coder(prior, [1.0, 1.0, 1.0, 1.0], oar.to_tensor([[1.0, 1.0, 3.0, 3.0]]))
        >>> enc.numpy().tolist()
        [[[0.5, 0.5, 0.0, 0.0]]]
        >>> oar.vision.ops.box_coder(prior, [1.0, 1.0, 1.0, 1.0], enc, "decode_center_size").numpy().tolist()
        [[[1.0, 1.0, 3.0, 3.0]]]
    """
    norm = 0.0 if box_normalized else 1.0
    if isinstance(prior_box_var, (list, tuple)):
        var = to_tensor(np.asarray(prior_box_var, D.np_dtype(prior_box.dtype)))
    else:
        var = prior_box_var
    pcx, pcy, pw, ph = _center_size(prior_box, norm)
    if code_type == "encode_center_size":
        tcx, tcy, tw, th = (unsqueeze(v, 1) for v in _center_size(target_box, norm))  # [N, 1]
        out = stack([(tcx - pcx) / pw, (tcy - pcy) / ph, log(math_ops.abs(tw / pw)), log(math_ops.abs(th / ph))],
                        -1)
        return out if var is None else out / var
    if code_type != "decode_center_size":
        raise ValueError("box_coder: code_type must be 'encode_center_size' or 'decode_center_size', "
                         f"got {code_type!r}")
    t = target_box if target_box.ndim == 3 else unsqueeze(target_box, 0 if axis == 0 else 1)
    if axis == 1:  # prior i goes with row i of target_box
        pcx, pcy, pw, ph = (unsqueeze(v, 1) for v in (pcx, pcy, pw, ph))
        var = var if var is None or var.ndim == 1 else unsqueeze(var, 1)
    if var is not None:
        t = t * var
    cx = t[..., 0] * pw + pcx
    cy = t[..., 1] * ph + pcy
    w = exp(t[..., 2]) * pw
    h = exp(t[..., 3]) * ph
    return stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - norm, cy + h * 0.5 - norm], -1)


# ---- prior_box ----------------------------------------------------------------------------------------------------


PRIOR_BOX = defop("prior_box", _prior_box, inputs=("input", "image"), outputs=("boxes", "variances"), nondiff=(0, 1),
                  infer_reason="probed", differentiable=False, onnx_reason="detection op: not lowered yet")


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=(1.0,), variance=(0.1, 0.1, 0.2, 0.2),
              flip=False, clip=False, steps=(0.0, 0.0), offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD prior (anchor) boxes for each cell of the feature map `input` [N, C, H, W] over `image` [N, C, IH, IW]:
    returns boxes and variances, each [H, W, num_priors, 4], normalized to the image size.

    Example:
        >>> boxes, var = oar.vision.ops.prior_box(oar.ones([1, 3, 2, 2]), oar.ones([1, 3, 8, 8]), min_sizes=[4.0],
        ...                                      aspect_ratios=[2.0], flip=True)
        >>> boxes.shape, boxes[0, 0, 0].numpy().tolist()
        ([2, 2, 3, 4], [0.0, 0.0, 0.5, 0.5])
    """
    to_list = lambda v: [float(a) for a in v] if v is not None else []  # noqa: E731
    return apply(PRIOR_BOX, (input, image), {
        "min_sizes": to_list(min_sizes), "max_sizes": to_list(max_sizes), "aspect_ratios": to_list(aspect_ratios),
        "variance": to_list(variance), "flip": bool(flip), "clip": bool(clip), "steps": to_list(steps),
        "offset": float(offset), "min_max_aspect_ratios_order": bool(min_max_aspect_ratios_order)})
