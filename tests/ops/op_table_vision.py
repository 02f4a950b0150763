"""Op-table rows of `oar.vision.ops` (imported by `op_table.py`): forward against the loop references in
`vision_reference.py`, float64 finite-difference gradients, static == eager."""
import numpy as np

import oar
import vision_reference as ref
from op_table import R, add, randn

__all__ = []
V = oar.vision.ops

_x = randn(2, 3, 7, 8)
_boxes = np.array([[0.5, 1.0, 5.2, 6.1], [2.0, 0.3, 7.5, 4.0], [1.1, 2.2, 3.3, 6.6]])
_num = np.array([2, 1], np.int32)
add("roi_align", lambda x, b, n: V.roi_align(x, b, n, (2, 3), spatial_scale=0.9),
    lambda x, b, n: ref.roi_align(x, b, n, 2, 3, 0.9), (_x, _boxes, _num), diff=(0,))
add("roi_align_unaligned_ratio", lambda x, b, n: V.roi_align(x, b, n, 2, sampling_ratio=2, aligned=False),
    lambda x, b, n: ref.roi_align(x, b, n, 2, 2, 1.0, 2, False), (_x, _boxes, _num), diff=(0,))
add("roi_pool", lambda x, b, n: V.roi_pool(x, b, n, 2, spatial_scale=0.8),
    lambda x, b, n: ref.roi_pool(x, b, n, 2, 2, 0.8), (_x, _boxes, _num), diff=(0,))
_xps = randn(2, 8, 6, 6)
add("psroi_pool", lambda x, b, n: V.psroi_pool(x, b, n, 2, spatial_scale=0.7),
    lambda x, b, n: ref.psroi_pool(x, b, n, 2, 2, 0.7), (_xps, _boxes, _num), diff=(0,))

_xd = randn(1, 4, 5, 5)
_wd = randn(2, 2, 3, 3)
_off = R.uniform(-1.6, 1.6, (1, 2 * 2 * 9, 3, 3)) + 0.013  # away from integer positions (floor kinks)
_mask = R.uniform(0.2, 1.0, (1, 2 * 9, 3, 3))
add("deform_conv2d", lambda x, o, w, b: V.deform_conv2d(x, o, w, b, deformable_groups=2, groups=2),
    lambda x, o, w, b: ref.deform_conv2d(x, o, w, b, dg=2, groups=2), (_xd, _off, _wd, randn(2)))
add("deform_conv2d_v2_stride_pad", lambda x, o, w, m: V.deform_conv2d(x, o, w, stride=2, padding=1, mask=m,
                                                                      deformable_groups=2),
    lambda x, o, w, m: ref.deform_conv2d(x, o, w, stride=2, padding=1, dg=2, mask=m),
    (_xd, _off, randn(3, 4, 3, 3), _mask))

_prior = np.array([[0.1, 0.1, 0.5, 0.6], [0.3, 0.2, 0.9, 0.7]])
_var = np.array([[0.1, 0.1, 0.2, 0.2], [0.2, 0.1, 0.3, 0.2]])
_tb = np.array([[0.2, 0.1, 0.6, 0.5], [0.0, 0.3, 0.4, 0.9], [0.5, 0.5, 0.8, 0.95]])
add("box_coder_encode", lambda p, v, t: V.box_coder(p, v, t), ref.box_encode, (_prior, _var, _tb))
add("box_coder_encode_pixels", lambda p, t: V.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, box_normalized=False),
    lambda p, t: ref.box_encode(p, [[0.1, 0.1, 0.2, 0.2]] * 2, t, False), (_prior * 20, _tb * 20))
add("box_coder_decode", lambda p, v, t: V.box_coder(p, v, t, "decode_center_size"), ref.box_decode,
    (_prior, _var, randn(3, 2, 4) * 0.5))
add("box_coder_decode_axis1", lambda p, v, t: V.box_coder(p, v, t, "decode_center_size", axis=1),
    lambda p, v, t: ref.box_decode(p, v, t, axis=1), (_prior, _var, randn(2, 3, 4) * 0.5))

_xy = randn(2, 2 * (5 + 3), 3, 4)
add("yolo_box", lambda x, s: V.yolo_box(x, s, [10, 13, 16, 30], 3, 0.45, 8, scale_x_y=1.2),
    lambda x, s: ref.yolo_box(x, s, [10, 13, 16, 30], 3, 0.45, 8, True, 1.2), (_xy, np.array([[48, 40], [30, 36]])),
    grad=False)  # Paddle's yolo_box has no gradient: tests/vision/test_detection_ops.py
add("nms", lambda b, s: V.nms(b, 0.4, scores=s), lambda b, s: ref.nms(b, s, 0.4),
    (np.array([[0, 0, 4, 4], [1, 1, 5, 5], [0.5, 0.2, 4, 4.1], [6, 6, 8, 9], [6.5, 6, 8, 9]], np.float64),
     np.array([0.5, 0.9, 0.7, 0.3, 0.35])), tags=("dynamic_shape",))

_xl = randn(2, 2 * (5 + 3), 5, 5) * 0.5
_gt = np.concatenate([R.uniform(0.1, 0.9, (2, 4, 2)), R.uniform(0.05, 0.6, (2, 4, 2))], -1)
_gt[1, 3] = 0.0  # padding box
_gt[0, 1, :2] = _gt[0, 0, :2]  # two boxes in one cell
_labels = R.integers(0, 3, (2, 4)).astype(np.int32)
_anchors = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45]
add("yolo_loss", lambda x, g, lab: V.yolo_loss(x, g, lab, _anchors, [1, 2], 3, 0.3, 8),
    lambda x, g, lab: ref.yolo_loss(x, g, lab, _anchors, [1, 2], 3, 0.3, 8), (_xl, _gt, _labels), diff=(0,))
add("yolo_loss_score_no_smooth", lambda x, g, lab, s: V.yolo_loss(x, g, lab, _anchors, [0, 3], 3, 0.5, 8, gt_score=s,
                                                                   use_label_smooth=False, scale_x_y=1.1),
    lambda x, g, lab, s: ref.yolo_loss(x, g, lab, _anchors, [0, 3], 3, 0.5, 8, s, False, 1.1),
    (_xl, _gt, _labels, R.uniform(0.3, 1.0, (2, 4))), diff=(0,))
