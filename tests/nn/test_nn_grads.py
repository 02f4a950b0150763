"""Float64 finite-difference gradient checks for layers and functionals (conv/pool ones are in
test_nn_conv_pool.py, recurrent ones in test_nn_rnn.py)."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from nn_gradcheck import check_grad, check_layer_grad

rng = np.random.default_rng(1)


ACTIVATIONS = [
    (F.relu, {}), (F.relu6, {}), (F.leaky_relu, {"negative_slope": 0.1}), (F.elu, {"alpha": 0.7}), (F.selu, {}),
    (F.gelu, {}), (F.gelu, {"approximate": True}), (F.silu, {}), (F.swish, {}), (F.mish, {}), (F.sigmoid, {}),
    (F.tanh, {}), (F.hardswish, {}), (F.hardsigmoid, {}), (F.softplus, {"beta": 2.0}), (F.softsign, {}),
    (F.log_sigmoid, {}), (F.tanhshrink, {}), (F.softmax, {"axis": 0}), (F.log_softmax, {}), (F.glu, {}),
    (F.hardtanh, {}),
]


@pytest.mark.parametrize("fn,kw", ACTIVATIONS, ids=[f.__name__ + str(k) for f, k in ACTIVATIONS])
def test_activation_gradients(fn, kw):
    x = rng.normal(size=(3, 4)) * 2
    x[np.abs(x) < 0.05] += 0.2                   # keep away from kinks
    x[np.abs(np.abs(x) - 3) < 0.05] += 0.2
    x[np.abs(x - 6) < 0.05] += 0.2
    check_grad(lambda t: fn(t, **kw), [x])


def test_activation_values():
    x = np.array([-4.0, -1.0, -0.2, 0.0, 0.5, 2.0, 7.0])
    t = oar.to_tensor(x)
    from math import erf
    np.testing.assert_allclose(F.gelu(t).numpy(), [0.5 * v * (1 + erf(v / np.sqrt(2))) for v in x], rtol=1e-12)
    np.testing.assert_allclose(F.gelu(t, True).numpy(),
                               0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), rtol=1e-12)
    np.testing.assert_allclose(F.relu6(t).numpy(), np.clip(x, 0, 6))
    np.testing.assert_allclose(F.hardswish(t).numpy(), x * np.clip(x + 3, 0, 6) / 6)
    np.testing.assert_allclose(F.hardsigmoid(t).numpy(), np.clip(x * 0.1666667 + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(F.selu(t).numpy(), 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * (np.exp(x) - 1)), rtol=1e-12)
    np.testing.assert_allclose(F.mish(t).numpy(), x * np.tanh(np.log1p(np.exp(x))), rtol=1e-12)
    np.testing.assert_allclose(F.softplus(t).numpy(), np.log1p(np.exp(x)), rtol=1e-12)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(F.softmax(t).numpy(), e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(F.log_softmax(t).numpy(), np.log(e / e.sum()), rtol=1e-12)
    np.testing.assert_allclose(nn.LeakyReLU(0.2)(t).numpy(), np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(nn.ELU(1.0)(t).numpy(), np.where(x > 0, x, np.exp(x) - 1), rtol=1e-12)
    assert nn.Softmax(axis=0)(t).shape == [7]


LAYERS = [
    (lambda: nn.Linear(3, 4), [(2, 3)]),
    (lambda: nn.Bilinear(3, 2, 4), [(2, 3), (2, 2)]),
    (lambda: nn.PReLU(3), [(2, 3, 4)]),
    (lambda: nn.PReLU(), [(2, 3)]),
    (lambda: nn.LayerNorm(4), [(3, 4)]),
    (lambda: nn.LayerNorm([2, 3]), [(2, 2, 3)]),
    (lambda: nn.GroupNorm(2, 4), [(2, 4, 3)]),
    (lambda: nn.InstanceNorm2D(3), [(2, 3, 3, 2)]),
    (lambda: nn.BatchNorm1D(3), [(5, 3)]),
    (lambda: nn.BatchNorm2D(2), [(3, 2, 2, 2)]),
    (lambda: nn.BatchNorm3D(2), [(2, 2, 2, 1, 2)]),
    (lambda: nn.Upsample(scale_factor=2, mode="bilinear"), [(1, 2, 3, 2)]),
    (lambda: nn.Upsample(size=[5, 3], mode="bilinear", align_corners=True), [(1, 1, 3, 2)]),
    (lambda: nn.Upsample(scale_factor=2), [(1, 2, 2, 3)]),
    (lambda: nn.PixelShuffle(2), [(1, 8, 2, 3)]),
    (lambda: nn.Pad2D([1, 0, 2, 1], mode="reflect"), [(1, 1, 3, 3)]),
    (lambda: nn.Flatten(), [(2, 3, 2)]),
    (lambda: nn.MultiHeadAttention(4, 2), [(2, 3, 4)]),
    (lambda: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0), [(2, 3, 4)]),
    (lambda: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, normalize_before=True, activation="gelu"),
     [(1, 3, 4)]),
]


@pytest.mark.parametrize("make,shapes", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_layer_gradients(make, shapes):
    check_layer_grad(make(), [rng.normal(size=s) for s in shapes], rtol=1e-4, atol=1e-6)


def test_embedding_gradient_and_padding():
    emb = nn.Embedding(5, 3, padding_idx=1)
    np.testing.assert_array_equal(emb.weight.numpy()[1], 0)
    ids = oar.to_tensor(np.array([[0, 1, 4], [4, 2, 1]]))
    emb.to(dtype="float64")
    out = emb(ids)
    np.testing.assert_allclose(out.numpy(), emb.weight.numpy()[ids.numpy()])
    (out * oar.to_tensor(np.arange(18.0).reshape(2, 3, 3))).sum().backward()
    g = np.zeros((5, 3))
    w = np.arange(18.0).reshape(2, 3, 3)
    for (i, j), v in np.ndenumerate(ids.numpy()):
        g[v] += w[i, j]
    g[1] = 0
    np.testing.assert_allclose(emb.weight.grad.numpy(), g)
    with pytest.raises(IndexError, match=r"\[0, 5\)"):
        emb(oar.to_tensor(np.array([7])))


def test_decoder_and_transformer_gradients():
    check_layer_grad(nn.TransformerDecoderLayer(4, 2, 5, dropout=0.0), [rng.normal(size=(1, 2, 4)),
                                                                         rng.normal(size=(1, 3, 4))], rtol=1e-4)
    model = nn.Transformer(4, 2, 1, 1, 6, dropout=0.0)
    check_layer_grad(model, [rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 2, 4))], rtol=1e-4,
                     check_inputs=False)


def test_interpolate_values():
    x = np.arange(6.0).reshape(1, 1, 2, 3)
    y = F.interpolate(oar.to_tensor(x), scale_factor=2, mode="nearest").numpy()
    np.testing.assert_array_equal(y[0, 0], x[0, 0].repeat(2, 0).repeat(2, 1))
    y = F.interpolate(oar.to_tensor(x), size=[3, 5], mode="bilinear", align_corners=True).numpy()
    np.testing.assert_allclose(y[0, 0, :, 0], [0, 1.5, 3])
    np.testing.assert_allclose(y[0, 0, 0], [0, 0.5, 1, 1.5, 2])
    # half-pixel (align_corners=False, align_mode=0), as Paddle/OpenCV
    y = F.interpolate(oar.to_tensor(np.array([[[[0.0, 1.0]]]])), size=[1, 4], mode="bilinear").numpy()
    np.testing.assert_allclose(y[0, 0, 0], [0, 0.25, 0.75, 1.0])
    assert F.interpolate(oar.ones([1, 2, 3, 3]), scale_factor=2, data_format="NHWC").shape == [1, 4, 6, 3]


def test_pixel_shuffle_values():
    x = np.arange(16.0).reshape(1, 4, 2, 2)
    y = F.pixel_shuffle(oar.to_tensor(x), 2).numpy()
    ref = x.reshape(1, 1, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(F.pixel_unshuffle(oar.to_tensor(y), 2).numpy(), x)
