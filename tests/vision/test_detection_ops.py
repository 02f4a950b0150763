"""oar.vision.ops beyond the op table: prior_box configurations, NMS by category and top_k, the Layer forms,
errors in the user's terms, and a detection head converted with to_static."""
import os
import sys

import numpy as np
import pytest

import oar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import vision_reference as ref  # noqa: E402

V = oar.vision.ops


@pytest.mark.parametrize("kw", [
    dict(min_sizes=[4.0], max_sizes=None, aspect_ratios=[1.0], flip=False, clip=False, steps=[0.0, 0.0],
         offset=0.5, min_max_aspect_ratios_order=False),
    dict(min_sizes=[2.0, 5.0], max_sizes=[4.0, 9.0], aspect_ratios=[2.0, 3.0], flip=True, clip=True,
         steps=[3.0, 4.0], offset=0.3, min_max_aspect_ratios_order=False),
    dict(min_sizes=[3.0], max_sizes=[6.0], aspect_ratios=[2.0], flip=True, clip=False, steps=[0.0, 0.0],
         offset=0.5, min_max_aspect_ratios_order=True),
])
def test_prior_box(kw):
    feat, img = oar.ones([1, 8, 3, 4]), oar.ones([1, 3, 12, 20])
    boxes, var = V.prior_box(feat, img, variance=[0.1, 0.2, 0.3, 0.4], **kw)
    want_b, want_v = ref.prior_box(3, 4, 12, 20, kw["min_sizes"], kw["max_sizes"], kw["aspect_ratios"],
                                   [0.1, 0.2, 0.3, 0.4], kw["flip"], kw["clip"], kw["steps"], kw["offset"],
                                   kw["min_max_aspect_ratios_order"])
    np.testing.assert_allclose(boxes.numpy(), want_b, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(var.numpy(), want_v, rtol=1e-6)


def test_nms_variants():
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 10, (30, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(1, 4, (30, 2))], 1)
    scores = rng.uniform(size=30)
    cats = rng.integers(0, 3, 30)
    b, s = oar.to_tensor(boxes), oar.to_tensor(scores)
    np.testing.assert_array_equal(V.nms(b, 0.3, scores=s).numpy(), ref.nms(boxes, scores, 0.3))
    order = np.argsort(-scores, kind="stable")  # without scores the boxes are taken as already sorted
    np.testing.assert_array_equal(V.nms(oar.to_tensor(boxes[order]), 0.3).numpy(),
                                  ref.nms(boxes[order], scores[order], 0.3))
    got = V.nms(b, 0.3, scores=s, category_idxs=oar.to_tensor(cats), categories=[0, 1, 2], top_k=7).numpy()
    want = np.concatenate([np.flatnonzero(cats == c)[ref.nms(boxes[cats == c], scores[cats == c], 0.3)]
                           for c in range(3)])
    want = want[np.argsort(-scores[want], kind="stable")][:7]
    np.testing.assert_array_equal(got, want)


def test_layers_match_functions():
    x = oar.to_tensor(np.random.default_rng(1).standard_normal((1, 8, 6, 6)))
    boxes, num = oar.to_tensor([[0.0, 0.0, 4.0, 5.0]]), oar.to_tensor([1])
    np.testing.assert_array_equal(V.RoIAlign(2, 0.5)(x, boxes, num).numpy(), V.roi_align(x, boxes, num, 2, 0.5).numpy())
    np.testing.assert_array_equal(V.RoIPool(3)(x, boxes, num).numpy(), V.roi_pool(x, boxes, num, 3).numpy())
    np.testing.assert_array_equal(V.PSRoIPool(2)(x, boxes, num).numpy(), V.psroi_pool(x, boxes, num, 2).numpy())
    conv = V.DeformConv2D(8, 4, 3, padding=1)
    off = oar.zeros([1, 18, 6, 6])
    np.testing.assert_allclose(conv(x.astype("float32"), off).numpy(),
                               oar.nn.functional.conv2d(x.astype("float32"), conv.weight, conv.bias, padding=1).numpy(),
                               rtol=1e-5, atol=1e-5)  # zero offsets: a plain convolution
    assert len(conv.parameters()) == 2


