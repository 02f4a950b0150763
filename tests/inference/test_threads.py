"""set_cpu_math_library_num_threads sets BLAS threads (through threadpoolctl) when the predictor is created."""
import numpy as np
import pytest

from oar import inference
from oar.kernels import threads

from test_predictor import conv_bn_model


def test_thread_count_applied_and_results_unchanged(tmp_path):
    if threads.blas_threads() is None:
        pytest.skip("threadpoolctl is not installed: the count is only recorded")
    prefix, ref = conv_bn_model(tmp_path)
    before = threads.blas_threads()
    x = np.random.default_rng(1).standard_normal([2, 3, 4, 4]).astype("float32")
    try:
        config = inference.Config(prefix)
        config.set_cpu_math_library_num_threads(1)
        assert config.cpu_math_library_num_threads() == 1
        pred = inference.create_predictor(config)
        assert threads.blas_threads() == 1
        np.testing.assert_allclose(pred.run([x])[0], ref(x), rtol=1e-5, atol=1e-6)
    finally:
        threads.set_blas_threads(before)


def test_default_config_leaves_threads_alone(tmp_path):
    prefix, _ = conv_bn_model(tmp_path)
    before = threads.blas_threads()
    inference.create_predictor(inference.Config(prefix))
    assert threads.blas_threads() == before


def test_invalid_count():
    with pytest.raises(ValueError, match="n >= 1"):
        inference.Config().set_cpu_math_library_num_threads(0)
