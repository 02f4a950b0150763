"""paddle.autograd.PyLayer: custom forward/backward eagerly, in to_static programs and in static graphs."""
import numpy as np
import pytest

import oar
from oar.static import InputSpec


class ScaledCube(oar.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k, x * 2

    @staticmethod
    def backward(ctx, dy, dz):
        (x,) = ctx.saved_tensor()
        return dy * 3 * x ** 2 * ctx.k + dz * 2


class ClipGrad(oar.autograd.PyLayer):
    """Identity forward, gradient clipped to [-1, 1]: a backward no automatic rule would give."""

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, dy):
        return oar.clip(dy, -1.0, 1.0)


X = np.array([2.0, -1.0, 0.5])


def test_eager_custom_backward():
    x = oar.to_tensor(X, stop_gradient=False)
    y, z = ScaledCube.apply(x, 2.0)
    np.testing.assert_allclose(y.numpy(), X ** 3 * 2)
    (y.sum() + (z * 3).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * X ** 2 * 2 + 6)
    x2 = oar.to_tensor(X, stop_gradient=False)
    (ClipGrad.apply(x2) * 5.0).sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), [1.0, 1.0, 1.0])  # 5 clipped: the custom rule ran


def test_unused_output_gets_zero_gradient_and_count_is_checked():
    x = oar.to_tensor(X, stop_gradient=False)
    y, _ = ScaledCube.apply(x, 1.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * X ** 2)

    class Bad(oar.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    a, b = oar.to_tensor(X, stop_gradient=False), oar.to_tensor(X, stop_gradient=False)
    with pytest.raises(ValueError, match="returned 1 gradients; forward took 2"):
        Bad.apply(a, b).sum().backward()


def loss_fn(x):
    y, z = ScaledCube.apply(x, 2.0)
    return (ClipGrad.apply(y) * 5.0).sum() + z.sum()


def test_to_static_runs_the_custom_backward():
    static = oar.jit.to_static(loss_fn, input_spec=[InputSpec([3], "float64")])
    xs, xe = oar.to_tensor(X, stop_gradient=False), oar.to_tensor(X, stop_gradient=False)
    ls, le = static(xs), loss_fn(xe)
    np.testing.assert_allclose(ls.numpy(), le.numpy())
    ls.backward()
    le.backward()
    np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())
    np.testing.assert_allclose(xs.grad.numpy(), 1.0 * 3 * X ** 2 * 2 + 2)
    assert "py_layer" in str(static.concrete_program.main_program) if hasattr(static, "concrete_program") else True


def test_static_program_gradients():
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [3], "float64")
            x.stop_gradient = False
            loss = loss_fn(x)
            (g,) = oar.static.gradients([loss], [x])
    finally:
        oar.disable_static()
    assert "py_layer" in str(main)
    out, grad = oar.static.Executor().run(main, feed={"x": X}, fetch_list=[loss, g])
    np.testing.assert_allclose(grad, 3 * X ** 2 * 2 + 2)
    np.testing.assert_allclose(out, loss_fn(oar.to_tensor(X)).numpy())
