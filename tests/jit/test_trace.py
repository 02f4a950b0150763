"""Tracing (`oar.jit.trace`, `oar.jit.TracedLayer`): recorded programs equal eager runs, Python decisions are
guarded (retrace or raise naming the line), code without readable source traces, the programs save, load in
the predictor and oar.lite and export to ONNX, check mode catches a difference, and what a trace refuses."""
import os
import sys
import textwrap

import numpy as np
import pytest

import oar
import oar.lite
import oar.nn as nn
from oar.jit.recorder import TraceError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "static"))
from test_train_static import LeNet, LinearNet  # noqa: E402


# ---- models: traced == eager ----------------------------------------------------------------------------------
@pytest.mark.parametrize("make, shape", [(LinearNet, [16, 784]), (LeNet, [4, 1, 28, 28])])
def test_models_traced_equal_eager_float64(float64, make, shape):
    oar.seed(3)
    net = make()
    net.eval()
    r = np.random.default_rng(0)
    xs = [oar.to_tensor(r.standard_normal(shape)) for _ in range(3)]
    out, traced = oar.jit.TracedLayer.trace(net, [xs[0]])
    assert out.dtype == oar.float64
    fn = oar.jit.trace(net)
    for x in xs:
        want = net(x).numpy()
        got, = traced([x])
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(fn(x).numpy(), want, rtol=1e-12, atol=1e-12)
    assert fn.num_traces == 1
    assert isinstance(traced.program, oar.static.Program)


def test_gradients_through_the_traced_program(float64):
    oar.seed(5)
    net = LinearNet()
    x = oar.to_tensor(np.random.default_rng(1).standard_normal([8, 784]))
    fn = oar.jit.trace(lambda x: (net(x) ** 2).mean())
    fn(x)                                   # traces
    loss = fn(x)                            # runs the program (one differentiable op)
    loss.backward()
    got = [p.grad.numpy() for p in net.parameters()]
    net.clear_gradients()
    (net(x) ** 2).mean().backward()
    for g, p in zip(got, net.parameters()):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_parameters_are_read_live():
    net = nn.Linear(2, 2)
    fn = oar.jit.trace(net)
    x = oar.ones([1, 2])
    fn(x)
    net.weight.set_value(np.zeros([2, 2], "float32"))
    np.testing.assert_array_equal(fn(x).numpy(), net.bias.numpy()[None])


def test_new_signature_traces_again():
    fn = oar.jit.trace(lambda x, k: x * k)
    assert fn(oar.ones([2]), 2).numpy().tolist() == [2.0, 2.0]
    assert fn(oar.ones([3]), 2).numpy().tolist() == [2.0] * 3
    assert fn(oar.ones([3]), 5).numpy().tolist() == [5.0] * 3   # a Python argument's value is part of the key
    assert fn.num_traces == 3


# ---- guards -----------------------------------------------------------------------------------------------------
def _branchy(x):
    if x.sum() > 0:
        return x * 2
    return -x


def test_a_flipped_branch_retraces():
    fn = oar.jit.trace(_branchy)
    assert fn(oar.ones([2])).numpy().tolist() == [2.0, 2.0]
    assert fn(oar.full([2], 3.0)).numpy().tolist() == [6.0, 6.0]   # same decision: the program
    assert fn.num_traces == 1
    assert fn(-oar.ones([2])).numpy().tolist() == [1.0, 1.0]        # flipped: traced again, eager value
    assert fn.num_traces == 2 and "if x.sum() > 0:" in fn.retrace_reasons[0]
    assert fn(-oar.full([2], 2.0)).numpy().tolist() == [2.0, 2.0]  # the new program
    assert fn.num_traces == 2


def test_a_flipped_branch_raises_naming_the_line():
    fn = oar.jit.trace(_branchy, on_change="raise")
    fn(oar.ones([2]))
    with pytest.raises(oar.jit.TraceGuardError) as e:
        fn(-oar.ones([2]))
    line = _branchy.__code__.co_firstlineno + 1
    assert f"test_trace.py:{line}" in str(e.value) and "if x.sum() > 0:" in str(e.value)
    assert "was True when traced; now False" in str(e.value)


