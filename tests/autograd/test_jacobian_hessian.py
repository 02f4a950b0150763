"""paddle.autograd.jacobian / hessian against finite-difference-free closed forms (NumPy)."""
import numpy as np
import pytest

import oar

RS = np.random.RandomState(0)


def _t(a):
    return oar.to_tensor(a.astype("float32"), stop_gradient=False)


def test_jacobian_of_a_linear_map_is_its_matrix():
    a = RS.randn(3, 4).astype("float32")
    x = _t(RS.randn(4))
    j = oar.autograd.jacobian(oar.matmul(oar.to_tensor(a), x), x)
    assert j.shape == [3, 4]
    np.testing.assert_allclose(j[:].numpy(), a, rtol=1e-6)
    np.testing.assert_allclose(j[1].numpy(), a[1], rtol=1e-6)
    np.testing.assert_allclose(j[:, 2].numpy(), a[:, 2], rtol=1e-6)


def test_jacobian_shapes_drop_the_axes_of_scalars_as_paddle():
    x = _t(RS.randn(3))
    assert oar.autograd.jacobian(oar.sum(x * x), x).shape == [3]
    np.testing.assert_allclose(oar.autograd.jacobian(oar.sum(x * x), x)[:].numpy(), 2 * x.numpy(), rtol=1e-6)
    s = oar.to_tensor(2.0, stop_gradient=False)
    assert oar.autograd.jacobian(s * x, s).shape == [3]
    assert oar.autograd.jacobian(s * s, s).shape == []
    with pytest.raises(ValueError, match="ndim should be 0 or 1"):
        oar.autograd.jacobian(x, _t(RS.randn(2, 2)))


def test_batched_jacobian_and_tuples():
    xv = RS.randn(2, 3)
    x = _t(xv)
    j = oar.autograd.jacobian(oar.sin(x), x, batch_axis=0)
    assert j.shape == [2, 3, 3]
    np.testing.assert_allclose(j[:].numpy(), np.stack([np.diag(np.cos(r)) for r in xv]), rtol=1e-5)
    uv, y = RS.randn(3), _t(RS.randn(3))
    u = _t(uv)
    both = oar.autograd.jacobian((u * y, y), (u, y))
    assert len(both) == 2 and len(both[0]) == 2
    np.testing.assert_allclose(both[0][1][:].numpy(), np.diag(uv), rtol=1e-5)
    np.testing.assert_allclose(both[1][1][:].numpy(), np.eye(3), rtol=1e-6)
    with pytest.raises(ValueError, match="batch_axis"):
        oar.autograd.jacobian(x, x, batch_axis=1)


def test_hessian_of_a_quadratic_form():
    a = RS.randn(3, 3).astype("float32")
    x = _t(RS.randn(3))
    f = oar.sum(x * oar.matmul(oar.to_tensor(a), x))
    h = oar.autograd.hessian(f, x)
    np.testing.assert_allclose(h[:].numpy(), a + a.T, rtol=1e-5)
    xs = oar.autograd.hessian(oar.sum(x * x) * oar.sum(x), [x, x])
    assert len(xs) == 2 and xs[0][1].shape == [3, 3]
    with pytest.raises(ValueError, match="one value"):
        oar.autograd.hessian(x * x, x)


def test_batched_hessian_matches_paddle():
    x = _t(np.array([[1.0, 2.0], [3.0, 4.0]]))
    h = oar.autograd.hessian((x ** 3).sum(axis=1), x, batch_axis=0)
    # Paddle 3.3.1: [[[6, 0], [0, 12]], [[18, 0], [0, 24]]]
    assert h[:].numpy().tolist() == [[[6.0, 0.0], [0.0, 12.0]], [[18.0, 0.0], [0.0, 24.0]]]
