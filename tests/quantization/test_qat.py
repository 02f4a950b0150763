"""Quantization-aware training: fake quanters (forward as Paddle, straight-through gradient), QAT.quantize/convert,
eager == to_static == a captured train step, and the int8 export (jit.save, QDQ model natively, in ONNX Runtime,
under the server)."""
import copy
import warnings

import numpy as np
import pytest

import oar
from oar import inference, nn
from oar.ops.quant import fake_quantize_dequantize
from oar.quantization import QAT, QuantConfig
from oar.quantization.qat_layers import LinearQuanterDequanter, ObserveWrapper, QuantedConv2D, QuantedLinear
from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
from oar.static import InputSpec

rng = np.random.default_rng(30)
SPEC = [InputSpec([None, 1, 8, 8], "float32", "x")]


def cnn():
    oar.seed(3)
    return nn.Sequential(nn.Conv2D(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2), nn.Conv2D(8, 16, 3, padding=1),
                         nn.ReLU(), nn.Flatten(), nn.Linear(16 * 16, 10))


def qat():
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    return QAT(QuantConfig(activation=q, weight=q))


def batch(n=8):
    return (oar.to_tensor(rng.standard_normal([n, 1, 8, 8]).astype("float32")),
            oar.to_tensor(rng.integers(0, 10, [n, 1]).astype("int64")))


def trained(steps=20):
    """A QAT model trained for `steps` steps (scales settled near the activations' ranges)."""
    model = qat().quantize(cnn())
    opt = oar.optimizer.Adam(0.01, parameters=model.parameters())
    for _ in range(steps):
        x, y = batch()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return model


def test_fake_quant_forward_rounds_half_away_from_zero_and_clips():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 126.5, 127.4, 300.0, -300.0], "float32")
    got = fake_quantize_dequantize(oar.to_tensor(x), oar.to_tensor([127.0])).numpy()
    np.testing.assert_array_equal(got, [1, 2, 3, -1, -3, 127, 127, 127, -127])
    # 4 bits: 7 levels per side of [-s, s]
    got = fake_quantize_dequantize(oar.to_tensor([0.3, -0.99]), oar.to_tensor([1.0]), bit_length=4).numpy()
    np.testing.assert_allclose(got, [2 / 7, -1.0], rtol=1e-6)