def test_loop_count_from_int_and_item_and_numpy_are_guarded():
    def f(x, n):
        for _ in range(int(n)):
            x = x + 1.0
        if n.item() > 100:
            x = x * 0
        return x * float(n.numpy().sum())
    fn = oar.jit.trace(f, on_change="raise")
    x = oar.zeros([2])
    assert fn(x, oar.to_tensor(3)).numpy().tolist() == [9.0, 9.0]
    assert fn(x, oar.to_tensor(3)).numpy().tolist() == [9.0, 9.0]
    assert [g.kind for g in fn.guards] == ["int", "item", "numpy"]
    with pytest.raises(oar.jit.TraceGuardError, match=r"int\(\) of a tensor at .*for _ in range\(int\(n\)\)"):
        fn(x, oar.to_tensor(4))


def test_data_dependent_shape_is_guarded():
    def f(x):
        idx = oar.nonzero(x > 0)
        return x * idx.shape[0]      # a shape known only from the values
    fn = oar.jit.trace(f)
    assert fn(oar.to_tensor([1.0, -1.0, 2.0])).numpy().tolist() == [2.0, -2.0, 4.0]
    assert fn(oar.to_tensor([1.0, 1.0, 2.0])).numpy().tolist() == [3.0, 3.0, 6.0]
    assert fn.num_traces == 2 and "data-dependent shape" in fn.retrace_reasons[0]


def test_tensor_to_tensor_copy_is_guarded():
    fn = oar.jit.trace(lambda x: oar.to_tensor(x) + 1.0, on_change="raise")
    fn(oar.zeros([2]))
    with pytest.raises(oar.jit.TraceGuardError, match="numpy"):
        fn(oar.ones([2]))


# ---- code without readable source -------------------------------------------------------------------------------
def test_exec_defined_function_and_lambda_trace():
    ns = {"oar": oar}
    exec(textwrap.dedent("""
        def f(x):
            if x.mean() > 0:
                return oar.tanh(x) * 3.0
            return x
        g = lambda x: oar.exp(x) - 1.0
    """), ns)
    for fn, ref in ((ns["f"], lambda a: np.tanh(a) * 3.0), (ns["g"], lambda a: np.exp(a) - 1.0)):
        t = oar.jit.trace(fn)
        for a in (np.array([0.5, 1.0]), np.array([0.25, 2.0])):
            np.testing.assert_allclose(t(oar.to_tensor(a, dtype="float64")).numpy(), ref(a), rtol=1e-12)
        assert t.num_traces == 1
    with pytest.raises(oar.jit.TraceGuardError, match="<string>:3"):
        t = oar.jit.trace(ns["f"], on_change="raise")
        t(oar.ones([2]))
        t(-oar.ones([2]))


# ---- check mode ---------------------------------------------------------------------------------------------------
def test_check_mode_catches_an_untraced_python_dependency():
    state = {"k": 2.0}
    fn = oar.jit.trace(lambda x: x * state["k"], check=True)
    fn(oar.ones([2]))
    fn(oar.ones([2]))
    state["k"] = 3.0                      # Python state the trace baked in, no tensor conversion to guard
    with pytest.raises(AssertionError, match="trace check: output 0 .* differs between eager and traced"):
        fn(oar.ones([2]))


# ---- what a trace refuses -------------------------------------------------------------------------------------------
def test_backward_and_optimizer_step_inside_are_replayed():
    net = nn.Linear(2, 1)
    ref = nn.Linear(2, 1)
    ref.set_state_dict(net.state_dict())
    opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
    ropt = oar.optimizer.SGD(0.1, parameters=ref.parameters())

    def step(x):                       # no clear_grad: each call accumulates into .grad, as eager
        loss = net(x).sum()
        loss.backward()
        opt.step()
        return loss
    fn = oar.jit.trace(step)
    for _ in range(4):
        fn(oar.ones([1, 2]))
        ref(oar.ones([1, 2])).sum().backward()
        ropt.step()
    np.testing.assert_allclose(net.weight.numpy(), ref.weight.numpy(), rtol=1e-6)
    np.testing.assert_allclose(net.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-6)
    assert fn.num_traces == 2  # the first call made the gradients; the second traced accumulating into them