def test_errors_name_the_problem():
    x = oar.ones([1, 6, 4, 4])
    with pytest.raises(ValueError, match="multiple of output_size"):
        V.psroi_pool(x, oar.to_tensor([[0.0, 0.0, 2.0, 2.0]]), oar.to_tensor([1]), 2)
    with pytest.raises(ValueError, match="boxes_num sums to 2"):
        V.roi_align(x, oar.to_tensor([[0.0, 0.0, 2.0, 2.0]]), oar.to_tensor([2]), 2)
    with pytest.raises(ValueError, match="offset must be"):
        V.deform_conv2d(x, oar.zeros([1, 9, 2, 2]), oar.ones([2, 6, 3, 3]))
    with pytest.raises(ValueError, match="code_type"):
        V.box_coder(oar.ones([1, 4]), None, oar.ones([1, 4]), code_type="corner")


def test_detection_head_to_static_equals_eager():
    def head(feat, boxes, num):
        pooled = V.roi_align(feat, boxes, num, 2, spatial_scale=0.5)
        return pooled.mean(axis=[2, 3]) * 2.0

    rng = np.random.default_rng(2)
    feat = oar.to_tensor(rng.standard_normal((2, 3, 8, 8)).astype("float32"))
    boxes = oar.to_tensor(np.array([[1, 1, 9, 9], [0, 2, 6, 12], [4, 4, 14, 14]], np.float32))
    num = oar.to_tensor(np.array([1, 2], np.int32))
    static = oar.jit.to_static(head, input_spec=[oar.static.InputSpec([None, 3, 8, 8], "float32"),
                                                 oar.static.InputSpec([None, 4], "float32"),
                                                 oar.static.InputSpec([None], "int32")])
    np.testing.assert_allclose(static(feat, boxes, num).numpy(), head(feat, boxes, num).numpy(), rtol=1e-6)


def test_read_file_and_decode_jpeg(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    rgb = np.zeros((6, 8, 3), np.uint8)
    rgb[:, :4] = (250, 20, 20)
    Image.fromarray(rgb).save(tmp_path / "a.jpg", quality=95)
    data = V.read_file(str(tmp_path / "a.jpg"))
    assert data.dtype == oar.uint8 and data.shape == [(tmp_path / "a.jpg").stat().st_size]
    img = V.decode_jpeg(data)
    assert img.shape == [3, 6, 8] and img.dtype == oar.uint8
    assert abs(int(img.numpy()[0, 3, 1]) - 250) < 12 and int(img.numpy()[0, 3, 6]) < 12
    assert V.decode_jpeg(data, mode="gray").shape == [1, 6, 8]
    with pytest.raises(ValueError, match="mode"):
        V.decode_jpeg(data, mode="cmyk")


def test_yolo_head_to_static_with_unknown_batch():
    def head(x, gt_box, gt_label, img_size):
        loss = V.yolo_loss(x, gt_box, gt_label, [10, 13, 16, 30, 33, 23], [1, 2], 2, 0.7, 8)
        boxes, scores = V.yolo_box(x, img_size, [16, 30, 33, 23], 2, 0.01, 8)
        return loss, boxes, scores

    rng = np.random.default_rng(3)
    args = [oar.to_tensor(rng.standard_normal((2, 14, 4, 4)).astype("float32")),
            oar.to_tensor(np.concatenate([rng.uniform(0.2, 0.8, (2, 3, 2)), rng.uniform(0.1, 0.5, (2, 3, 2))],
                                         -1).astype("float32")),
            oar.to_tensor(rng.integers(0, 2, (2, 3)).astype("int32")), oar.to_tensor([[32, 32], [30, 40]])]
    spec = [oar.static.InputSpec([None, 14, 4, 4], "float32"), oar.static.InputSpec([None, 3, 4], "float32"),
            oar.static.InputSpec([None, 3], "int32"), oar.static.InputSpec([None, 2], "int64")]
    static = oar.jit.to_static(head, input_spec=spec)
    for s, e in zip(static(*args), head(*args)):
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)


def test_yolo_box_outputs_stop_gradient_as_in_paddle():
    """Paddle 3.3.1's yolo_box has no gradient kernel: its outputs are stop_gradient and a loss adding them sends
    nothing back (the zoo's YOLOv3 gradients matched Paddle's only once oar's composed decoder did the same)."""
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((1, 16, 2, 2)).astype("float32"), stop_gradient=False)
    boxes, scores = V.yolo_box(x, oar.to_tensor([[32, 32]]), [10, 13, 16, 30], 3, 0.01, 8)
    assert boxes.stop_gradient and scores.stop_gradient
    (boxes.sum() + scores.sum() + (x * 2.0).sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 16, 2, 2), 2.0, np.float32))