def test_straight_through_gradient_is_the_identity_inside_and_outside_the_range_float64():
    """Paddle 3.3.1's fake_quantize_dequantize_moving_average_abs_max passes the gradient unchanged everywhere
    (not zero outside [-s, s]); the rounding's true derivative is 0 almost everywhere, so a finite difference
    says nothing about an STE: the rule itself is what is checked, in float64."""
    x = oar.to_tensor(np.array([-5.0, -1.0, -0.3, 0.0, 0.2, 0.99, 1.0, 7.0]), stop_gradient=False)
    scale = oar.to_tensor(np.array([1.0]))
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    y = fake_quantize_dequantize(x, scale)
    assert y.dtype == oar.float64
    (y * oar.to_tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w)
    # the quanter layer: its statistics take no gradient, the input gets the identity
    layer = FakeQuanterWithAbsMaxObserver()._instance(None)
    x = oar.to_tensor(np.array([-3.0, 0.5, 2.0], "float32"), stop_gradient=False)
    layer(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    assert layer._scale.grad is None


def test_moving_average_statistics_follow_paddles_formula():
    layer = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
    np.testing.assert_allclose([layer._scale.numpy(), layer._state.numpy(), layer._accum.numpy()],
                               [[0.001], [1.0], [1.0]])
    state, accum = 1.0, 1.0
    for x in (np.array([-3.0, 1.0]), np.array([0.5, 6.0]), np.array([0.25, -0.5])):
        out = layer(oar.to_tensor(x.astype("float32"))).numpy()
        state, accum = 0.9 * state + 1, 0.9 * accum + np.abs(x).max()
        np.testing.assert_allclose(layer._state.numpy(), [state], rtol=1e-6)
        np.testing.assert_allclose(layer._scale.numpy(), [accum / state], rtol=1e-6)
        s = accum / state
        want = np.copysign(np.floor(np.abs(np.clip(x, -s, s) * 127 / s) + 0.5), x) * s / 127
        np.testing.assert_allclose(out, want, rtol=1e-5)
    layer.eval()
    before = layer._scale.numpy().copy()
    layer(oar.to_tensor(np.array([100.0], "float32")))
    np.testing.assert_array_equal(layer._scale.numpy(), before)  # eval: statistics frozen


def test_quantize_replaces_layers_and_follows_the_config():
    model = qat().quantize(cnn())
    kinds = [type(m) for m in model.children()]
    assert kinds == [QuantedConv2D, ObserveWrapper, ObserveWrapper, QuantedConv2D, ObserveWrapper, ObserveWrapper,
                     QuantedLinear]
    # the float layer's parameters are kept under their keys
    assert {"0.weight", "0.bias", "6.weight", "0.weight_quanter._scale"} <= set(model.state_dict())
    config = QuantConfig(activation=FakeQuanterWithAbsMaxObserver(), weight=FakeQuanterWithAbsMaxObserver())
    config.add_type_config(nn.Linear, activation=None, weight=None)
    net = cnn()
    out = QAT(config).quantize(net)
    assert isinstance(out[6], nn.Linear) and isinstance(out[0], QuantedConv2D)
    assert isinstance(net[0], nn.Conv2D)  # not in place: the float model is untouched
    with pytest.raises(ValueError, match="train mode"):
        qat().quantize(cnn().eval())


def test_training_eager_equals_to_static_and_captured_train_step():
    base = qat().quantize(cnn())
    models = [copy.deepcopy(base) for _ in range(3)]
    opts = [oar.optimizer.SGD(0.05, parameters=m.parameters()) for m in models]
    fwd = oar.jit.to_static(models[1].forward)

    def step_eager(x, y):
        loss = nn.functional.cross_entropy(models[0](x), y)
        loss.backward()
        opts[0].step()
        opts[0].clear_grad()
        return loss

    def step_converted(x, y):
        loss = nn.functional.cross_entropy(fwd(x), y)
        loss.backward()
        opts[1].step()
        opts[1].clear_grad()
        return loss

    @oar.jit.to_static
    def step_captured(x, y):
        loss = nn.functional.cross_entropy(models[2](x), y)
        loss.backward()
        opts[2].step()
        opts[2].clear_grad()
        return loss

    for _ in range(4):
        x, y = batch()
        losses = [float(f(x, y)) for f in (step_eager, step_converted, step_captured)]
        np.testing.assert_allclose(losses[1:], [losses[0]] * 2, rtol=1e-5)
    states = [m.state_dict() for m in models]
    for k, v in states[0].items():
        for other in states[1:]:
            np.testing.assert_allclose(other[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    assert float(states[0]["1._observer._state"].numpy()[0]) != 1.0  # the statistics really moved


def test_convert_freezes_the_trained_model_exactly(tmp_path):
    model = trained()
    model.eval()
    x, _ = batch(16)
    want = model(x).numpy()
    converted = qat().convert(model)
    assert isinstance(converted[1]._observer, LinearQuanterDequanter) and converted[0].converted
    assert converted[0].weight_int8.dtype == oar.int8 and "weight" not in converted[0].state_dict()
    np.testing.assert_array_equal(converted(x).numpy(), want)
    np.testing.assert_array_equal(oar.jit.to_static(converted.forward)(x).numpy(), want)
    oar.jit.save(converted, str(tmp_path / "fake"), input_spec=SPEC)
    pred = inference.create_predictor(inference.Config(str(tmp_path / "fake")))
    np.testing.assert_allclose(pred.run([x.numpy()])[0], want, rtol=1e-5, atol=1e-6)


def test_save_quantized_model_writes_ptqs_qdq_form_native_onnxruntime_and_served(tmp_path):
    model = trained()
    model.eval()
    x, _ = batch(16)
    want = qat().convert(model)(x).numpy()
    path = qat().save_quantized_model(model, str(tmp_path / "int8"), input_spec=SPEC)
    assert path.endswith("int8.pdmodel")
    from oar.graph.model_files import load_files
    rec, arrays = load_files(path, str(tmp_path / "int8.pdiparams"))
    ops = [o.type for o in rec.infer_program.global_block().ops]
    assert ops.count("fused_conv2d") == 2 and ops.count("fused_linear") == 1 and "conv2d" not in ops
    assert {"int8", "int32", "uint8"} <= {a.dtype.name for a in arrays.values()}
    assert "float32" not in {arrays[n].dtype.name for o in rec.infer_program.global_block().ops
                             if o.type.startswith("fused_") for n in o.input_names() if n in arrays}
    native = inference.create_predictor(inference.Config(str(tmp_path / "int8")))
    got = native.run([x.numpy()])[0]
    # PTQ's layout drops two of QAT's roundings (before and after each relu) and the clip of relu outputs above
    # 127 steps: close, not bit-equal (the jit.save form above is)
    np.testing.assert_allclose(got, want, atol=0.1 * np.abs(want).max())
    assert (got.argmax(1) == want.argmax(1)).mean() >= 0.9
    pytest.importorskip("onnxruntime")
    config = inference.Config(str(tmp_path / "int8"))
    config.enable_onnxruntime()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ort = inference.create_predictor(config)
    assert ort.backend == "onnxruntime"
    # ONNX Runtime requantizes each int8 conv's int32 sum once (the native predictor in float): an activation may
    # land on the neighbouring level, which the next layers carry on
    got = ort.run([x.numpy()])[0]
    np.testing.assert_allclose(got, want, atol=0.15 * np.abs(want).max())
    assert (got.argmax(1) == want.argmax(1)).mean() >= 0.9


def test_onnxruntime_runs_every_qat_conv_as_an_int8_kernel(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from oar.onnx.exporter import program_to_onnx
    qat().save_quantized_model(trained(3), str(tmp_path / "int8"), input_spec=SPEC)
    config = inference.Config(str(tmp_path / "int8"))
    config.enable_onnxruntime()
    pred = inference.create_predictor(config)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    model = program_to_onnx(pred.program, pred.inputs, pred.outputs, scope=pred.scope)
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    types = [n.op_type for n in onnx.load(str(tmp_path / "optimized.onnx")).graph.node]
    assert types.count("QLinearConv") == 2 and "Conv" not in types


def test_served_int8_model_answers_like_the_predictor(tmp_path):
    httpclient = pytest.importorskip("tritonclient.http")
    from oar.serving import ServedModel, Server
    model = trained(3)
    qat().save_quantized_model(model, str(tmp_path / "int8"), input_spec=SPEC)
    x = batch(4)[0].numpy()
    want = inference.create_predictor(inference.Config(str(tmp_path / "int8"))).run([x])[0]
    with Server({"qat": ServedModel("qat", str(tmp_path / "int8"), workers=1)}) as s:
        c = httpclient.InferenceServerClient(f"127.0.0.1:{s.port}", connection_timeout=30, network_timeout=30)
        try:
            i = httpclient.InferInput("x", list(x.shape), "FP32")
            i.set_data_from_numpy(x)
            r = c.infer("qat", [i])
            got = r.as_numpy(r.get_response()["outputs"][0]["name"])
        finally:
            c.close()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_convert_refuses_remain_weight():
    with pytest.raises(NotImplementedError, match="remain_weight"):
        qat().convert(qat().quantize(cnn()), remain_weight=True)