def test_refuses_in_place_writes_into_arguments():
    with pytest.raises(TraceError, match="changes its input"):
        oar.jit.trace(lambda x: x.add_(oar.ones([2])))(oar.zeros([2]))


def test_hook_is_removed_after_tracing():
    from oar.core.state import mode
    from oar.eager import tensor as eager_tensor
    oar.jit.trace(lambda x: x + 1)(oar.ones([1]))
    assert mode().hook is None and eager_tensor.OBSERVE is None


def test_other_threads_ops_are_not_recorded():
    import threading
    seen = []

    def f(x):
        t = threading.Thread(target=lambda: seen.append(oar.ones([3]) * 5.0))
        t.start()
        t.join()
        return x + 1.0
    fn = oar.jit.trace(f)
    fn(oar.ones([2]))
    assert [op.type for op in fn.program.global_block().ops] == ["add"]
    assert seen[0].numpy().tolist() == [5.0] * 3


def test_traced_layer_refuses_other_shapes_and_flipped_branches():
    class Net(nn.Layer):
        def forward(self, x):
            return x if x.sum() > 0 else -x
    _, traced = oar.jit.TracedLayer.trace(Net(), [oar.ones([2])])
    with pytest.raises(ValueError, match=r"traced for inputs \[2\] float32, called with \[3\] float32"):
        traced([oar.ones([3])])
    with pytest.raises(oar.jit.TraceGuardError, match="x if x.sum"):
        traced([-oar.ones([2])])


# ---- save, predictor, lite, ONNX ----------------------------------------------------------------------------------
def _model():
    oar.seed(9)
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    net.eval()
    return net


def test_saved_traced_layer_runs_in_predictor_lite_and_jit_load(tmp_path):
    net = _model()
    x = oar.to_tensor(np.random.default_rng(2).standard_normal([5, 4]).astype("float32"))
    out, traced = oar.jit.TracedLayer.trace(net, [x])
    path = str(tmp_path / "traced")
    traced.save_inference_model(path)
    want = out.numpy()
    np.testing.assert_array_equal(oar.jit.load(path)(x).numpy(), want)
    from oar.inference import Config, create_predictor
    pred = create_predictor(Config(path + ".pdmodel", path + ".pdiparams"))
    h = pred.get_input_handle(pred.get_input_names()[0])
    h.copy_from_cpu(x.numpy())
    pred.run()
    got = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    lite = oar.lite.load(path)
    lh = lite.get_input(0)
    lh.from_numpy(x.numpy())
    lite.run()
    np.testing.assert_allclose(lite.get_output(0).numpy(), want, rtol=1e-6, atol=1e-6)


def test_jit_save_of_a_traced_function(tmp_path):
    net = _model()
    fn = oar.jit.trace(lambda x: oar.nn.functional.softmax(net(x)))
    x = oar.ones([2, 4])
    want = fn(x).numpy()
    oar.jit.save(fn, str(tmp_path / "fn"))
    np.testing.assert_allclose(oar.jit.load(str(tmp_path / "fn"))(x).numpy(), want, rtol=1e-6)


def test_save_inference_model_feed_and_fetch(tmp_path):
    class Two(nn.Layer):
        def forward(self, a, b):
            return a * 2.0, a + b
    _, traced = oar.jit.TracedLayer.trace(Two(), [oar.ones([2]), oar.ones([2])])
    traced.save_inference_model(str(tmp_path / "one"), feed=[0], fetch=[0])
    loaded = oar.jit.load(str(tmp_path / "one"))
    assert loaded(oar.full([2], 3.0)).numpy().tolist() == [6.0, 6.0]
    with pytest.raises(ValueError, match="need inputs"):
        traced.save_inference_model(str(tmp_path / "bad"), feed=[0], fetch=[1])


def test_guarded_trace_warns_when_saved(tmp_path):
    class Net(nn.Layer):
        def forward(self, x):
            return x if x.sum() > 0 else -x
    _, traced = oar.jit.TracedLayer.trace(Net(), [oar.ones([2])])
    with pytest.warns(UserWarning, match="bakes in the Python decisions made at .*test_trace.py"):
        traced.save_inference_model(str(tmp_path / "g"))


