"""Config.enable_onnxruntime(): the predictor runs the exported program in ONNX Runtime behind the same handles;
an op without an ONNX lowering falls back to the native executor with a warning naming it."""
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import oar  # noqa: E402
from oar import inference  # noqa: E402
from oar.jit.save_load import records_from_concrete, save_records  # noqa: E402

from fake_concrete import FakeConcrete  # noqa: E402
from test_predictor import conv_bn_model  # noqa: E402

rng = np.random.default_rng(4)


@pytest.mark.parametrize("ort_optimization", [False, True])
def test_same_results_as_native(tmp_path, ort_optimization):
    prefix, ref = conv_bn_model(tmp_path)
    config = inference.Config(prefix)
    config.enable_onnxruntime()
    if ort_optimization:
        config.enable_ort_optimization()
    config.set_cpu_math_library_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pred = inference.create_predictor(config)
    assert pred.backend == "onnxruntime" and config.onnxruntime_enabled()
    assert "constant_folding" not in config.pass_names()
    x = rng.standard_normal([3, 3, 4, 4]).astype("float32")
    np.testing.assert_allclose(pred.run([x])[0], ref(x), rtol=1e-4, atol=1e-6)
    h = pred.get_input_handle("image")
    h.copy_from_cpu(x[:1].astype("float64"))   # cast to the saved dtype, as natively
    assert pred.run() is True
    out = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out, ref(x[:1]), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match=r"input 'image' has shape \[-1, 3, 4, 4\]"):
        pred.run([np.zeros([1, 3, 5, 5], "float32")])


def test_op_without_lowering_falls_back_with_warning(tmp_path):
    def f(x):
        return oar.atan2(x, oar.ones_like(x)) * 2.0

    cp = FakeConcrete(f, [("x", [-1, 4], "float32")])
    prefix = str(tmp_path / "atan2")
    save_records(prefix, *records_from_concrete([("forward", cp)]))
    config = inference.Config(prefix)
    config.enable_onnxruntime()
    with pytest.warns(UserWarning, match=r"running the native executor instead.*atan2"):
        pred = inference.create_predictor(config)
    assert pred.backend == "native"
    x = rng.standard_normal([2, 4]).astype("float32")
    np.testing.assert_allclose(pred.run([x])[0], np.arctan2(x, 1) * 2, rtol=1e-6)
