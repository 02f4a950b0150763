"""PostTrainingQuantization: calibrate, insert QDQ ops, save (model format v2), run natively and in ONNX Runtime."""
import json
import warnings

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar import inference
from oar.graph.model_files import MODEL_FORMAT_VERSION
from oar.jit.save_load import records_from_concrete, save_records
from oar.quantization import PostTrainingQuantization

from fake_concrete import FakeConcrete

rng = np.random.default_rng(6)


def t(a):
    return oar.to_tensor(np.asarray(a, "float32"))


def small_resnet(tmp_path):
    """conv-bn-relu, conv-bn + residual + relu, pool, linear: every pattern the quantizer handles."""
    w1, w2 = t(rng.standard_normal([8, 3, 3, 3]) * 0.3), t(rng.standard_normal([8, 8, 3, 3]) * 0.15)
    bn = [(t(rng.standard_normal(8) * 0.1), t(rng.uniform(0.5, 1.5, 8)), t(rng.uniform(0.5, 1.5, 8)),
           t(rng.standard_normal(8) * 0.1)) for _ in range(2)]
    fw, fb = t(rng.standard_normal([8, 5]) * 0.5), t(rng.standard_normal(5) * 0.1)

    def f(x):
        y = F.relu(F.batch_norm(F.conv2d(x, w1, padding=1), *bn[0], training=False))
        z = F.batch_norm(F.conv2d(y, w2, padding=1), *bn[1], training=False)
        y = F.relu(z + y)
        return F.linear(oar.flatten(F.adaptive_avg_pool2d(y, 1), 1), fw, fb)

    prefix = str(tmp_path / "net")
    save_records(prefix, *records_from_concrete([("forward", FakeConcrete(f, [("x", [-1, 3, 6, 6], "float32")]))]))
    return prefix, lambda x: f(oar.to_tensor(x)).numpy()


def data(n=6):
    return [rng.standard_normal([2, 3, 6, 6]).astype("float32") for _ in range(n)]


@pytest.mark.parametrize("algo", ["abs_max", "avg", "moving_average", "hist", "KL"])
def test_quantized_model_close_to_float(tmp_path, algo):
    prefix, ref = small_resnet(tmp_path)
    calib = data()
    ptq = PostTrainingQuantization(model_dir=prefix, data_loader=[(x, None) for x in calib], batch_nums=4,
                                   algo=algo, bins=256, hist_percent=0.9999)
    prog = ptq.quantize()
    ops = [op.type for op in prog.global_block().ops]
    assert ops.count("fused_conv2d") == 2 and ops.count("fused_linear") == 1
    assert ops.count("quantize_linear") >= 3 and prog.provenance[-2].startswith("quantization: 3 ops")
    int8 = {str(v.dtype) for v in prog.global_block().vars.values() if v.persistable}
    assert {"int8", "int32", "uint8"} <= {d.split(".")[-1] for d in int8}
    out = ptq.save_quantized_model(str(tmp_path / "int8"))
    assert json.load(open(out))["version"] == MODEL_FORMAT_VERSION == 2
    pred = inference.create_predictor(inference.Config(str(tmp_path / "int8")))
    x = calib[0]
    want, got = ref(x), pred.run([x])[0]
    assert not np.allclose(got, want, rtol=0, atol=1e-6)          # it really is quantized ...
    np.testing.assert_allclose(got, want, atol=0.08 * np.abs(want).max())  # ... and close to the float model


def test_onnxruntime_runs_the_int8_program_like_native(tmp_path):
    pytest.importorskip("onnxruntime")
    prefix, _ = small_resnet(tmp_path)
    ptq = PostTrainingQuantization(model_dir=prefix, data_loader=data(), algo="abs_max",
                                   weight_quantize_type="abs_max")
    ptq.quantize()
    ptq.save_quantized_model(str(tmp_path / "int8"))
    native = inference.create_predictor(inference.Config(str(tmp_path / "int8")))
    config = inference.Config(str(tmp_path / "int8"))
    config.enable_onnxruntime()
    config.enable_ort_optimization()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ort_pred = inference.create_predictor(config)
    assert ort_pred.backend == "onnxruntime"
    from oar.onnx.exporter import program_to_onnx
    model = program_to_onnx(ort_pred.program, ort_pred.inputs, ort_pred.outputs, scope=ort_pred.scope)
    types = [n.op_type for n in model.graph.node]
    assert "QuantizeLinear" in types and types.count("DequantizeLinear") >= 9  # weights stay int8 for ORT
    for x in data(3):
        a, b = native.run([x])[0], ort_pred.run([x])[0]
        # int32 accumulation vs float: an activation may round to the neighbouring level
        np.testing.assert_allclose(a, b, atol=0.03 * np.abs(a).max())


def test_loader_forms_and_errors(tmp_path):
    prefix, _ = small_resnet(tmp_path)
    x = data(2)
    for loader in ([{"x": a} for a in x], x, lambda: iter(x)):
        PostTrainingQuantization(model_dir=prefix, data_loader=loader, algo="abs_max").quantize()
    with pytest.raises(ValueError, match="algo must be one of"):
        PostTrainingQuantization(model_dir=prefix, data_loader=x, algo="emd")
    with pytest.raises(ValueError, match="gave no calibration batches"):
        PostTrainingQuantization(model_dir=prefix, data_loader=[], algo="abs_max").quantize()


