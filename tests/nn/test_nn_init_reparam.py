"""nn.initializer Orthogonal/Dirac/Bilinear and nn.utils weight_norm/remove_weight_norm/spectral_norm (issue 23),
against NumPy references written from Paddle's definitions."""
import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.nn import initializer as I

rng = np.random.default_rng(5)


def make(shape, init, dtype="float64"):
    return oar.create_parameter(shape, dtype, default_initializer=init).numpy()


def test_orthogonal():
    oar.seed(1)
    w = make([3, 2, 4], I.Orthogonal(gain=1.5))
    m = w.reshape(3, -1)
    np.testing.assert_allclose(m @ m.T, 2.25 * np.eye(3), atol=1e-12)  # fewer rows: orthonormal rows
    w = make([6, 2], I.Orthogonal())
    np.testing.assert_allclose(w.T @ w, np.eye(2), atol=1e-12)
    with pytest.raises(ValueError, match="at least 2 dims"):
        make([4], I.Orthogonal())


def test_orthogonal_is_seeded():
    oar.seed(11)
    a = make([4, 4], I.Orthogonal())
    oar.seed(11)
    np.testing.assert_array_equal(make([4, 4], I.Orthogonal()), a)


def test_dirac():
    w = make([4, 2, 3, 3], I.Dirac(groups=2))
    ref = np.zeros((4, 2, 3, 3))
    for g in range(2):
        for i in range(2):
            ref[g * 2 + i, i, 1, 1] = 1
    np.testing.assert_array_equal(w, ref)
    x = rng.normal(size=(1, 3, 5))  # a Dirac conv is the identity
    conv = nn.Conv1D(3, 3, 3, padding=1, weight_attr=I.Dirac(), bias_attr=False)
    np.testing.assert_allclose(conv(oar.to_tensor(x.astype("float32"))).numpy(), x, rtol=1e-6)
    with pytest.raises(ValueError, match="groups"):
        make([3, 2, 3], I.Dirac(groups=2))


def test_bilinear():
    w = make([2, 3, 4, 4], I.Bilinear())
    f, c = 2, 0.75
    line = 1 - np.abs(np.arange(4) / f - c)
    np.testing.assert_allclose(w, np.broadcast_to(np.outer(line, line), (2, 3, 4, 4)))
    np.testing.assert_allclose(w[0, 0], w[0, 0].T)  # symmetric (Paddle's true division is not: see the docstring)
    with pytest.raises(ValueError, match="square"):
        make([1, 1, 3, 4], I.Bilinear())


def test_weight_norm_and_remove():
    layer = nn.Linear(3, 4)
    layer.to(dtype="float64")
    w0 = layer.weight.numpy().copy()
    nn.utils.weight_norm(layer, dim=1)
    assert sorted(n for n, _ in layer.named_parameters()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(layer.weight_g.numpy(), np.linalg.norm(w0, axis=0), rtol=1e-12)
    layer.weight_g.set_value(np.array([1.0, 2.0, 3.0, 4.0]))
    x = rng.normal(size=(2, 3))
    out = layer(oar.to_tensor(x))
    w = w0 / np.linalg.norm(w0, axis=0) * np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(out.numpy(), x @ w + layer.bias.numpy(), rtol=1e-12)
    out.sum().backward()
    # d/dg of sum(x @ (g * v/|v|)) = sum_rows(x) @ (v/|v|) per column
    np.testing.assert_allclose(layer.weight_g.grad.numpy(), x.sum(0) @ (w0 / np.linalg.norm(w0, axis=0)), rtol=1e-10)
    nn.utils.remove_weight_norm(layer)
    assert sorted(n for n, _ in layer.named_parameters()) == ["bias", "weight"]
    np.testing.assert_allclose(layer.weight.numpy(), w, rtol=1e-12)
    conv = nn.utils.weight_norm(nn.Conv2D(2, 3, 3), dim=None)
    assert conv.weight_g.shape == []
    with pytest.raises(ValueError, match="not found"):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))


def test_spectral_norm_hook():
    layer = nn.Linear(3, 4)
    layer.to(dtype="float64")
    w0 = layer.weight.numpy().copy()
    nn.utils.spectral_norm(layer, n_power_iterations=3)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_orig"]
    assert sorted(layer.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    u, v = layer.weight_u.numpy().copy(), layer.weight_v.numpy().copy()
    assert u.shape == (4,) and v.shape == (3,)  # Linear: dim 1 (the rows run along the output features)
    x = rng.normal(size=(2, 3))
    out = layer(oar.to_tensor(x))
    mat = w0.T
    for _ in range(3):
        v = mat.T @ u
        v /= max(np.linalg.norm(v), 1e-12)
        u = mat @ v
        u /= max(np.linalg.norm(u), 1e-12)
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-10)  # updated in training
    np.testing.assert_allclose(out.numpy(), x @ (w0 / (u @ mat @ v)) + layer.bias.numpy(), rtol=1e-10)
    layer.eval()
    layer(oar.to_tensor(x))
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-12)  # not in evaluation
