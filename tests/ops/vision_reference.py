"""Loop-by-loop NumPy references of the detection ops (written from the published algorithms, independent of the
vectorized kernels in oar/vision/detection)."""
import math

import numpy as np


def bilinear(img, y, x):
    """Detectron2's ROIAlign sampling of img [H, W] at (y, x)."""
    H, W = img.shape
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1] + ly * (1 - lx) * img[y1, x0]
            + ly * lx * img[y1, x1])


def roi_align(x, boxes, boxes_num, ph, pw, scale=1.0, ratio=-1, aligned=True):
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    batch = np.repeat(np.arange(len(boxes_num)), boxes_num)
    off = 0.5 if aligned else 0.0
    for r, box in enumerate(boxes):
        x1, y1, x2, y2 = box * scale - off
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    acc = 0.0
                    for iy in range(gh):
                        for ix in range(gw):
                            yy = y1 + i * bh + (iy + 0.5) * bh / gh
                            xx = x1 + j * bw + (ix + 0.5) * bw / gw
                            acc += bilinear(x[batch[r], c], yy, xx)
                    out[r, c, i, j] = acc / (gh * gw)
    return out


def roi_pool(x, boxes, boxes_num, ph, pw, scale=1.0):
    H, W = x.shape[2:]
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    batch = np.repeat(np.arange(len(boxes_num)), boxes_num)
    for r, box in enumerate(boxes):
        sx, sy, ex, ey = [int(round(v * scale)) for v in box]
        rh, rw = max(ey - sy + 1, 1), max(ex - sx + 1, 1)
        for i in range(ph):
            for j in range(pw):
                h0 = min(max(math.floor(i * rh / ph) + sy, 0), H)
                h1 = min(max(math.ceil((i + 1) * rh / ph) + sy, 0), H)
                w0 = min(max(math.floor(j * rw / pw) + sx, 0), W)
                w1 = min(max(math.ceil((j + 1) * rw / pw) + sx, 0), W)
                if h1 > h0 and w1 > w0:
                    out[r, :, i, j] = x[batch[r], :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def psroi_pool(x, boxes, boxes_num, ph, pw, scale=1.0):
    H, W = x.shape[2:]
    co = x.shape[1] // (ph * pw)
    out = np.zeros((len(boxes), co, ph, pw))
    batch = np.repeat(np.arange(len(boxes_num)), boxes_num)
    for r, box in enumerate(boxes):
        sx, sy = round(box[0]) * scale, round(box[1]) * scale
        ex, ey = (round(box[2]) + 1) * scale, (round(box[3]) + 1) * scale
        rh, rw = max(ey - sy, 0.1), max(ex - sx, 0.1)
        for c in range(co):
            for i in range(ph):
                for j in range(pw):
                    h0 = min(max(math.floor(i * rh / ph + sy), 0), H)
                    h1 = min(max(math.ceil((i + 1) * rh / ph + sy), 0), H)
                    w0 = min(max(math.floor(j * rw / pw + sx), 0), W)
                    w1 = min(max(math.ceil((j + 1) * rw / pw + sx), 0), W)
                    if h1 > h0 and w1 > w0:
                        out[r, c, i, j] = x[batch[r], (c * ph + i) * pw + j, h0:h1, w0:w1].mean()
    return out


def deform_bilinear(img, y, x):
    """mmcv's deformable-im2col sampling: zero outside (-1, H) x (-1, W), missing corners count as 0."""
    H, W = img.shape
    if y <= -1 or y >= H or x <= -1 or x >= W:
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0
    v = 0.0
    for yy, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for xx, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            if 0 <= yy < H and 0 <= xx < W:
                v += wy * wx * img[yy, xx]
    return v


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1, dg=1, groups=1, mask=None):
    N, C, H, W = x.shape
    Co, Cg, kh, kw = weight.shape
    Ho = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    Wo = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((N, Co, Ho, Wo))
    cpg = C // dg
    for n in range(N):
        for o in range(Co):
            g = o // (Co // groups)
            for ho in range(Ho):
                for wo in range(Wo):
                    acc = 0.0
                    for ci in range(Cg):
                        c = g * Cg + ci
                        d = c // cpg
                        for i in range(kh):
                            for j in range(kw):
                                k = i * kw + j
                                oy = offset[n, 2 * (d * kh * kw + k), ho, wo]
                                ox = offset[n, 2 * (d * kh * kw + k) + 1, ho, wo]
                                y = ho * stride - padding + i * dilation + oy
                                xx = wo * stride - padding + j * dilation + ox
                                v = deform_bilinear(x[n, c], y, xx)
                                if mask is not None:
                                    v *= mask[n, d * kh * kw + k, ho, wo]
                                acc += weight[o, ci, i, j] * v
                    out[n, o, ho, wo] = acc + (0.0 if bias is None else bias[o])
    return out


