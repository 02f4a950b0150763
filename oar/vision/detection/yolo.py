"""YOLOv3 box decoding (yolo_box), composed from oar ops so it differentiates and converts like any model code."""
import oar


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decodes a YOLOv3 head `x` [N, A*(5+class_num), H, W] into boxes [N, A*H*W, 4] (x1, y1, x2, y2 in image
    pixels) and scores [N, A*H*W, class_num]; predictions with confidence below `conf_thresh` give zeros.

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
    p = oar.reshape(x, [n, na, 5 + class_num, h, w])
    img = oar.cast(img_size, x.dtype)
    img_h = oar.reshape(img[:, 0], [n, 1, 1, 1])
    img_w = oar.reshape(img[:, 1], [n, 1, 1, 1])
    gx = oar.reshape(oar.arange(w, dtype=x.dtype), [1, 1, 1, w])
    gy = oar.reshape(oar.arange(h, dtype=x.dtype), [1, 1, h, 1])
    aw = oar.reshape(oar.to_tensor([float(a) for a in anchors[0::2]], dtype=x.dtype), [1, na, 1, 1])
    ah = oar.reshape(oar.to_tensor([float(a) for a in anchors[1::2]], dtype=x.dtype), [1, na, 1, 1])
    bias = -0.5 * (scale_x_y - 1.0)
    cx = (gx + oar.sigmoid(p[:, :, 0]) * scale_x_y + bias) * img_w / w
    cy = (gy + oar.sigmoid(p[:, :, 1]) * scale_x_y + bias) * img_h / h
    bw = oar.exp(p[:, :, 2]) * aw * img_w / (downsample_ratio * w)
    bh = oar.exp(p[:, :, 3]) * ah * img_h / (downsample_ratio * h)
    conf = oar.sigmoid(p[:, :, 4])
    if iou_aware:
        conf = oar.pow(conf, 1.0 - iou_aware_factor) * oar.pow(oar.sigmoid(ious), iou_aware_factor)
    keep = oar.cast(conf >= conf_thresh, x.dtype)
    x1, y1, x2, y2 = cx - bw * 0.5, cy - bh * 0.5, cx + bw * 0.5, cy + bh * 0.5
    if clip_bbox:
        x1, y1 = oar.maximum(x1, oar.zeros_like(x1)), oar.maximum(y1, oar.zeros_like(y1))
        x2, y2 = oar.minimum(x2, img_w - 1.0 + x2 * 0.0), oar.minimum(y2, img_h - 1.0 + y2 * 0.0)
    boxes = oar.stack([x1, y1, x2, y2], -1) * oar.unsqueeze(keep, -1)  # [n, na, h, w, 4]
    scores = oar.sigmoid(p[:, :, 5:]) * oar.unsqueeze(conf * keep, 2)  # [n, na, C, h, w]
    scores = oar.transpose(scores, [0, 1, 3, 4, 2])
    return oar.reshape(boxes, [n, na * h * w, 4]), oar.reshape(scores, [n, na * h * w, class_num])
