"""paddle.inference's DataType, get_num_bytes_of_data_type, get_version and PredictorPool."""
import numpy as np
import pytest

import oar
from oar.inference import DataType


def test_data_type_values_are_paddles():
    # Paddle 3.3.1: FLOAT32 0, INT64 1, INT32 2, UINT8 3, INT8 4, FLOAT16 5, BOOL 6, FLOAT64 7, BFLOAT16 8
    assert [(t.name, int(t)) for t in sorted(DataType)] == [
        ("FLOAT32", 0), ("INT64", 1), ("INT32", 2), ("UINT8", 3), ("INT8", 4), ("FLOAT16", 5), ("BOOL", 6),
        ("FLOAT64", 7), ("BFLOAT16", 8)]


def test_bytes_of_data_types_are_numpys():
    for t, np_name in [("FLOAT32", "float32"), ("INT64", "int64"), ("INT32", "int32"), ("UINT8", "uint8"),
                       ("INT8", "int8"), ("FLOAT16", "float16"), ("BOOL", "bool"), ("FLOAT64", "float64")]:
        assert oar.inference.get_num_bytes_of_data_type(DataType[t]) == np.dtype(np_name).itemsize
    assert oar.inference.get_num_bytes_of_data_type(DataType.BFLOAT16) == 2
    with pytest.raises(ValueError, match="DataType"):
        oar.inference.get_num_bytes_of_data_type(42)


def test_get_version_layout():
    lines = oar.inference.get_version().splitlines()
    assert lines[0] == f"version: {oar.__version__}" and lines[1].startswith("commit: ") and lines[2] == "branch: HEAD"


def test_predictor_pool_predictors_run_independently(tmp_path):
    from oar.static import InputSpec
    net = oar.nn.Linear(2, 1)
    oar.jit.save(net, str(tmp_path / "net"), input_spec=[InputSpec([None, 2], "float32", "x")])
    pool = oar.inference.PredictorPool(oar.inference.Config(str(tmp_path / "net.pdmodel"),
                                                            str(tmp_path / "net.pdiparams")), 3)
    x = np.array([[1.0, 2.0]], "float32")
    want = net(oar.to_tensor(x)).numpy()
    outs = []
    for i in range(3):
        p = pool.retrieve(i)
        h = p.get_input_handle("x")
        h.reshape(x.shape)
        h.copy_from_cpu(x * (i + 1))
        p.run()
        outs.append(p.get_output_handle(p.get_output_names()[0]).copy_to_cpu())
    np.testing.assert_allclose(outs[0], want, rtol=1e-6)
    assert len({id(pool.retrieve(i)) for i in range(3)}) == 3
    np.testing.assert_allclose(outs[2], (x * 3) @ net.weight.numpy() + net.bias.numpy(), rtol=1e-5)
    with pytest.raises(IndexError):
        pool.retrieve(3)
    with pytest.raises(ValueError):
        oar.inference.PredictorPool(None, 0)
