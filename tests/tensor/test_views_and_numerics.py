"""Paddle 3.3.1's answers where oar used to differ silently: views share memory, numpy() copies, gradients are
leaves with stop_gradient False, and the numeric rules of issue 23 (each checked against Paddle 3.3.1 by hand;
the dtype/NaN sweep is tests/ops/test_dtype_sweep.py)."""
import numpy as np
import pytest

import oar


def test_numpy_returns_a_copy():
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (w * w).sum().backward()
    g = w.grad.numpy()
    w.clear_grad(set_to_zero=True)
    assert g.tolist() == [2.0, 4.0]
    x = oar.to_tensor([1.0, 2.0])
    a = x.numpy()
    a[0] = 9.0
    assert x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("make", [lambda x: x.reshape([6]), lambda x: x.flatten(), lambda x: x.unsqueeze(0),
                                  lambda x: x.unsqueeze(0).squeeze(0), lambda x: x.transpose([1, 0]),
                                  lambda x: x[0], lambda x: x[:, ::2], lambda x: x.astype("float32"),
                                  lambda x: x.detach(), lambda x: oar.unbind(x)[0], lambda x: oar.diagonal(x)])
def test_view_ops_share_memory_both_ways(make):
    x = oar.arange(6, dtype="float32").reshape([2, 3])
    y = make(x)
    x[0, 0] = 10.0
    assert 10.0 in y.numpy()
    y.add_(oar.ones(y.shape))
    assert x.numpy()[0, 0] == 11.0


@pytest.mark.parametrize("make", [lambda x: oar.split(x, 3, axis=1)[0], lambda x: x.unsqueeze(0).expand([2, 2, 3]),
                                  lambda x: oar.assign(x), lambda x: x[[0, 1]], lambda x: oar.flip(x, [0]),
                                  lambda x: oar.tensor_split(x, 3, axis=1)[0], lambda x: oar.chunk(x, 3, axis=1)[1]])
def test_other_ops_do_not_alias(make):  # Paddle: split, expand, assign, fancy indexing, flip, tensor_split copy
    x = oar.arange(6, dtype="float32").reshape([2, 3])
    y = make(x)
    before = y.numpy()
    x.add_(oar.ones([2, 3]))
    np.testing.assert_array_equal(y.numpy(), before)


def test_view_writes_follow_paddles_tape():
    w = oar.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    a = w * 1.0
    v = a.reshape([2, 2])
    v[0, 0] = 5.0
    (a * a).sum().backward()
    assert w.grad.tolist() == [10.0, 4.0, 6.0, 8.0]  # Paddle 3.3.1's answer (docs/numerics.md, "Views")
    w = oar.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    a = w * 1.0
    b = a.reshape([2, 2]) * 2.0
    b2 = a.reshape([2, 2])
    c = b2 * b2  # reads the view, which the next line changes through its base
    a[0] = 5.0
    with pytest.raises(RuntimeError, match="changed in place"):
        c.sum().backward()
    b.sum()  # the unrelated branch stays usable


def test_grad_is_a_leaf_that_requires_grad():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    assert x.grad.stop_gradient is False and x.grad.is_leaf
    with pytest.raises(RuntimeError, match="in place"):
        x.grad.zero_()  # as Paddle: a leaf that requires grad


def test_numeric_rules_of_issue_23():
    i64 = oar.to_tensor([2, 4])
    assert oar.erf(i64).dtype == oar.float32 and oar.reciprocal(i64).tolist() == [0.5, 0.25]
    assert oar.tanh(i64).dtype == oar.float32
    with pytest.raises(TypeError, match="bool"):
        oar.sqrt(oar.to_tensor([True]))
    assert oar.clip(oar.to_tensor([1, 2, 3]), 1.5, 2.5).tolist() == [1.5, 2.0, 2.5]
    assert oar.round(oar.to_tensor([0.5, 2.5, -0.5])).tolist() == [0.0, 2.0, -0.0]
    assert oar.prod(oar.to_tensor([1, 2, 3], "int32")).dtype == oar.int32
    assert oar.ones_like(oar.to_tensor([True, False])).tolist() == [True, True]
    assert oar.assign([1.5, 2.0]).dtype == oar.float64
    v, i = oar.median(oar.to_tensor([[1, 3, 2, 4]]), axis=1, mode="min")
    assert (v.dtype, v.tolist(), i.tolist()) == (oar.int64, [2], [2])
    assert [p.shape for p in oar.hsplit(oar.arange(12).reshape([2, 6]), [2, -1])] == [[2, 2], [2, 3], [2, 1]]
    assert np.isnan(oar.std(oar.to_tensor([1.0])).item())
    np.testing.assert_allclose(oar.linalg.norm(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]), p=2, axis=[0, 1]).item(),
                               np.linalg.norm([[1.0, 2.0], [3.0, 4.0]], 2), rtol=1e-6)


@pytest.mark.parametrize("act", ["relu", "gelu", "softmax", "log_softmax", "silu"])
def test_activations_of_integers_raise_instead_of_truncating(act):  # Paddle has no integer kernels for them
    with pytest.raises(TypeError, match="float"):
        getattr(oar.nn.functional, act)(oar.to_tensor([1, 2, 3]))


def test_put_along_axis_include_self():
    arr, idx = oar.to_tensor([[1.0, 2, 3], [4, 5, 6]]), oar.to_tensor([[0, 0], [1, 1]])
    vals = oar.to_tensor([[10.0, 20], [30, 40]])
    out = lambda r, s: oar.put_along_axis(arr, idx, vals, 1, reduce=r, include_self=s).tolist()  # noqa: E731
    assert out("add", False) == [[30.0, 2, 3], [4, 70, 6]]  # Paddle 3.3.1's values
    assert out("add", True) == [[31.0, 2, 3], [4, 75, 6]]
    assert out("mul", False) == [[200.0, 2, 3], [4, 1200, 6]]
    assert out("mean", False) == [[15.0, 2, 3], [4, 35, 6]]
    np.testing.assert_allclose(out("mean", True), [[31 / 3, 2, 3], [4, 25, 6]], rtol=1e-6)


def test_named_buffers_include_tensor_attributes():
    class L(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.t = oar.to_tensor([1.0])
            self.register_buffer("b", oar.to_tensor([2.0]))

    m = L()
    assert [n for n, _ in m.named_buffers()] == ["t", "b"]
    assert list(m.state_dict()) == ["b"]  # Paddle: an attribute tensor is a non-persistable buffer


def test_adjust_brightness_truncates_as_pil():
    from PIL import Image
    import oar.vision.transforms.functional as F
    a = np.array([[[101, 33, 250], [7, 200, 99]]], np.uint8)
    want = [[[151, 49, 255], [10, 255, 148]]]  # PIL's ImageEnhance (through Paddle 3.3.1)
    assert F.adjust_brightness(a, 1.5).tolist() == want
    assert np.asarray(F.adjust_brightness(Image.fromarray(a), 1.5)).tolist() == want


def test_set_value_writes_into_shared_memory():
    x = oar.zeros([2, 3])
    y = x.reshape([6])
    x.set_value(np.ones([2, 3], np.float32))
    assert y.tolist() == [1.0] * 6
