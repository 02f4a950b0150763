"""The static layer functions group_norm, instance_norm, prelu, spectral_norm, row_conv, deform_conv2d and py_func:
parameter names and shapes as Paddle 2.6 (Paddle 3.3.1 with FLAGS_enable_pir_api=0) creates them, values against
NumPy references."""
import numpy as np
import pytest

import oar

RS = np.random.RandomState(0)
X = RS.randn(2, 4, 3, 3).astype("float32")


def _run(build, feed):
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            outs = build()
        exe = oar.static.Executor()
        exe.run(startup)
        res = exe.run(main, feed=feed, fetch_list=list(outs))
        params = {p.name: list(p.shape) for p in main.all_parameters()}
        return res, params, main
    finally:
        oar.disable_static()


def _norm(a, axes, eps=1e-5):
    return (a - a.mean(axes, keepdims=True)) / np.sqrt(a.var(axes, keepdims=True) + eps)


def test_group_and_instance_norm_match_numpy_and_paddle_names():
    def build():
        x = oar.static.data("x", [None, 4, 3, 3])
        return oar.static.nn.group_norm(x, groups=2, act="relu"), oar.static.nn.instance_norm(x)
    (g, i), params, _ = _run(build, {"x": X})
    grouped = _norm(X.reshape(2, 2, -1), (2,)).reshape(X.shape)
    np.testing.assert_allclose(g, np.maximum(grouped, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(i, _norm(X, (2, 3)), rtol=1e-5, atol=1e-5)
    # Paddle 3.3.1 (legacy static mode) gives 1.3374041 and 0.9770609 for these first elements
    assert abs(g.ravel()[0] - 1.3374041) < 1e-5 and abs(i.ravel()[0] - 0.9770609) < 1e-5
    names = sorted(n.split(".")[1] for n in params if n.startswith(("group_norm", "instance_norm")))
    assert names == ["b_0", "b_0", "w_0", "w_0"]


def test_group_norm_refuses_indivisible_channels():
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            with pytest.raises(ValueError, match="3 groups"):
                oar.static.nn.group_norm(oar.static.data("x", [None, 4, 3, 3]), groups=3)
    finally:
        oar.disable_static()


@pytest.mark.parametrize("mode,shape", [("all", [1]), ("channel", [1, 4, 1, 1]), ("element", [1, 4, 3, 3])])
def test_prelu_modes(mode, shape):
    alpha = RS.rand(*shape).astype("float32")

    def build():
        attr = oar.ParamAttr(initializer=oar.nn.initializer.Assign(alpha))
        return (oar.static.nn.prelu(oar.static.data("x", [None, 4, 3, 3]), mode, param_attr=attr),)
    (y,), params, _ = _run(build, {"x": X})
    assert list(params.values()) == [shape] and list(params)[0].startswith("prelu_")
    np.testing.assert_allclose(y, np.where(X > 0, X, alpha * X), rtol=1e-6)


def test_prelu_default_alpha_is_a_quarter():
    y = oar.static.nn.prelu(oar.to_tensor([-4.0, 2.0]), "all")
    assert y.numpy().tolist() == [-1.0, 2.0]


def test_spectral_norm_divides_by_the_power_iteration_sigma():
    w0 = RS.randn(4, 2, 3).astype("float32")

    def build():
        w = oar.static.create_parameter([4, 2, 3], "float32", name="sn_w",
                                        attr=oar.ParamAttr(initializer=oar.nn.initializer.Assign(w0)))
        return oar.static.nn.spectral_norm(w, dim=1, power_iters=3), w
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            out, _ = build()
        exe = oar.static.Executor()
        exe.run(startup)
        got, = exe.run(main, fetch_list=[out])
        u_name, v_name = [p.name for p in main.all_parameters() if p.name.startswith("spectral_norm")]
        u, v = (np.asarray(oar.static.global_scope().find_var(n).get_tensor()) for n in (u_name, v_name))
    finally:
        oar.disable_static()
    assert u.shape == (2,) and v.shape == (12,)
    mat = w0.transpose(1, 0, 2).reshape(2, 12)
    for _ in range(3):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + 1e-12)
        u = mat @ v
        u = u / (np.linalg.norm(u) + 1e-12)
    np.testing.assert_allclose(got, w0 / (u @ mat @ v), rtol=1e-5)


def test_spectral_norm_converges_to_unit_top_singular_value():
    w = oar.to_tensor(RS.randn(5, 3).astype("float32"))
    out = oar.static.nn.spectral_norm(w, power_iters=50)
    assert abs(np.linalg.svd(out.numpy(), compute_uv=False)[0] - 1) < 1e-4


def test_row_conv_looks_ahead():
    r = RS.randn(2, 5, 3).astype("float32")
    w = RS.randn(3, 3).astype("float32")

    def build():
        attr = oar.ParamAttr(initializer=oar.nn.initializer.Assign(w))
        return (oar.static.nn.row_conv(oar.static.data("r", [None, None, 3]), 2, param_attr=attr),)
    (y,), params, _ = _run(build, {"r": r})
    padded = np.concatenate([r, np.zeros((2, 2, 3), "float32")], axis=1)
    want = sum(padded[:, i:i + 5] * w[i] for i in range(3))
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    assert list(params.values()) == [[3, 3]]


def test_deform_conv2d_matches_paddle():
    rs = np.random.RandomState(0)
    x, off = rs.randn(1, 2, 4, 4).astype("float32"), rs.randn(1, 18, 4, 4).astype("float32") * 0.5
    mask = rs.rand(1, 9, 4, 4).astype("float32")

    def build():
        return (oar.static.nn.deform_conv2d(oar.static.data("x", [1, 2, 4, 4]), oar.static.data("o", [1, 18, 4, 4]),
                                            oar.static.data("m", [1, 9, 4, 4]), 3, 3, padding=1,
                                            weight_attr=oar.nn.initializer.Constant(0.1)),)
    (y,), params, _ = _run(build, {"x": x, "o": off, "m": mask})
    # Paddle 3.3.1 (legacy static mode), same inputs: the first five outputs
    np.testing.assert_allclose(y.ravel()[:5], [0.22264819, 0.25392553, 0.14019257, 0.16846846, 0.1465124],
                               rtol=1e-5)
    assert [n.split(".")[0].rsplit("_", 1)[0] for n in params] == ["deformable_conv"] * 2


def test_py_func_forward_and_backward():
    seen = []

    def backward(x, y, dy):
        seen.append(dy.shape)
        return dy * (1 - np.asarray(y) ** 2)

    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [3])
            x.stop_gradient = False
            y = main.current_block().create_var(name="y", shape=[3], dtype="float32")
            y = oar.static.nn.py_func(np.tanh, x, y, backward_func=backward)
            loss = oar.sum(y * 2)
            gx, = oar.static.gradients([loss], [x])
        exe = oar.static.Executor()
        xv = np.array([0.1, -0.5, 2.0], "float32")
        yv, gv = exe.run(main, feed={"x": xv}, fetch_list=[y, gx])
    finally:
        oar.disable_static()
    np.testing.assert_allclose(yv, np.tanh(xv), rtol=1e-6)
    np.testing.assert_allclose(gv, 2 * (1 - np.tanh(xv) ** 2), rtol=1e-5)
    assert seen == [(3,)]


