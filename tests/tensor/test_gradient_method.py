"""Tensor.gradient(): Paddle 2.x's NumPy view of the accumulated gradient (seed 002 prints it after backward)."""
import numpy as np

import oar as paddle


def test_gradient_is_none_before_backward():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    assert x.gradient() is None


def test_gradient_returns_numpy_of_grad_and_accumulates():
    x = paddle.to_tensor(np.array([1.0, -2.0, 3.0]), stop_gradient=False)
    (x * x).sum().backward()
    g = x.gradient()
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, 2 * np.array([1.0, -2.0, 3.0]))
    (x * x).sum().backward()
    np.testing.assert_allclose(x.gradient(), 4 * np.array([1.0, -2.0, 3.0]))
    np.testing.assert_array_equal(x.gradient(), x.grad.numpy())
    x.clear_grad()  # Paddle's default zeroes the gradient (checked against Paddle 3.3.1)
    np.testing.assert_array_equal(x.gradient(), np.zeros(3))
    assert x.grad.stop_gradient is False
    x.clear_grad(set_to_zero=False)
    assert x.gradient() is None


def test_gradient_of_each_summed_input_is_one():
    inputs = [paddle.to_tensor(np.ones([2, 2], np.float32), stop_gradient=False) for _ in range(3)]
    loss = paddle.sum(paddle.add_n(inputs))
    loss.backward()
    np.testing.assert_allclose(inputs[2].gradient(), np.ones([2, 2]))
