"""paddle.static's ExponentialMovingAverage, WeightNormParamAttr, cpu_places and device_guard."""
import numpy as np
import pytest

import oar


@pytest.fixture
def static():
    oar.enable_static()
    yield
    oar.disable_static()


def _value(name):
    return np.array(oar.static.global_scope().find_var(name).get_tensor())


@pytest.mark.parametrize("thres", [False, True])
def test_ema_tracks_sgd_and_applies_bias_corrected_average(static, thres):
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        x = oar.static.data("x", [None, 2])
        w = oar.static.create_parameter([2, 1], "float32", name="ema_w",
                                        default_initializer=oar.nn.initializer.Constant(1.0))
        loss = oar.mean(oar.matmul(x, w))
        oar.optimizer.SGD(0.5).minimize(loss)
        step = oar.static.create_global_var([1], 0.0, "float32", persistable=True, name="thres_t") if thres else None
        if thres:
            oar.static.nn.cond(step >= 0, lambda: oar.assign(step + 1.0, step), lambda: step)
        ema = oar.static.ExponentialMovingAverage(0.9, thres_steps=step)
        ema.update()
    exe = oar.static.Executor()
    exe.run(startup)
    xv = np.array([[1.0, 2.0]], "float32")
    wv, avg, pow_ = np.ones((2, 1), "float32"), np.zeros((2, 1)), 1.0
    for t in range(1, 4):
        exe.run(main, feed={"x": xv})
        wv = wv - 0.5 * xv.T  # d mean(x @ w) / dw = x.T
        decay = min(0.9, (t + 1) / (t + 10)) if thres else 0.9
        avg = decay * avg + (1 - decay) * wv
        pow_ = decay ** t  # Paddle corrects with the current decay to the step count
    with ema.apply(exe):
        np.testing.assert_allclose(_value("ema_w"), avg / (1 - pow_), rtol=1e-5)
    np.testing.assert_allclose(_value("ema_w"), wv, rtol=1e-6)
    with ema.apply(exe, need_restore=False):
        pass
    np.testing.assert_allclose(_value("ema_w"), avg / (1 - pow_), rtol=1e-5)
    ema.restore(exe)
    np.testing.assert_allclose(_value("ema_w"), wv, rtol=1e-6)


def test_ema_skips_parameters_without_model_average_and_refuses_dynamic_mode(static):
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        oar.static.create_parameter([1], "float32", name="kept")
        oar.static.create_parameter([1], "float32", name="skipped", attr=oar.ParamAttr(do_model_average=False))
        ema = oar.static.ExponentialMovingAverage()
    assert [p.name for p in ema._params] == ["kept"]
    oar.disable_static()
    with pytest.raises(RuntimeError, match="enable_static"):
        oar.static.ExponentialMovingAverage()


def test_weight_norm_param_attr_reparameterises_and_trains(static):
    v0 = np.arange(1, 7, dtype="float32").reshape(3, 2)
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        x = oar.static.data("x", [None, 3])
        attr = oar.static.WeightNormParamAttr(dim=1, name="wn", initializer=oar.nn.initializer.Assign(v0))
        y = oar.static.nn.fc(x, 2, bias_attr=False, weight_attr=attr)
        oar.optimizer.SGD(0.1).minimize(oar.sum(y))
    assert [(p.name, p.shape) for p in main.all_parameters()] == [("wn_g", [1, 2]), ("wn_v", [3, 2])]
    exe = oar.static.Executor()
    exe.run(startup)
    g0 = np.linalg.norm(v0, axis=0, keepdims=True)
    np.testing.assert_allclose(_value("wn_g"), g0, rtol=1e-6)
    xv = np.array([[1.0, -1.0, 2.0]], "float32")
    out, = exe.run(main, feed={"x": xv}, fetch_list=[y])
    np.testing.assert_allclose(out, xv @ v0, rtol=1e-5)  # w starts as the initializer's draw
    # d sum(x @ (g v / |v|)) / dg = sum_i x_i v_ij / |v_j|
    np.testing.assert_allclose(_value("wn_g"), g0 - 0.1 * (xv @ (v0 / g0)), rtol=1e-5)


def test_weight_norm_over_all_dims_and_refused_in_dynamic_mode(static):
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        w = oar.static.create_parameter([2, 2], "float32", attr=oar.static.WeightNormParamAttr(
            name="wa", initializer=oar.nn.initializer.Constant(3.0)))
    exe = oar.static.Executor()
    exe.run(startup)
    assert _value("wa_g").tolist() == [[6.0]]
    assert exe.run(main, fetch_list=[w])[0].tolist() == [[3.0, 3.0], [3.0, 3.0]]
    oar.disable_static()
    with pytest.raises(TypeError, match="static program"):
        oar.create_parameter([2], "float32", attr=oar.static.WeightNormParamAttr())


def test_cpu_places(monkeypatch):
    assert oar.static.cpu_places(3) == [oar.CPUPlace()] * 3
    monkeypatch.setenv("CPU_NUM", "2")
    assert len(oar.static.cpu_places()) == 2
    with pytest.raises(ValueError):
        oar.static.cpu_places(0)


def test_device_guard_accepts_cpu_and_refuses_other_devices(static):
    with oar.static.program_guard(oar.static.Program()):
        with oar.static.device_guard("cpu"):
            oar.static.data("x", [1])
        with pytest.raises(RuntimeError, match="CPU only"):
            with oar.static.device_guard("gpu:0"):
                pass
        with pytest.raises(ValueError, match="must be"):
            with oar.static.device_guard("tpu"):
                pass


def test_name_scope_leaves_the_program_as_paddle_3_does(static):
    def build(scoped):
        main = oar.static.Program()
        with oar.static.program_guard(main):
            x = oar.static.data("x", [2])
            if scoped:
                with oar.static.name_scope("enc"), oar.static.name_scope("layer"):
                    y = x * 2
            else:
                y = x * 2
        return [(op.type, op.inputs, op.outputs, op.attrs) for op in main.global_block().ops], y.name
    assert build(True) == build(False)
    with pytest.raises(ValueError, match="prefix"):
        with oar.static.name_scope(""):
            pass
    oar.disable_static()
    with oar.static.name_scope():  # dynamic mode: nothing to label
        assert oar.ones([1]).numpy().tolist() == [1.0]


def test_ctr_metric_bundle_accumulates_as_paddle(static):
    main, startup = oar.static.Program(), oar.static.Program()
    with oar.static.program_guard(main, startup):
        x = oar.static.data("x", [None, 1])
        y = oar.static.data("y", [None, 1])
        w = oar.static.data("w", [None, 1])
        sums = oar.static.ctr_metric_bundle(x, y, w)
    exe = oar.static.Executor()
    exe.run(startup)
    feed = {"x": np.array([[0.2], [0.7], [0.9]], "float32"), "y": np.array([[0.0], [1.0], [1.0]], "float32"),
            "w": np.array([[0.5], [1.0], [1.0]], "float32")}
    for _ in range(2):
        out = exe.run(main, feed=feed, fetch_list=list(sums))
    # Paddle 3.3.1 (legacy static mode), the same two runs:
    want = [[0.28000003], [1.2000000], [3.6], [[1.928971]], [4.0], [[3.0]]]
    for o, v in zip(out, want):
        assert o.shape == np.asarray(v).shape
        np.testing.assert_allclose(o, v, rtol=1e-6)
    with pytest.raises(ValueError, match="one shape"):
        with oar.static.program_guard(oar.static.Program()):
            oar.static.ctr_metric_bundle(oar.static.data("a", [None, 1]), oar.static.data("b", [None, 2]))
