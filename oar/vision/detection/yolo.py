"""YOLOv3 heads: box decoding (yolo_box) and the training loss (yolo_loss), composed from oar ops so they
differentiate and convert like any model code; only yolo_loss's ground-truth matching is a kernel of its own."""

from ...ops import math
from ...ops import reduction
from ...ops.creation import arange
from ...ops.indexing import gather_nd, one_hot
from ...ops.manipulation import reshape, stack, transpose, unsqueeze
from ...ops.math import cast, exp, log1p, maximum, minimum, ones_like, sigmoid, where, zeros_like
from ...eager.tensor import to_tensor
from ...core import dtype as D
from ...kernels.detection import yolo_loss_targets as _yolo_targets
from ...ops.registry import apply, defop


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decodes a YOLOv3 head `x` [N, A*(5+class_num), H, W] into boxes [N, A*H*W, 4] (x1, y1, x2, y2 in image
    pixels) and scores [N, A*H*W, class_num]; predictions with confidence below `conf_thresh` give zeros. As in
    Paddle (an inference op without a gradient kernel), both outputs are ``stop_gradient``: a loss that adds them
    sends no gradient to `x`.

    Args:
        img_size: [N, 2] int tensor of image (height, width).
        anchors: flat list of anchor (width, height) pairs in input pixels.
        downsample_ratio: input size / feature map size.
        scale_x_y: the center scale of Scaled-YOLOv4 (1.0: plain YOLOv3).
        iou_aware: the first A channels are IoU predictions mixed into the confidence.

    Example:
        >>> x = oar.zeros([1, 2 * (5 + 3), 4, 4])
        >>> boxes, scores = oar.vision.ops.yolo_box(x, oar.to_tensor([[32, 32]]), [10, 13, 16, 30], 3, 0.01, 8)
        >>> boxes.shape, scores.shape, round(scores[0, 0, 0].item(), 4)
        ([1, 32, 4], [1, 32, 3], 0.25)
    """
    n, _, h, w = x.shape
    na = len(anchors) // 2
    if iou_aware:
        ious, x = x[:, :na], x[:, na:]
    p = reshape(x, [n, na, 5 + class_num, h, w])
    img = cast(img_size, x.dtype)
    img_h = reshape(img[:, 0], [n, 1, 1, 1])
    img_w = reshape(img[:, 1], [n, 1, 1, 1])
    gx = reshape(arange(w, dtype=x.dtype), [1, 1, 1, w])
    gy = reshape(arange(h, dtype=x.dtype), [1, 1, h, 1])
    aw = reshape(to_tensor([float(a) for a in anchors[0::2]], dtype=x.dtype), [1, na, 1, 1])
    ah = reshape(to_tensor([float(a) for a in anchors[1::2]], dtype=x.dtype), [1, na, 1, 1])
    bias = -0.5 * (scale_x_y - 1.0)
    cx = (gx + sigmoid(p[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (gy + sigmoid(p[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = exp(p[:, :, 2]) * aw * img_w / (downsample_ratio * w)
    bh = exp(p[:, :, 3]) * ah * img_h / (downsample_ratio * h)
    conf = sigmoid(p[:, :, 4])
    if iou_aware:
        conf = math.pow(conf, 1.0 - iou_aware_factor) * math.pow(sigmoid(ious), iou_aware_factor)
    keep = cast(conf >= conf_thresh, x.dtype)
    x1, y1, x2, y2 = cx - bw * 0.5, cy - bh * 0.5, cx + bw * 0.5, cy + bh * 0.5
    if clip_bbox:
        x1, y1 = maximum(x1, zeros_like(x1)), maximum(y1, zeros_like(y1))
        x2, y2 = minimum(x2, img_w - 1.0 + x2 * 0.0), minimum(y2, img_h - 1.0 + y2 * 0.0)
    boxes = stack([x1, y1, x2, y2], -1) * unsqueeze(keep, -1)  # [n, na, h, w, 4]
    scores = sigmoid(p[:, :, 5:]) * unsqueeze(conf * keep, 2)  # [n, na, C, h, w]
    scores = transpose(scores, [0, 1, 3, 4, 2])
    return reshape(boxes, [n, na * h * w, 4]).detach(), reshape(scores, [n, na * h * w, class_num]).detach()


# ---- yolo_loss: a kernel matches ground truth to anchors (no gradient); the loss is composed from oar ops -------


YOLO_TARGETS = defop("yolo_loss_targets", _yolo_targets, inputs=("x", "gt_box", "gt_score"),
                     outputs=("objectness", "index", "target", "weight"), nondiff=(0, 1, 2),
                     infer=lambda m, anchor_mask, **a: [
                         ([m[0][0][0], len(anchor_mask), m[0][0][2], m[0][0][3]], m[0][1]),
                         ([m[1][0][0], m[1][0][1], 4], D.int64), ([m[1][0][0], m[1][0][1], 4], m[0][1]),
                         ([m[1][0][0], m[1][0][1]], m[0][1])],
                     differentiable=False, onnx_reason="detection op: not lowered yet")


def _sce(x, label):
    """Sigmoid cross entropy with logits, elementwise."""
    return maximum(x, zeros_like(x)) - x * label + log1p(exp(-math.abs(x)))


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio, gt_score=None,
              use_label_smooth=True, name=None, scale_x_y=1.0):
    """The YOLOv3 loss of a head `x` [N, len(anchor_mask) * (5 + class_num), H, W] against ground-truth boxes
    `gt_box` [N, B, 4] (center x, center y, w, h, divided by the input size) with labels `gt_label` [N, B]:
    per image, sigmoid cross entropy on x/y offsets, L1 on log w/h (both weighted by ``2 - w * h``), objectness
    (ignoring predictions whose best IoU with a ground truth exceeds `ignore_thresh`) and class scores (smoothed to
    ``1 - min(1/class_num, 1/40)`` when `use_label_smooth`). Returns [N].

    Each ground truth trains the anchor of best shape IoU among all `anchors`, if that anchor is in `anchor_mask`;
    boxes with zero width or height are padding. `gt_score` (mixup weights, default 1) scales a box's terms.

    Example:
        >>> x = oar.zeros([1, 2 * (5 + 2), 4, 4])
        >>> gt = oar.to_tensor([[[0.5, 0.5, 0.3, 0.4], [0.0, 0.0, 0.0, 0.0]]])
        >>> loss = oar.vision.ops.yolo_loss(x, gt, oar.to_tensor([[1, 0]], 'int32'), [10, 13, 16, 30, 33, 23],
        ...                                 [1, 2], 2, 0.7, 8)
        >>> loss.shape, round(loss.item(), 3)
        ([1], 22.181)
    """
    n, _, h, w = x.shape
    m = len(anchor_mask)
    if x.shape[1] != m * (5 + class_num):
        raise ValueError(f"yolo_loss: x has {x.shape[1]} channels, expected len(anchor_mask) * (5 + class_num) = "
                         f"{m * (5 + class_num)}")
    if gt_score is None:
        gt_score = ones_like(gt_box[:, :, 0])  # also when the batch size is unknown (static programs)
    obj, index, target, weight = apply(YOLO_TARGETS, (x, gt_box, gt_score), {
        "anchors": [int(a) for a in anchors], "anchor_mask": [int(a) for a in anchor_mask],
        "class_num": int(class_num), "ignore_thresh": float(ignore_thresh),
        "downsample_ratio": int(downsample_ratio), "scale_x_y": float(scale_x_y)})
    p = reshape(x, [n, m, 5 + class_num, h, w])
    per_gt = gather_nd(transpose(p, [0, 1, 3, 4, 2]), index)  # [n, b, 5 + class_num]
    box_w = (2.0 - gt_box[:, :, 2] * gt_box[:, :, 3]) * weight
    loc = (_sce(per_gt[:, :, 0], target[:, :, 0]) + _sce(per_gt[:, :, 1], target[:, :, 1])
           + math.abs(per_gt[:, :, 2] - target[:, :, 2]) + math.abs(per_gt[:, :, 3] - target[:, :, 3])) * box_w
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    onehot = one_hot(cast(gt_label, "int64"), class_num).astype(x.dtype)
    cls_target = onehot * (1.0 - 2 * smooth) + smooth
    cls = reduction.sum(_sce(per_gt[:, :, 5:], cls_target), axis=-1) * weight
    o = p[:, :, 4]
    obj_loss = where(obj > 1e-5, _sce(o, ones_like(o)) * obj,
                         where(obj > -0.5, _sce(o, zeros_like(o)), zeros_like(o)))
    return reduction.sum(loc + cls, axis=1) + reduction.sum(obj_loss, axis=[1, 2, 3])
