"""append_backward / gradients: parameter_list, no_grad_set, and gradients through cond and while_loop, against
eager autograd."""
import numpy as np
import pytest

import oar

R = np.random.default_rng(3)
X = R.standard_normal((4, 3)).astype("float32")
W1 = R.standard_normal((3, 2)).astype("float32")
W2 = R.standard_normal((3, 2)).astype("float32")


def _build(prog):
    x = oar.static.data("x", [None, 3])
    w1 = oar.static.create_parameter([3, 2], "float32", name="w1",
                                     default_initializer=oar.nn.initializer.Assign(W1))
    w2 = oar.static.create_parameter([3, 2], "float32", name="w2",
                                     default_initializer=oar.nn.initializer.Assign(W2))
    h1, h2 = oar.matmul(x, w1), oar.matmul(x, w2)
    loss = (oar.tanh(h1) * h2).sum()
    return x, w1, w2, h1, loss


def _eager(detach_h1=False):
    w1, w2 = oar.to_tensor(W1, stop_gradient=False), oar.to_tensor(W2, stop_gradient=False)
    x = oar.to_tensor(X)
    h1 = oar.matmul(x, w1)
    if detach_h1:
        h1 = h1.detach()
    loss = (oar.tanh(h1) * oar.matmul(x, w2)).sum()
    loss.backward()
    return w1.grad, w2.grad


def _run(main, startup, fetch):
    scope = oar.static.Scope()
    exe = oar.static.Executor()
    exe.run(startup, scope=scope)
    return exe.run(main, feed={"x": X}, fetch_list=fetch, scope=scope)


@pytest.mark.parametrize("params", [None, ["w1", "w2"], "vars"])
def test_append_backward_all_or_listed_parameters(prog, params):
    main, startup = prog
    x, w1, w2, _, loss = _build(prog)
    pg = oar.static.append_backward(loss, parameter_list=[w1, w2] if params == "vars" else params)
    assert [(p.name, g.name) for p, g in pg] == [("w1", "w1@GRAD"), ("w2", "w2@GRAD")]
    g1, g2 = _run(main, startup, [g for _, g in pg])
    oar.disable_static()
    e1, e2 = _eager()
    oar.enable_static()
    np.testing.assert_allclose(g1, e1.numpy(), rtol=1e-5)
    np.testing.assert_allclose(g2, e2.numpy(), rtol=1e-5)


def test_append_backward_subset_and_no_grad_set(prog):
    main, startup = prog
    x, w1, w2, h1, loss = _build(prog)
    pg = oar.static.append_backward(loss, parameter_list=["w2"])
    assert [p.name for p, _ in pg] == ["w2"]
    assert not main.global_block().has_var("w1@GRAD")


def test_no_grad_set_stops_gradient_flow(prog):
    main, startup = prog
    x, w1, w2, h1, loss = _build(prog)
    pg = oar.static.append_backward(loss, no_grad_set={h1.name})  # h1 treated as a constant: w1 gets nothing
    assert [p.name for p, _ in pg] == ["w2"]
    g2, = _run(main, startup, [pg[0][1]])
    oar.disable_static()
    e1, e2 = _eager(detach_h1=True)
    oar.enable_static()
    assert e1 is None
    np.testing.assert_allclose(g2, e2.numpy(), rtol=1e-5)


def test_no_grad_set_with_parameter_variable(prog):
    main, startup = prog
    x, w1, w2, h1, loss = _build(prog)
    pg = oar.static.append_backward(loss, no_grad_set=[w1])
    assert [p.name for p, _ in pg] == ["w2"]


def test_gradients_through_cond_inside_while_equal_eager(prog):
    main, _ = prog
    x = oar.static.data("x", [None, 3])
    x.stop_gradient = False
    i0 = oar.zeros([1], "int64")

    def body(i, s):
        s = oar.static.nn.cond(s.sum() > 0, lambda: oar.tanh(s) * x, lambda: s * s + x)
        return [i + 1, s]
    _, s = oar.static.nn.while_loop(lambda i, s: i < 4, body, [i0, x])
    gx, = oar.static.gradients([s.sum()], [x])
    exe = oar.static.Executor()
    for sign in (1.0, -1.0):
        xv = (sign * np.abs(R.standard_normal((2, 3)))).astype("float32")
        got = exe.run(main, feed={"x": xv}, fetch_list=[gx])[0]
        oar.disable_static()
        X_ = oar.to_tensor(xv, stop_gradient=False)
        S = X_
        for _ in range(4):
            S = oar.tanh(S) * X_ if float(S.sum()) > 0 else S * S + X_
        S.sum().backward()
        oar.enable_static()
        np.testing.assert_allclose(got, X_.grad.numpy(), rtol=1e-5, atol=1e-6)