def nms(boxes, scores, thr):
    order = list(np.argsort(-scores, kind="stable"))
    keep = []
    while order:
        i = order.pop(0)
        keep.append(i)
        rest = []
        for j in order:
            xx1, yy1 = max(boxes[i, 0], boxes[j, 0]), max(boxes[i, 1], boxes[j, 1])
            xx2, yy2 = min(boxes[i, 2], boxes[j, 2]), min(boxes[i, 3], boxes[j, 3])
            inter = max(xx2 - xx1, 0) * max(yy2 - yy1, 0)
            a = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            b = (boxes[j, 2] - boxes[j, 0]) * (boxes[j, 3] - boxes[j, 1])
            if inter / (a + b - inter) <= thr:
                rest.append(j)
        order = rest
    return np.array(keep, np.int64)


def box_encode(prior, var, target, normalized=True):
    n = 0.0 if normalized else 1.0
    out = np.zeros((len(target), len(prior), 4))
    for i, t in enumerate(target):
        for j, p in enumerate(prior):
            pw, ph = p[2] - p[0] + n, p[3] - p[1] + n
            tw, th = t[2] - t[0] + n, t[3] - t[1] + n
            pcx, pcy, tcx, tcy = p[0] + pw / 2, p[1] + ph / 2, t[0] + tw / 2, t[1] + th / 2
            out[i, j] = [(tcx - pcx) / pw / var[j][0], (tcy - pcy) / ph / var[j][1], np.log(abs(tw / pw)) / var[j][2],
                         np.log(abs(th / ph)) / var[j][3]]
    return out


def box_decode(prior, var, target, normalized=True, axis=0):
    n = 0.0 if normalized else 1.0
    out = np.zeros(target.shape)
    for i in range(target.shape[0]):
        for j in range(target.shape[1]):
            k = j if axis == 0 else i
            p, v, t = prior[k], var[k], target[i, j]
            pw, ph = p[2] - p[0] + n, p[3] - p[1] + n
            pcx, pcy = p[0] + pw / 2, p[1] + ph / 2
            cx, cy = v[0] * t[0] * pw + pcx, v[1] * t[1] * ph + pcy
            w, h = np.exp(v[2] * t[2]) * pw, np.exp(v[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - n, cy + h / 2 - n]
    return out


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample, clip=True, scale_x_y=1.0):
    N, _, H, W = x.shape
    A = len(anchors) // 2
    boxes = np.zeros((N, A * H * W, 4))
    scores = np.zeros((N, A * H * W, class_num))
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    bias = -0.5 * (scale_x_y - 1)
    for n in range(N):
        ih, iw = img_size[n]
        for a in range(A):
            for i in range(H):
                for j in range(W):
                    p = x[n, a * (5 + class_num):(a + 1) * (5 + class_num), i, j]
                    conf = sig(p[4])
                    if conf < conf_thresh:
                        continue
                    cx = (j + sig(p[0]) * scale_x_y + bias) * iw / W
                    cy = (i + sig(p[1]) * scale_x_y + bias) * ih / H
                    w = np.exp(p[2]) * anchors[2 * a] * iw / (downsample * W)
                    h = np.exp(p[3]) * anchors[2 * a + 1] * ih / (downsample * H)
                    b = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
                    if clip:
                        b = [max(b[0], 0), max(b[1], 0), min(b[2], iw - 1), min(b[3], ih - 1)]
                    k = a * H * W + i * W + j
                    boxes[n, k] = b
                    scores[n, k] = conf * sig(p[5:])
    return boxes, scores


def prior_box(fh, fw, ih, iw, min_sizes, max_sizes, ratios, variance, flip, clip, steps, offset, mm_order):
    """Paddle's prior_box CPU kernel, loop by loop."""
    ars = [1.0]
    for ar in ratios:
        for r in ([ar, 1 / ar] if flip else [ar]):
            if all(abs(r - e) > 1e-6 for e in ars):
                ars.append(r)
    step_w = steps[0] if steps[0] > 0 else iw / fw
    step_h = steps[1] if steps[1] > 0 else ih / fh
    out = []
    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + offset) * step_w, (h + offset) * step_h
            cell = []
            for s, mn in enumerate(min_sizes):
                if mm_order:
                    cell.append((mn / 2, mn / 2))
                    if max_sizes:
                        m = math.sqrt(mn * max_sizes[s]) / 2
                        cell.append((m, m))
                    for ar in ars:
                        if abs(ar - 1.0) < 1e-6:
                            continue
                        cell.append((mn * math.sqrt(ar) / 2, mn / math.sqrt(ar) / 2))
                else:
                    for ar in ars:
                        cell.append((mn * math.sqrt(ar) / 2, mn / math.sqrt(ar) / 2))
                    if max_sizes:
                        m = math.sqrt(mn * max_sizes[s]) / 2
                        cell.append((m, m))
            for bw, bh in cell:
                box = [(cx - bw) / iw, (cy - bh) / ih, (cx + bw) / iw, (cy + bh) / ih]
                out.append([min(max(v, 0.0), 1.0) for v in box] if clip else box)
    boxes = np.array(out).reshape(fh, fw, -1, 4)
    return boxes, np.broadcast_to(np.array(variance), boxes.shape)


