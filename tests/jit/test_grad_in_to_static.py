"""`oar.grad` inside a converted function (and on static Variables): the gradient ops join the program, equal to
eager, and differentiable again (a gradient penalty trained through the converted function)."""
import numpy as np
import pytest

import oar


def _penalty(lin):
    def penalty(x):
        x.stop_gradient = False
        y = oar.nn.functional.gelu(lin(x)).sum()
        (gx,) = oar.grad(y, x, create_graph=True)
        return (gx * gx).sum()
    return penalty


def test_gradient_penalty_matches_eager_and_trains_through_the_program():
    oar.seed(3)
    lin = oar.nn.Linear(3, 2)
    x = oar.to_tensor(np.random.RandomState(0).randn(4, 3).astype("float32"))
    penalty = _penalty(lin)
    eager = penalty(x.clone())
    eager.backward()
    g_eager = lin.weight.grad.numpy().copy()
    lin.clear_gradients()
    static = oar.jit.to_static(penalty)(x.clone())
    static.backward()
    np.testing.assert_allclose(static.numpy(), eager.numpy(), rtol=1e-5)
    np.testing.assert_allclose(lin.weight.grad.numpy(), g_eager, rtol=1e-4, atol=1e-6)


def test_grad_on_static_variables_appends_gradient_ops():
    main = oar.static.Program()
    with oar.graph.builder.static_mode(), oar.static.program_guard(main):
        x = oar.static.data("x", [3], "float64")
        x.stop_gradient = False
        y = (x * x * x).sum()
        (dx,) = oar.grad(y, x)
        (ddx,) = oar.grad(dx.sum(), x)
    out = oar.static.Executor().run(main, feed={"x": np.array([1.0, 2.0, 3.0])}, fetch_list=[dx, ddx])
    np.testing.assert_allclose(out[0], [3.0, 12.0, 27.0])
    np.testing.assert_allclose(out[1], [6.0, 12.0, 18.0])


def test_an_unused_input_is_named_unless_allowed():
    @oar.jit.to_static
    def f(x, z):
        x.stop_gradient = False
        z.stop_gradient = False
        return oar.grad((x * x).sum(), [x, z], allow_unused=True)[1] is None

    assert f(oar.ones([2]), oar.ones([2])) is True

    @oar.jit.to_static
    def g(x, z):
        x.stop_gradient = False
        z.stop_gradient = False
        return oar.grad((x * x).sum(), [x, z])

    with pytest.raises(RuntimeError, match="is not used to compute the outputs"):
        g(oar.ones([2]), oar.ones([2]))
