import numpy as np
import pytest

import oar


def test_backward_accumulates_and_clears():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    x.clear_grad()  # zeroed, as Paddle does
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_clear_grad_zeroes_the_gradient_tensor_in_place():
    # Paddle 3.3.1: a tensor holding x.grad before clear_grad() reads zeros after it (the buffer is zeroed, not
    # replaced); the next backward still gives the fresh gradient
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    held = x.grad
    x.clear_grad()
    np.testing.assert_array_equal(held.numpy(), [0.0, 0.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_clear_grad_of_a_shared_create_graph_gradient_leaves_the_other_leaf():
    # under create_graph the walk hands the same gradient tensor to both inputs of an add: clearing one leaf's
    # gradient must not zero the other's
    from oar.eager.engine import run_backward
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = oar.to_tensor([3.0, 4.0], stop_gradient=False)
    z = x + y
    run_backward([z], [oar.to_tensor([1.0, 1.0])], create_graph=True)
    x.clear_grad()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


def test_higher_order():
    x = oar.to_tensor([3.0], stop_gradient=False)
    (dx,) = oar.grad((x * x * x).sum(), x, create_graph=True)
    (ddx,) = oar.grad(dx.sum(), x)
    np.testing.assert_allclose(dx.numpy(), [27.0])
    np.testing.assert_allclose(ddx.numpy(), [18.0])


def test_errors():
    with pytest.raises(RuntimeError, match="stop_gradient"):
        oar.to_tensor([1.0]).backward()
    with pytest.raises(ValueError, match=r"matmul.*\[3, 5\].*\[3, 5\]"):
        oar.matmul(oar.ones([3, 5]), oar.ones([3, 5]))


# ---- oar.grad options ------------------------------------------------------------------------------------------------

def test_grad_frees_the_graph_unless_retained():
    x = oar.to_tensor([2.0], stop_gradient=False)
    y = (x * x * x).sum()
    (g1,) = oar.grad(y, x, retain_graph=True)
    (g2,) = oar.grad(y, x)  # retain_graph defaults to create_graph (False): frees the graph
    np.testing.assert_allclose(g1.numpy(), [12.0])
    np.testing.assert_allclose(g2.numpy(), [12.0])
    with pytest.raises(RuntimeError, match="retain_graph"):
        oar.grad(y, x)
    z = (x * x).sum()
    oar.grad(z, x, create_graph=True)  # create_graph keeps the graph by default
    np.testing.assert_allclose(oar.grad(z, x)[0].numpy(), [4.0])


def test_grad_results_are_detached_unless_create_graph():
    x = oar.to_tensor([2.0], stop_gradient=False)
    (g,) = oar.grad((x * x).sum(), x)
    assert g.stop_gradient and g.is_leaf
    (g,) = oar.grad((x * x).sum(), x, create_graph=True)
    assert not g.stop_gradient and not g.is_leaf


def test_grad_outputs_weight_each_output():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (g,) = oar.grad([x * 2, x * x], [x], grad_outputs=[oar.to_tensor([1.0, 1.0]), oar.to_tensor([3.0, 0.5])])
    np.testing.assert_allclose(g.numpy(), [2 + 3 * 2, 2 + 0.5 * 4])
    with pytest.raises(ValueError, match=r"grad_tensor of shape \[3\].*\[2\]"):
        oar.grad(x * 2, x, grad_outputs=oar.to_tensor([1.0, 1.0, 1.0]))


def test_grad_allow_unused_and_no_grad_vars():
    x = oar.to_tensor([2.0], stop_gradient=False)
    u = oar.to_tensor([5.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="allow_unused"):
        oar.grad((x * 3).sum(), [x, u])
    gx, gu = oar.grad((x * 3).sum(), [x, u], allow_unused=True)
    assert gu is None and gx.numpy()[0] == 3.0
    z = x * 3
    (g,) = oar.grad((z * x).sum(), x, no_grad_vars=[z])  # z is a constant: d(z * x)/dx = z
    np.testing.assert_allclose(g.numpy(), [6.0])
    assert not z.stop_gradient  # restored afterwards
    (g,) = oar.grad((z * x).sum(), x)
    np.testing.assert_allclose(g.numpy(), [12.0])


def test_third_order_gradient():
    x = oar.to_tensor([1.5], dtype="float64", stop_gradient=False)
    y = oar.sin(x) * x
    (d1,) = oar.grad(y, x, create_graph=True)
    (d2,) = oar.grad(d1, x, create_graph=True)
    (d3,) = oar.grad(d2, x)
    v = 1.5
    np.testing.assert_allclose(d1.numpy(), [np.cos(v) * v + np.sin(v)])
    np.testing.assert_allclose(d2.numpy(), [-np.sin(v) * v + 2 * np.cos(v)])
    np.testing.assert_allclose(d3.numpy(), [-np.cos(v) * v - 3 * np.sin(v)])


def test_hooks_on_intermediate_and_leaf_with_oar_grad():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().tolist()))  # None return: gradient unchanged
    handle = y.register_hook(lambda g: g * 2)
    (g,) = oar.grad(y.sum(), x, retain_graph=True)
    np.testing.assert_allclose(g.numpy(), [4.0, 8.0])
    assert seen == [[1.0, 1.0]]
    handle.remove()
    (g,) = oar.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        oar.ones([1]).register_hook(lambda g: g)


def test_no_grad_and_enable_grad_as_decorators():
    x = oar.to_tensor([1.0], stop_gradient=False)

    @oar.no_grad()
    def off(x):
        return x * 2

    @oar.enable_grad()
    def on(x):
        return x * 2

    assert off(x).stop_gradient
    with oar.no_grad():
        assert not on(x).stop_gradient
        assert not oar.is_grad_enabled()
    assert oar.is_grad_enabled()
