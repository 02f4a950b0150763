"""The lowerings the real-model zoo needed (issue 23): zeros/arange/reshape with shapes taken from inputs
(`full_dynamic`, `arange_dynamic`, `reshape_dynamic`), `triu`/`tril` at opset 13, `roll`, and `unfold` (im2col);
onnxruntime equals oar eager, over two batch sizes through one model."""
import numpy as np
import pytest

from onnx_helpers import check  # noqa: E402  (skips the module when onnx/onnxruntime are absent)

import oar  # noqa: E402
import oar.nn.functional as F  # noqa: E402

R = np.random.default_rng(3)
T = R.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
IMG = R.uniform(-2, 2, (2, 3, 6, 7)).astype(np.float32)


def _both(a):
    return [(np.concatenate([a, a, a]),)]


CASES = {
    "full_dynamic": (lambda x: x.sum() + oar.zeros([oar.shape(x)[0], 5]), "full_dynamic"),
    "full_dynamic_int": (lambda x: oar.full([oar.shape(x)[0], 2], 7, dtype="int32"), "full_dynamic"),
    "arange_dynamic": (lambda x: oar.arange(oar.shape(x)[0] * 2), "arange_dynamic"),
    "arange_dynamic_float": (lambda x: oar.arange(0.5, oar.shape(x)[0] * 3, 1.5, dtype="float32"),
                             "arange_dynamic"),
    "reshape_dynamic": (lambda x: oar.reshape(x, [oar.shape(x)[0] * 3, -1]), "reshape_dynamic"),
    "triu": (lambda x: oar.triu(x), "triu"),
    "triu_offset": (lambda x: oar.triu(x, 1), "triu"),
    "tril_negative": (lambda x: oar.tril(x, -1), "tril"),
    "triu_int": (lambda x: oar.triu(oar.cast(x * 3, "int64"), -1), "triu"),
    "roll_axis": (lambda x: oar.roll(x, 1, axis=2), "roll"),
    "roll_two_axes": (lambda x: oar.roll(x, [-1, 5], axis=[1, 2]), "roll"),
    "roll_batch": (lambda x: oar.roll(x, 1, axis=0), "roll"),  # the run-time dim
    "roll_flat": (lambda x: oar.roll(x, 7), "roll"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_zoo_lowering(name):
    fn, op = CASES[name]
    check(fn, T, op=op, dynamic=True, more=_both(T))


@pytest.mark.parametrize("kw", [dict(kernel_sizes=2), dict(kernel_sizes=[2, 3], strides=[1, 2], paddings=[1, 0, 0, 2]),
                                dict(kernel_sizes=3, dilations=2, paddings=1)],
                         ids=["plain", "strided_padded", "dilated"])
def test_unfold(kw):
    check(lambda x: F.unfold(x, **kw), IMG, op="unfold", dynamic=True, more=_both(IMG))


def test_unfold_keeps_inf_where_a_one_hot_conv_would_give_nan():
    """The lowering slices (no multiplication by a 0/1 filter), so an inf stays in its own columns."""
    x = IMG.copy()
    x[0, 0, 2, 3] = np.inf
    check(lambda t: F.unfold(t, 2), x, op="unfold")


def test_vit_patch_embedding_exports():
    """Paddle's ViT tutorial: patches by unfold, then a linear projection and a learned position table."""
    class Patches(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.proj = oar.nn.Linear(3 * 2 * 2, 8)
            self.pos = self.create_parameter([1, 9, 8])

        def forward(self, x):
            p = F.unfold(x, 2, strides=2).transpose([0, 2, 1])  # [N, L, C*k*k]
            return self.proj(p) + self.pos

    net = Patches()
    net.eval()
    img = R.uniform(-1, 1, (2, 3, 6, 6)).astype(np.float32)
    check(net, img, dynamic=True, more=_both(img), atol=1e-5)


@pytest.mark.parametrize("arch", ["shufflenet_v2_x0_25", "mobilenet_v3_small", "squeezenet1_1"])
def test_vision_models_export(arch):
    """Models added for issue 23 export as their eager forms compute (channel shuffles, squeeze-excitation, fire
    modules)."""
    net = getattr(oar.vision.models, arch)(num_classes=10)
    net.eval()
    img = R.uniform(-1, 1, (2, 3, 64, 64)).astype(np.float32)
    check(net, img, dynamic=True, more=[(img[:1],)], atol=1e-4)


INTERP_KW = {"bilinear": dict(mode="bilinear"), "bilinear_corners": dict(mode="bilinear", align_corners=True),
             "bilinear_mode1": dict(mode="bilinear", align_mode=1), "nearest": dict(mode="nearest"),
             "bicubic": dict(mode="bicubic"), "bicubic_corners": dict(mode="bicubic", align_corners=True),
             "bicubic_mode1": dict(mode="bicubic", align_mode=1)}


@pytest.mark.parametrize("grow", [2, -2], ids=["up", "down"])
@pytest.mark.parametrize("kw", sorted(INTERP_KW))
def test_interpolate_to_a_run_time_size(kw, grow):
    """PaddleSeg's ``F.interpolate(y, paddle.shape(x)[2:])``: the size is a tensor in the program (`interp_dynamic`,
    ONNX Resize), up and down."""
    def fn(x):
        hw = oar.shape(x)[2:]
        return F.interpolate(x, hw * 2 if grow > 0 else hw - 2, **INTERP_KW[kw])
    check(fn, IMG, op="interp_dynamic", dynamic=True, more=_both(IMG), atol=1e-5)


_ROIS = np.array([[0.5, 1.0, 5.2, 6.1], [2.0, 0.3, 7.5, 4.0], [1.1, 2.2, 1.4, 2.3], [-3.0, 4.0, 9.5, 12.0],
                  [3.3, 3.3, 6.6, 5.0]], np.float32)


@pytest.mark.parametrize("aligned", [True, False], ids=["aligned", "unaligned"])
@pytest.mark.parametrize("ratio", [1, 2, 3])
def test_roi_align(aligned, ratio):
    """Faster R-CNN's RoIAlign head: boxes over two images (boxes_num), one tiny and one partly outside the map."""
    x = R.uniform(-2, 2, (2, 3, 6, 7)).astype(np.float32)
    num = np.array([3, 2], np.int32)
    check(lambda f, b, n: oar.vision.ops.roi_align(f, b, n, (2, 3), spatial_scale=0.8, sampling_ratio=ratio,
                                                   aligned=aligned), x, _ROIS, num, op="roi_align", atol=1e-5)


def test_roi_align_with_an_adaptive_grid_is_refused():
    from onnx_helpers import specs_of, export_model
    x = R.uniform(-2, 2, (1, 3, 6, 7)).astype(np.float32)
    with pytest.raises(NotImplementedError, match="sampling_ratio > 0"):
        export_model(lambda f, b, n: oar.vision.ops.roi_align(f, b, n, 2), specs_of([x, _ROIS, np.array([5], "i4")]))