def test_py_func_without_outputs_runs_for_its_effect_and_checks_dtypes():
    calls = []
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main):
            x = oar.static.data("x", [2])
            oar.static.py_func(lambda a: calls.append(a.tolist()), x, None)
        exe = oar.static.Executor()
        exe.run(main, feed={"x": np.ones(2, "float32")})
        assert calls == [[1.0, 1.0]]
        main = oar.static.Program()
        with oar.static.program_guard(main):
            x = oar.static.data("x", [2])
            bad = main.current_block().create_var(name="bad", shape=[2], dtype="int64")
            oar.static.py_func(lambda a: a, x, bad)
        with pytest.raises(TypeError, match="int64"):
            exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[bad])
    finally:
        oar.disable_static()


def test_py_func_needs_static_mode():
    with pytest.raises(RuntimeError, match="enable_static"):
        oar.static.py_func(np.tanh, oar.ones([2]), None)


def test_static_pylayer_gradient_is_backward_fn():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [3])
            x.stop_gradient = False
            w = oar.static.create_parameter([3], "float32", name="spl_w",
                                            default_initializer=oar.nn.initializer.Constant(3.0))
            y = oar.static.nn.static_pylayer(lambda a, b: oar.exp(a) * b, [x, w], lambda dy: (dy * 2, dy * 5))
            gx, gw = oar.static.gradients([oar.sum(y)], [x, w])
            z = oar.static.nn.static_pylayer(lambda a: (a * 2, [a + 1]), [x])  # no backward_fn: no gradient
            assert oar.static.gradients([oar.sum(z[0])], [x]) == [None]
        exe = oar.static.Executor()
        exe.run(startup)
        out = exe.run(main, feed={"x": np.zeros(3, "float32")}, fetch_list=[y, gx, gw, z[1][0]])
        with oar.static.program_guard(oar.static.Program()):
            v = oar.static.data("v", [2])
            v.stop_gradient = False
            bad = oar.static.nn.static_pylayer(lambda a: a * 1, [v], lambda dy: (dy, dy))
            with pytest.raises(ValueError, match="2 gradients for 1 inputs"):
                oar.static.gradients([oar.sum(bad)], [v])
    finally:
        oar.disable_static()
    # Paddle 3.3.1, the same program: [3, 3, 3], [2, 2, 2], [5, 5, 5]
    assert [o.tolist() for o in out[:3]] == [[3.0] * 3, [2.0] * 3, [5.0] * 3]
    assert out[3].tolist() == [1.0] * 3
    with pytest.raises(RuntimeError, match="enable_static"):
        oar.static.nn.static_pylayer(lambda a: a, [oar.ones([1])])
