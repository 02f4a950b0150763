import numpy as np
import pytest

import oar


def test_backward_accumulates_and_clears():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    x.clear_grad()
    assert x.grad is None


def test_higher_order():
    x = oar.to_tensor([3.0], stop_gradient=False)
    (dx,) = oar.grad((x * x * x).sum(), x, create_graph=True)
    (ddx,) = oar.grad(dx.sum(), x)
    np.testing.assert_allclose(dx.numpy(), [27.0])
    np.testing.assert_allclose(ddx.numpy(), [18.0])


def test_errors():
    with pytest.raises(RuntimeError, match="stop_gradient"):
        oar.to_tensor([1.0]).backward()
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="grad_tensor"):
        (x * 2).backward()
    with pytest.raises(ValueError, match=r"matmul.*\[3, 5\].*\[3, 5\]"):
        oar.matmul(oar.ones([3, 5]), oar.ones([3, 5]))
