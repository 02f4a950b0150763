"""Tensor.retain_grads(): a non-leaf tensor keeps its gradient in .grad (issue 25: the call did nothing)."""
import oar


def test_non_leaf_keeps_its_gradient_of_the_last_backward():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 3.0
    z = y * y
    y.retain_grads()
    z.retain_grads()
    z.sum().backward(retain_graph=True)
    assert y.grad.numpy().tolist() == [6.0, 12.0]  # d(sum y^2)/dy = 2y (the values Paddle 3.3.1 gives)
    assert z.grad.numpy().tolist() == [1.0, 1.0]
    assert x.grad.numpy().tolist() == [18.0, 36.0]
    z.sum().backward()
    assert y.grad.numpy().tolist() == [6.0, 12.0]  # replaced, not accumulated (as Paddle 3.3.1)
    assert x.grad.numpy().tolist() == [36.0, 72.0]  # a leaf accumulates


def test_without_retain_grads_a_non_leaf_has_none_and_grad_leaves_it_alone():
    x = oar.to_tensor([1.0], stop_gradient=False)
    y = x * 2.0
    (y * y).sum().backward(retain_graph=True)
    assert y.grad is None
    y.retain_grads()
    (gx,) = oar.grad((y * y).sum(), x)  # oar.grad returns gradients and fills no .grad
    assert gx.numpy().tolist() == [8.0] and y.grad is None


def test_retain_grads_sees_the_gradient_hooks_registered_before_it():
    x = oar.to_tensor([1.0], stop_gradient=False)
    y = x * 2.0
    y.register_hook(lambda g: g * 10.0)
    y.retain_grads()
    y.sum().backward()
    assert y.grad.numpy().tolist() == [10.0] and x.grad.numpy().tolist() == [20.0]
