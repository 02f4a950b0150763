"""Detection kernels (oar/vision/detection): IoU, greedy and matrix non-maximum suppression, SSD prior boxes, FPN
proposal distribution, RPN proposal generation and the YOLOv3 loss targets."""
import math

import numpy as np


def iou_matrix(b):
    area = np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)
    lt = np.maximum(b[:, None, :2], b[None, :, :2])
    rb = np.minimum(b[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area[:, None] + area[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, 0.0)


def nms(boxes, iou_threshold):
    """Greedy NMS over boxes already in priority order: the kept indices, in that order."""
    iou = iou_matrix(boxes.astype(np.float64))
    removed = np.zeros(len(boxes), bool)
    keep = []
    for i in range(len(boxes)):
        if removed[i]:
            continue
        keep.append(i)
        removed |= iou[i] > iou_threshold
    return np.asarray(keep, np.int64)


def expand_ratios(aspect_ratios, flip):
    out = [1.0]
    for ar in aspect_ratios:
        for r in ([ar, 1.0 / ar] if flip else [ar]):
            if all(abs(r - e) > 1e-6 for e in out):
                out.append(r)
    return out


def prior_box(feature, image, min_sizes, max_sizes, aspect_ratios, variance, flip, clip, steps, offset,
              min_max_aspect_ratios_order):
    fh, fw = feature.shape[2], feature.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    step_w = steps[0] if steps[0] > 0 else iw / fw
    step_h = steps[1] if steps[1] > 0 else ih / fh
    ratios = expand_ratios(aspect_ratios, flip)
    sizes = []  # (half width, half height) of each prior at a cell
    for s, mn in enumerate(min_sizes):
        square_max = [] if not max_sizes else [(math.sqrt(mn * max_sizes[s]) / 2,) * 2]
        by_ratio = [(mn * math.sqrt(r) / 2, mn / math.sqrt(r) / 2) for r in ratios
                    if not (min_max_aspect_ratios_order and abs(r - 1.0) < 1e-6)]
        sizes += ([(mn / 2, mn / 2)] + square_max + by_ratio) if min_max_aspect_ratios_order else by_ratio + square_max
    half = np.asarray(sizes)  # [P, 2]
    cx = (np.arange(fw) + offset) * step_w
    cy = (np.arange(fh) + offset) * step_h
    cx, cy = np.meshgrid(cx, cy)  # [fh, fw]
    boxes = np.stack([(cx[..., None] - half[:, 0]) / iw, (cy[..., None] - half[:, 1]) / ih,
                      (cx[..., None] + half[:, 0]) / iw, (cy[..., None] + half[:, 1]) / ih], -1)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    var = np.broadcast_to(np.asarray(variance, np.float64), boxes.shape)
    return boxes.astype(feature.dtype), np.ascontiguousarray(var).astype(feature.dtype)


def pairwise_iou(a, b, norm):
    """IoU matrix between box sets a [n, 4] and b [m, 4] (+1 on sides for pixel boxes)."""
    area = lambda t: np.clip(t[:, 2] - t[:, 0] + norm, 0, None) * np.clip(t[:, 3] - t[:, 1] + norm, 0, None)  # noqa
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt + norm, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area(a)[:, None] + area(b)[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, 0.0)


def matrix_nms_class(boxes, scores, score_threshold, post_threshold, nms_top_k, use_gaussian, sigma, norm):
    cand = np.flatnonzero(scores > score_threshold)
    cand = cand[np.argsort(-scores[cand], kind="stable")]
    if nms_top_k > -1:
        cand = cand[:nms_top_k]
    if not len(cand):
        return cand, scores[cand]
    iou = np.triu(pairwise_iou(boxes[cand], boxes[cand], norm), 1)  # iou[j, i] for j < i
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


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian,
               gaussian_sigma, background_label, normalized):
    norm = 0.0 if normalized else 1.0
    outs, index, nums = [], [], []
    n, m = bboxes.shape[0], bboxes.shape[1]
    for b in range(n):
        dets = []
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            idx, ds = matrix_nms_class(bboxes[b], scores[b, c], score_threshold, post_threshold, nms_top_k,
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


def distribute_fpn_proposals(rois, *rois_num, min_level, max_level, refer_level, refer_scale, pixel_offset):
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


def generate_proposals(scores, deltas, img_size, anchors, variances, pre_nms_top_n, post_nms_top_n, nms_thresh,
                       min_size, eta, pixel_offset):
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
        keep = nms(box - np.array([0, 0, -off, -off]) if off else box, nms_thresh) if len(box) else np.zeros(0, int)
        if post_nms_top_n > 0:
            keep = keep[:post_nms_top_n]
        rois.append(box[keep])
        probs.append(s[keep])
        nums.append(len(keep))
    return (np.concatenate(rois).astype(scores.dtype).reshape(-1, 4),
            np.concatenate(probs).astype(scores.dtype).reshape(-1, 1), np.asarray(nums, np.int32))


def center_iou(a, b):
    """IoU of boxes given as (cx, cy, w, h) arrays broadcast together."""
    w = np.minimum(a[..., 0] + a[..., 2] / 2, b[..., 0] + b[..., 2] / 2) - np.maximum(a[..., 0] - a[..., 2] / 2,
                                                                                       b[..., 0] - b[..., 2] / 2)
    h = np.minimum(a[..., 1] + a[..., 3] / 2, b[..., 1] + b[..., 3] / 2) - np.maximum(a[..., 1] - a[..., 3] / 2,
                                                                                       b[..., 1] - b[..., 3] / 2)
    inter = np.where((w < 0) | (h < 0), 0.0, w * h)
    return inter / (a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter)


def yolo_loss_targets(x, gt_box, gt_score, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio,
                      scale_x_y):
    n, _, h, w = x.shape
    m, b = len(anchor_mask), gt_box.shape[1]
    input_size = downsample_ratio * h
    an = np.asarray(anchors, np.float64).reshape(-1, 2)
    p = x.reshape(n, m, 5 + class_num, h, w).astype(np.float64)
    sig = 1 / (1 + np.exp(-p[:, :, :2]))
    bias = -0.5 * (scale_x_y - 1)
    cols, rows = np.arange(w)[None, None, None, :], np.arange(h)[None, None, :, None]
    mask_an = an[list(anchor_mask)]
    pred = np.stack([(cols + sig[:, :, 0] * scale_x_y + bias) / h, (rows + sig[:, :, 1] * scale_x_y + bias) / h,
                     np.exp(p[:, :, 2]) * mask_an[None, :, 0, None, None] / input_size,
                     np.exp(p[:, :, 3]) * mask_an[None, :, 1, None, None] / input_size], -1)  # [n, m, h, w, 4]
    gt = gt_box.astype(np.float64)
    valid = (gt[..., 2] >= 1e-6) & (gt[..., 3] >= 1e-6)  # [n, b]
    iou = center_iou(pred[:, :, :, :, None, :], gt[:, None, None, None, :, :])  # [n, m, h, w, b]
    best = np.where(valid[:, None, None, None, :], iou, 0.0).max(-1, initial=0.0)
    obj = np.where(best > ignore_thresh, -1.0, 0.0)
    index = np.zeros((n, b, 4), np.int64)
    target = np.zeros((n, b, 4))
    weight = np.zeros((n, b))
    shapes = np.concatenate([np.zeros((len(an), 2)), an / input_size], 1)
    for i in range(n):
        index[i, :, 0] = i
        for t in range(b):
            if not valid[i, t]:
                continue
            g = gt[i, t]
            gi, gj = int(g[0] * w), int(g[1] * h)
            ious = center_iou(shapes, np.array([0.0, 0.0, g[2], g[3]]))
            best_n = int(np.argmax(ious)) if ious.max() > 0 else 0
            if best_n not in anchor_mask:
                continue
            k = list(anchor_mask).index(best_n)
            score = gt_score[i, t]
            index[i, t, 1:] = (k, gj, gi)
            target[i, t] = (g[0] * h - gi, g[1] * h - gj, np.log(g[2] * input_size / an[best_n, 0]),
                            np.log(g[3] * input_size / an[best_n, 1]))
            weight[i, t] = score
            obj[i, k, gj, gi] = score
    dt = x.dtype
    return obj.astype(dt), index, target.astype(dt), weight.astype(dt)