def test_version_1_model_files_still_load(tmp_path):
    prefix, ref = small_resnet(tmp_path)
    d = json.load(open(prefix + ".pdmodel"))
    d["version"] = 1
    json.dump(d, open(prefix + ".pdmodel", "w"))
    x = data(1)[0]
    np.testing.assert_allclose(inference.create_predictor(inference.Config(prefix)).run([x])[0], ref(x),
                               rtol=1e-4, atol=1e-5)
    d["version"] = 3
    json.dump(d, open(prefix + ".pdmodel", "w"))
    with pytest.raises(ValueError, match=r"version 3 is not supported \(this oar reads versions \[1, 2\]\)"):
        inference.create_predictor(inference.Config(prefix))


def test_float_residual_model_through_onnxruntime(tmp_path):
    """The fused conv + bias + residual + relu op lowers to ONNX (Conv, Add, Relu) and runs in ONNX Runtime."""
    pytest.importorskip("onnxruntime")
    prefix, ref = small_resnet(tmp_path)
    config = inference.Config(prefix)
    config.enable_onnxruntime()
    pred = inference.create_predictor(config)
    fused = [op for op in pred.program.global_block().ops if op.type == "fused_conv2d"]
    assert pred.backend == "onnxruntime" and any(op.inputs.get("residual") for op in fused)
    x = data(1)[0]
    np.testing.assert_allclose(pred.run([x])[0], ref(x), rtol=1e-4, atol=1e-5)


def test_dead_channel_keeps_its_bias(tmp_path):
    """An all-zero weight column has a tiny weight scale; its bias must still fit the int32 bias scale."""
    w = rng.standard_normal([6, 3]).astype("float32")
    w[:, 1] = 0
    wt, bt = t(w), t([0.5, 7.0, -2.0])
    prefix = str(tmp_path / "lin")
    cp = FakeConcrete(lambda x: F.linear(x, wt, bt), [("x", [-1, 6], "float32")])
    save_records(prefix, *records_from_concrete([("forward", cp)]))
    x = rng.standard_normal([4, 6]).astype("float32")
    ptq = PostTrainingQuantization(model_dir=prefix, data_loader=[x], algo="abs_max")
    ptq.quantize()
    ptq.save_quantized_model(str(tmp_path / "lin8"))
    got = inference.create_predictor(inference.Config(str(tmp_path / "lin8"))).run([x])[0]
    np.testing.assert_allclose(got[:, 1], 7.0, rtol=1e-6)
    np.testing.assert_allclose(got, x @ w + np.array([0.5, 7.0, -2.0]), atol=0.05)


def test_onnxruntime_fuses_every_quantized_conv_into_int8_kernels(tmp_path):
    """The QDQ layout is what ONNX Runtime's int8 speed depends on: every conv must become a QLinearConv."""
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from oar.onnx.exporter import program_to_onnx
    prefix, _ = small_resnet(tmp_path)
    ptq = PostTrainingQuantization(model_dir=prefix, data_loader=data(2), algo="abs_max")
    ptq.quantize()
    ptq.save_quantized_model(str(tmp_path / "int8"))
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


def test_options_oar_cannot_honour_are_refused_not_swallowed(tmp_path):
    """Issue 25: `**unused` took weight_bits=4 and quantized to 8 bits; a misspelt option passed silently."""
    with pytest.raises(NotImplementedError, match=r"weight_bits=4 not supported.*weight_bits in \[8\]"):
        PostTrainingQuantization(model_dir=str(tmp_path), data_loader=[np.ones(2)], weight_bits=4)
    with pytest.raises(NotImplementedError, match="round_type='adaround'"):
        PostTrainingQuantization(model_dir=str(tmp_path), data_loader=[np.ones(2)], round_type="adaround")
    with pytest.raises(TypeError, match="weigth_bits"):
        PostTrainingQuantization(model_dir=str(tmp_path), data_loader=[np.ones(2)], weigth_bits=8)
    with pytest.raises(ValueError, match=r"quantizable_op_type \['pool2d'\] not supported"):
        PostTrainingQuantization(model_dir=str(tmp_path), data_loader=[np.ones(2)], quantizable_op_type=["pool2d"])


def test_quantizable_op_type_and_sample_generator(tmp_path):
    net = oar.nn.Sequential(oar.nn.Conv2D(1, 2, 3), oar.nn.Flatten(), oar.nn.Linear(2 * 4 * 4, 3))
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 1, 6, 6], "float32", "x")])
    rng = np.random.default_rng(0)

    def samples():
        for _ in range(5):
            yield (rng.standard_normal((1, 6, 6)).astype("float32"),)
    ptq = PostTrainingQuantization(model_dir=prefix, sample_generator=samples, batch_size=2, algo="abs_max",
                                   quantizable_op_type=["mul"])
    ops = ptq.quantize().global_block().ops
    producer = {n: o.type for o in ops for n in o.output_names()}
    conv = next(o for o in ops if o.type == "fused_conv2d")
    lin = next(o for o in ops if o.type == "fused_linear")
    assert producer.get(conv.inputs["filter"][0]) != "dequantize_linear"  # conv2d not asked for: float weights
    assert producer[lin.inputs["w"][0]] == "dequantize_linear"
    grouped = PostTrainingQuantization(model_dir=prefix, sample_generator=samples, batch_size=2)
    assert [b[0].shape for b in grouped._batches(["x"])] == [(2, 1, 6, 6), (2, 1, 6, 6), (1, 1, 6, 6)]