def test_onnx_export_of_a_traced_layer(tmp_path):
    onnx = pytest.importorskip("onnx")
    net = _model()
    x = oar.to_tensor(np.random.default_rng(3).standard_normal([5, 4]).astype("float32"))
    out, traced = oar.jit.TracedLayer.trace(net, [x])
    file = oar.onnx.export(traced, str(tmp_path / "m"))
    model = onnx.load(file)
    try:
        import onnxruntime as ort
        sess = ort.InferenceSession(file)
        got = sess.run(None, {model.graph.input[0].name: x.numpy()})[0]
    except ImportError:
        from onnx.reference import ReferenceEvaluator
        got = ReferenceEvaluator(model).run(None, {model.graph.input[0].name: x.numpy()})[0]
    np.testing.assert_allclose(got, out.numpy(), rtol=1e-5, atol=1e-6)


def test_build_strategy_passes_run_on_the_traced_program():
    net = _model()
    bs = oar.static.BuildStrategy()
    bs.fuse_gemm_epilogue = True
    fn = oar.jit.trace(net, build_strategy=bs)
    x = oar.ones([2, 4])
    want = fn(x).numpy()
    np.testing.assert_allclose(fn(x).numpy(), want, rtol=1e-6)
    ran = fn._last._run.run_program
    assert [op.type for op in ran.global_block().ops] != [op.type for op in fn.program.global_block().ops]


def test_refuses_backward_into_an_input_inside():
    def f(x):
        (x * x).sum().backward()
        return x * 1.0
    with pytest.raises(TraceError, match="changes the .grad of its input"):
        oar.jit.trace(f)(oar.to_tensor([1.0, 2.0], stop_gradient=False))


def test_batch_norm_in_train_mode_updates_its_running_statistics():
    oar.seed(4)
    bn, ref = nn.BatchNorm1D(3), nn.BatchNorm1D(3)
    fn = oar.jit.trace(bn)
    for _ in range(3):
        x = oar.randn([4, 3])
        np.testing.assert_array_equal(fn(x).numpy(), ref(x).numpy())
        np.testing.assert_array_equal(bn._mean.numpy(), ref._mean.numpy())
        np.testing.assert_array_equal(bn._variance.numpy(), ref._variance.numpy())
    assert fn.num_traces == 1 and [op.type for op in fn.program.global_block().ops][-2:] == ["assign", "assign"]


def test_set_value_of_an_outside_tensor_is_replayed_and_an_untracked_write_refused():
    state = oar.zeros([2])
    fn = oar.jit.trace(lambda x: state.set_value(state + x) or x * 2.0)
    for _ in range(3):
        fn(oar.ones([2]))
    assert state.numpy().tolist() == [3.0, 3.0] and fn.num_traces == 1
    acc = oar.zeros([2])

    def f(x):
        y = x * acc
        acc._data = np.ones(2, np.float32)   # a write that no recorded op made
        return y
    with pytest.raises(TraceError, match="changes its value of the tensor"):
        oar.jit.trace(f)(oar.ones([2]))


@pytest.mark.parametrize("make, shape, steps", [(LinearNet, [16, 784], 20), (LeNet, [4, 1, 28, 28], 3)])
def test_training_through_a_traced_forward_gives_eagers_parameters(float64, make, shape, steps):
    def train(traced):
        oar.seed(1)
        net = make()
        fwd = oar.jit.trace(net) if traced else net
        opt = oar.optimizer.Adam(1e-3, parameters=net.parameters())
        r = np.random.default_rng(0)
        for _ in range(steps):
            x = oar.to_tensor(r.standard_normal(shape))
            y = oar.to_tensor(r.integers(0, 10, (shape[0], 1)))
            nn.functional.cross_entropy(fwd(x), y).backward()
            opt.step()
            opt.clear_grad()
        return [p.numpy() for p in net.parameters()], (fwd.num_traces if traced else 1)
    want, _ = train(False)
    got, traces = train(True)
    assert traces == 1
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
