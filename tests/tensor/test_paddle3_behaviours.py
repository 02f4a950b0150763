"""Behaviours of Paddle 3.3.1 that its docstring examples showed oar lacked (issue 23), each checked against what
Paddle 3.3.1 returns (values found by running it, written here as NumPy expressions)."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F


def test_nonzero_as_tuple_and_where_give_1d_indices():
    x = oar.to_tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    rows, cols = oar.nonzero(x, as_tuple=True)
    assert rows.shape == [3] and cols.shape == [3]
    np.testing.assert_array_equal(rows.numpy(), np.nonzero(x.numpy())[0])
    np.testing.assert_array_equal(oar.where(x > 0)[1].numpy(), np.nonzero(x.numpy())[1])
    np.testing.assert_array_equal(x[x > 0].numpy(), [1.0, 2.0, 3.0])  # boolean indexing runs through it


def test_set_grad_enabled_applies_when_called():
    x = oar.to_tensor([1.0], stop_gradient=False)
    try:
        oar.set_grad_enabled(False)
        assert (x * 2).stop_gradient and not oar.is_grad_enabled()
    finally:
        oar.set_grad_enabled(True)
    assert not (x * 2).stop_gradient
    with oar.no_grad():
        with oar.set_grad_enabled(True):
            assert not (x * 2).stop_gradient
        assert not oar.is_grad_enabled()


def test_assign_into_output_takes_the_value_dtype_and_shape():
    out = oar.zeros([3, 3], dtype="float32")
    oar.assign(np.array([[1, 1], [3, 4]], dtype="int64"), out)
    assert out.dtype == oar.int64 and out.shape == [2, 2]
    np.testing.assert_array_equal(out.numpy(), [[1, 1], [3, 4]])


def test_info_reprs():
    assert repr(oar.iinfo(oar.uint8)) == "paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)"
    assert repr(oar.finfo(oar.float16)) == ("paddle.finfo(min=-65504, max=65504, eps=0.000976562, resolution=0.001, "
                                            "smallest_normal=6.10352e-05, tiny=6.10352e-05, bits=16, dtype=float16)")


def test_paddle3_keyword_arguments():
    m = oar.mean(oar.to_tensor([1, 2, 4]), dtype="float64")
    assert m.dtype == oar.float64 and float(m) == pytest.approx(7 / 3)
    out = oar.zeros([1])
    oar.mean(oar.to_tensor([1.0, 3.0]), out=out)
    assert float(out) == 2.0
    t = oar.linspace(0, 1, 3, device="cpu", requires_grad=True)
    assert not t.stop_gradient
    with pytest.raises(ValueError, match="CPU only"):
        oar.linspace(0, 1, 3, device="gpu:0")
    np.testing.assert_array_equal(oar.bernoulli(oar.zeros([4]), p=1.0).numpy(), np.ones(4))
    np.testing.assert_array_equal(oar.bernoulli(oar.ones([4]), p=0.0).numpy(), np.zeros(4))


def test_pad_from_left_axis():
    x = oar.arange(6, dtype="float32").reshape([1, 2, 3])
    left = F.pad(x, [1, 0, 2, 0, 3, 0])
    right = F.pad(x, [1, 0, 2, 0, 3, 0], pad_from_left_axis=False)
    np.testing.assert_array_equal(left.numpy(), np.pad(x.numpy(), [(1, 0), (2, 0), (3, 0)]))
    np.testing.assert_array_equal(right.numpy(), np.pad(x.numpy(), [(3, 0), (2, 0), (1, 0)]))
    y = oar.ones([2, 3])
    assert F.pad(y, [1, 2]).shape == [2, 6]  # rank < 3: pairs from the last dim


def test_cross_entropy_one_hot_labels_with_smoothing_are_soft():
    logits = oar.to_tensor(np.random.default_rng(0).normal(size=(4, 3)))
    lab = oar.to_tensor([0, 2, 1, 1])
    a = F.cross_entropy(logits, lab, label_smoothing=0.4)
    b = F.cross_entropy(logits, F.one_hot(lab, 3).astype("float64"), label_smoothing=0.4)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_sequential_insert_and_extend():
    net = oar.nn.Sequential(oar.nn.Linear(2, 2))
    net.insert(-1, oar.nn.ReLU()).insert(2, oar.nn.Tanh()).extend([oar.nn.Sigmoid()])
    assert [type(m).__name__ for m in net] == ["ReLU", "Linear", "Tanh", "Sigmoid"]
    assert list(net._sub_layers) == ["0", "1", "2", "3"]
    with pytest.raises(ValueError, match="numbered"):
        oar.nn.Sequential(("a", oar.nn.ReLU())).insert(0, oar.nn.Tanh())


def test_paddle_module_paths():
    assert oar.nn.loss.CrossEntropyLoss is oar.nn.CrossEntropyLoss
    from oar.tensor.manipulation import reshape
    from oar.tensor.math import frexp
    assert reshape is oar.reshape and frexp is oar.frexp
    assert oar.tensor.linalg.matmul is oar.matmul and oar.tensor.random.randn is oar.randn


def test_stack_and_unsqueeze_of_zero_size_tensors():
    x = oar.ones([0, 1, 2])
    x.stop_gradient = False
    assert oar.stack([x, x], axis=0).shape == [2, 0, 1, 2]
    out = oar.stack([x, x], axis=1)
    assert out.shape == [0, 2, 1, 2] and oar.unsqueeze(x, 0).shape == [1, 0, 1, 2]
    out.sum().backward()
    assert x.grad.shape == [0, 1, 2]


def test_gelu_approximate_strings_and_silu_inplace():
    x = np.array([-1.0, 0.5, 2.0])
    exact = 0.5 * x * (1 + np.vectorize(__import__("math").erf)(x / np.sqrt(2)))
    tanh = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(F.gelu(oar.to_tensor(x), "none").numpy(), exact, rtol=1e-12)
    np.testing.assert_allclose(F.gelu(oar.to_tensor(x), "tanh").numpy(), tanh, rtol=1e-12)
    np.testing.assert_allclose(oar.nn.GELU("none")(oar.to_tensor(x)).numpy(), exact, rtol=1e-12)
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(oar.to_tensor(x), "erf")
    t = oar.to_tensor(x)
    oar.nn.Silu(True)(t)
    np.testing.assert_allclose(t.numpy(), x / (1 + np.exp(-x)), rtol=1e-12)


def test_conv_repr_is_paddles():
    assert repr(oar.nn.Conv2D(3, 1, 3)) == "Conv2D(3, 1, kernel_size=[3, 3], data_format=NCHW)"
    assert repr(oar.nn.Conv2D(3, 1, 3, stride=2, padding=1, dilation=2)) == \
        "Conv2D(3, 1, kernel_size=[3, 3], stride=[2, 2], padding=1, dilation=[2, 2], data_format=NCHW)"
    assert repr(oar.nn.Conv3D(2, 2, 3, padding_mode="reflect")) == \
        "Conv3D(2, 2, kernel_size=[3, 3, 3], padding_mode=reflect, data_format=NCDHW)"


def test_constant_pad_goes_on_past_the_spatial_dims():
    x = oar.arange(3, dtype="float32").reshape([1, 1, 3])
    np.testing.assert_array_equal(F.pad(x, [1, 0, 0, 1]).numpy(), np.pad(x.numpy(), [(0, 0), (0, 1), (1, 0)]))
    assert F.pad(oar.ones([1, 2, 3, 4]), [1, 1, 2, 2], data_format="NHWC").shape == [1, 6, 5, 4]


def test_base_transform_protocol():
    from oar.vision.transforms import BaseTransform
    from oar.vision.transforms import functional as VF

    class FlipWithBoxes(BaseTransform):
        def _get_params(self, inputs):
            return {"w": inputs[0].shape[1]}

        def _apply_image(self, img):
            return img[:, ::-1]

        def _apply_boxes(self, boxes):
            return np.stack([self.params["w"] - boxes[:, 2], boxes[:, 1], self.params["w"] - boxes[:, 0],
                             boxes[:, 3]], 1)

    img = np.arange(6).reshape(2, 3)
    out_img, boxes, label = FlipWithBoxes(keys=("image", "boxes"))((img, np.array([[0, 0, 1, 2]]), 7))
    np.testing.assert_array_equal(out_img, img[:, ::-1])
    np.testing.assert_array_equal(boxes, [[2, 0, 3, 2]])
    assert label == 7
    np.testing.assert_array_equal(FlipWithBoxes()(img), img[:, ::-1])
    with pytest.raises(NotImplementedError, match="mask"):
        FlipWithBoxes(keys=("image", "mask"))
    assert VF._is_numpy_image(img) and not VF._is_pil_image(img)


def test_distribution_module_paths():
    from oar.distribution.gumbel import Gumbel
    from oar.distribution.independent import Independent
    from oar.distribution.normal import Normal
    assert Gumbel is oar.distribution.Gumbel and Normal is oar.distribution.Normal
    assert Independent is oar.distribution.Independent
    assert oar.distribution.transformed_distribution.TransformedDistribution is oar.distribution.TransformedDistribution


def test_complex_gaussians():
    oar.seed(4)
    x = oar.randn([40000], dtype="complex64")
    assert x.dtype == oar.complex64
    for part in (x.real().numpy(), x.imag().numpy()):  # each part N(0, 1/2), as Paddle's
        assert abs(part.std() - np.sqrt(0.5)) < 0.01 and abs(part.mean()) < 0.01
    y = oar.normal(mean=1 + 1j, std=2.0, shape=[40000])
    assert y.dtype == oar.complex64 and abs(y.imag().numpy().mean() - 1) < 0.03
    assert abs(y.real().numpy().std() - np.sqrt(2.0)) < 0.03
    assert oar.standard_normal([3], dtype="complex128").dtype == oar.complex128
    with pytest.raises(ValueError, match="equal real and imaginary"):
        oar.gaussian([2], mean=1 + 2j, dtype="complex64")


def test_nanmedian_over_several_axes():
    y = np.array([[[1.0, 5.0], [np.nan, 2.0]], [[4.0, 3.0], [0.0, 8.0]]])
    t = oar.to_tensor(y)
    np.testing.assert_allclose(t.nanmedian((0, 2)).numpy(), np.nanmedian(y, axis=(0, 2)))
    lower = [np.sort(v[~np.isnan(v)])[(np.sum(~np.isnan(v)) - 1) // 2] for v in y.transpose(1, 0, 2).reshape(2, -1)]
    np.testing.assert_allclose(t.nanmedian((0, 2), mode="min").numpy(), lower)
    assert t.nanmedian((0, 1, 2), keepdim=True).shape == [1, 1, 1]


@pytest.mark.parametrize("eq,shapes", [("...ij,jk->...ik", [(2, 3, 4), (4, 5)]), ("...j,j->...", [(2, 3, 4), (4,)]),
                                       ("i...->...", [(2, 3, 4)]), ("...ii->...i", [(2, 3, 3)]),
                                       ("bij,...jk", [(2, 3, 4), (4, 5)]), ("...ij,...jk", [(1, 3, 4), (5, 4, 2)])])
def test_einsum_ellipsis(eq, shapes):
    rng = np.random.default_rng(1)
    ops = [rng.normal(size=s) for s in shapes]
    np.testing.assert_allclose(oar.einsum(eq, *[oar.to_tensor(o) for o in ops]).numpy(), np.einsum(eq, *ops),
                               rtol=1e-12)


def test_generate_proposals_names_mismatched_anchors():
    # Paddle's own docstring example passes 40 anchors for 100 positions (and reads past their end)
    with pytest.raises(ValueError, match="H\\*W\\*A = 100"):
        oar.vision.ops.generate_proposals(oar.rand([2, 4, 5, 5]), oar.rand([2, 16, 5, 5]),
                                          oar.to_tensor([[224.0, 224.0], [224.0, 224.0]]), oar.rand([2, 5, 4, 4]),
                                          oar.rand([2, 5, 10, 4]))


def test_summary_passes_a_list_input_as_one_argument():
    class ListInput(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = oar.nn.Linear(4, 2)

        def forward(self, inputs):
            return self.fc(inputs[0] + inputs[1])

    info = oar.summary(ListInput(), input=[oar.ones([1, 4]), oar.ones([1, 4])])
    assert info == {"total_params": 10, "trainable_params": 10}


def test_sparse_reshape_zero_keeps_a_dim_and_subm_conv_is_centred():
    dense = np.arange(36.0).reshape(6, 2, 3) * (np.arange(36).reshape(6, 2, 3) % 3 == 0)
    sp = oar.to_tensor(dense).to_sparse_coo(3)
    out = oar.sparse.reshape(sp, [1, 0, 2, -1, 3])  # 0: the input's dim 1 (2); -1 then 3, as Paddle
    assert out.shape == [1, 2, 2, 3, 3]
    np.testing.assert_array_equal(out.to_dense().numpy(), dense.reshape(1, 2, 2, 3, 3))
    idx = oar.to_tensor([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 2], [1, 3, 2, 3]], dtype="int32")
    x = oar.sparse.sparse_coo_tensor(idx, oar.to_tensor([[1.0], [2.0], [3.0], [4.0]]), [1, 1, 3, 4, 1])
    y = oar.sparse.nn.functional.subm_conv3d(x, oar.ones([1, 3, 3, 1, 1]))  # padding 0 means centred (Paddle)
    grid = x.to_dense().numpy()[0, 0, :, :, 0]
    padded = np.pad(grid, 1)
    ref = [padded[h:h + 3, w:w + 3].sum() for h, w in zip([0, 0, 1, 2], [1, 3, 2, 3])]
    assert y.shape == [1, 1, 3, 4, 1]
    np.testing.assert_allclose(y.values().numpy().ravel(), ref)
    with pytest.raises(ValueError, match="centred"):
        oar.sparse.nn.functional.subm_conv3d(x, oar.ones([1, 3, 3, 1, 1]), padding=2)