def matrix_nms(bboxes, scores, score_thr, post_thr, nms_top_k, keep_top_k, gaussian, sigma, background, normalized):
    n_add = 0.0 if normalized else 1.0

    def iou(a, b):
        w = max(min(a[2], b[2]) - max(a[0], b[0]) + n_add, 0)
        h = max(min(a[3], b[3]) - max(a[1], b[1]) + n_add, 0)
        ar = lambda t: (t[2] - t[0] + n_add) * (t[3] - t[1] + n_add)  # noqa: E731
        return w * h / (ar(a) + ar(b) - w * h)

    out, index, nums = [], [], []
    for b in range(bboxes.shape[0]):
        dets = []
        for c in range(scores.shape[1]):
            if c == background:
                continue
            cand = [i for i in np.argsort(-scores[b, c], kind="stable") if scores[b, c, i] > score_thr]
            if nms_top_k > -1:
                cand = cand[:nms_top_k]
            comp = [max([iou(bboxes[b, cand[k]], bboxes[b, cand[j]]) for k in range(j)] or [0.0])
                    for j in range(len(cand))]
            for i in range(len(cand)):
                decay = 1.0
                for j in range(i):
                    v = iou(bboxes[b, cand[j]], bboxes[b, cand[i]])
                    d = math.exp((comp[j] ** 2 - v ** 2) * sigma) if gaussian else (1 - v) / (1 - comp[j])
                    decay = min(decay, d)
                s = scores[b, c, cand[i]] * decay
                if s > post_thr:
                    dets.append((s, c, cand[i]))
        dets.sort(key=lambda d: -d[0])
        dets = dets[:keep_top_k] if keep_top_k > -1 else dets
        out += [[c, s, *bboxes[b, i]] for s, c, i in dets]
        index += [b * bboxes.shape[1] + i for _, _, i in dets]
        nums.append(len(dets))
    return np.array(out).reshape(-1, 6), np.array(index).reshape(-1, 1), np.array(nums)


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample, gt_score=None,
              smooth=True, scale_x_y=1.0):
    """Paddle's yolov3_loss CPU kernel, loop by loop."""
    sce = lambda v, t: max(v, 0) - v * t + math.log1p(math.exp(-abs(v)))  # noqa: E731
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731

    def iou(a, b):
        ow = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
        oh = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
        inter = 0.0 if ow < 0 or oh < 0 else ow * oh
        return inter / (a[2] * a[3] + b[2] * b[3] - inter)

    n, _, h, w = x.shape
    m, nb = len(anchor_mask), gt_box.shape[1]
    size = downsample * h
    p = x.reshape(n, m, 5 + class_num, h, w)
    score = np.ones((n, nb)) if gt_score is None else gt_score
    pos, neg = (1 - min(1 / class_num, 1 / 40), min(1 / class_num, 1 / 40)) if smooth else (1.0, 0.0)
    bias = -0.5 * (scale_x_y - 1)
    loss = np.zeros(n)
    for i in range(n):
        obj = np.zeros((m, h, w))
        valid = [gt_box[i, t, 2] >= 1e-6 and gt_box[i, t, 3] >= 1e-6 for t in range(nb)]
        for j in range(m):
            a = anchor_mask[j]
            for k in range(h):
                for l in range(w):
                    pred = [(l + sig(p[i, j, 0, k, l]) * scale_x_y + bias) / h,
                            (k + sig(p[i, j, 1, k, l]) * scale_x_y + bias) / h,
                            math.exp(p[i, j, 2, k, l]) * anchors[2 * a] / size,
                            math.exp(p[i, j, 3, k, l]) * anchors[2 * a + 1] / size]
                    best = max([iou(pred, gt_box[i, t]) for t in range(nb) if valid[t]] + [0.0])
                    if best > ignore_thresh:
                        obj[j, k, l] = -1
        for t in range(nb):
            if not valid[t]:
                continue
            g = gt_box[i, t]
            gi, gj = int(g[0] * w), int(g[1] * h)
            ious = [iou([0, 0, anchors[2 * q] / size, anchors[2 * q + 1] / size], [0, 0, g[2], g[3]])
                    for q in range(len(anchors) // 2)]
            best_n = int(np.argmax(ious))
            if best_n not in anchor_mask:
                continue
            j = anchor_mask.index(best_n)
            s = score[i, t]
            tx, ty = g[0] * h - gi, g[1] * h - gj
            tw, th = math.log(g[2] * size / anchors[2 * best_n]), math.log(g[3] * size / anchors[2 * best_n + 1])
            sc = (2 - g[2] * g[3]) * s
            v = p[i, j, :, gj, gi]
            loss[i] += (sce(v[0], tx) + sce(v[1], ty) + abs(v[2] - tw) + abs(v[3] - th)) * sc
            obj[j, gj, gi] = s
            loss[i] += sum(sce(v[5 + c], pos if c == gt_label[i, t] else neg) * s for c in range(class_num))
        for j in range(m):
            for k in range(h):
                for l in range(w):
                    o = p[i, j, 4, k, l]
                    if obj[j, k, l] > 1e-5:
                        loss[i] += sce(o, 1.0) * obj[j, k, l]
                    elif obj[j, k, l] > -0.5:
                        loss[i] += sce(o, 0.0)
    return loss
