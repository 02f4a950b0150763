"""Save/load of programs through the file format: prediction, fine-tuning, re-saving, state dicts."""
import json
import os

import numpy as np
import pytest

import oar
from oar.graph.model_files import file_names
from oar.jit.save_load import load, load_state_dict_from_prefix, records_from_concrete, save_records

from fake_concrete import FakeConcrete, param


def mlp_concrete():
    w1, b1, w2 = param([4, 8], 1), param([8], 2), param([8, 3], 3)
    w1.name, b1.name, w2.name = "fc_0.w_0", "fc_0.b_0", "fc_1.w_0"

    def f(x):
        h = oar.tanh(oar.matmul(x, w1) + b1)
        oar.exp(h)  # dead: pruned on save
        return oar.matmul(h, w2)
    cp = FakeConcrete(f, [("x", [-1, 4], "float32")])
    ref = lambda x: np.tanh(x @ w1.numpy() + b1.numpy()) @ w2.numpy()  # noqa: E731
    return cp, ref


def save(tmp_path, cp, name="m"):
    prefix = str(tmp_path / "sub" / name)
    save_records(prefix, *records_from_concrete([("forward", cp)]))
    return prefix


def test_files_written_and_load_predicts_any_batch(tmp_path):
    cp, ref = mlp_concrete()
    prefix = save(tmp_path, cp)
    for s in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert os.path.isfile(prefix + s)
    m = json.load(open(prefix + ".pdmodel"))
    assert m["format"] == "oar.model" and m["inputs"] == [{"name": "x", "shape": [-1, 4], "dtype": "float32"}]
    assert "exp" not in [op["type"] for op in m["program"]["blocks"][0]["ops"]]
    loaded = load(prefix)
    loaded.eval()
    for batch in (1, 5):
        x = np.random.rand(batch, 4).astype("float32")
        np.testing.assert_allclose(loaded(oar.to_tensor(x)).numpy(), ref(x), rtol=1e-5, atol=1e-6)
    assert "matmul" in str(loaded.program())


def test_wrong_input_shape_and_dtype_are_clear(tmp_path):
    cp, _ = mlp_concrete()
    loaded = load(save(tmp_path, cp))
    with pytest.raises(ValueError, match=r"input 'x' must have shape \[-1, 4\]"):
        loaded(oar.ones([2, 5]))
    with pytest.raises(TypeError, match="must be float32"):
        loaded(oar.ones([2, 4], "float64"))
    with pytest.raises(TypeError, match="takes 1 tensor input"):
        loaded(oar.ones([2, 4]), oar.ones([2, 4]))


def test_state_dict_from_prefix(tmp_path):
    cp, _ = mlp_concrete()
    prefix = save(tmp_path, cp)
    sd = load_state_dict_from_prefix(prefix)
    assert sorted(sd) == ["fc_0.b_0", "fc_0.w_0", "fc_1.w_0"]
    np.testing.assert_array_equal(sd["fc_0.w_0"].numpy(), cp.scope.vars["fc_0.w_0"].numpy())
    assert sd.name_map == {}  # no Layer: no structured names


def test_resave_loaded(tmp_path):
    cp, ref = mlp_concrete()
    loaded = load(save(tmp_path, cp))
    for p in loaded.parameters():
        p._data = p._data * 0.5
    prefix2 = str(tmp_path / "again" / "m")
    oar.jit.save_load.save(loaded, prefix2)
    again = load(prefix2)
    x = np.random.rand(3, 4).astype("float32")
    np.testing.assert_allclose(again(oar.to_tensor(x)).numpy(), loaded(oar.to_tensor(x)).numpy(), rtol=1e-6)


def test_file_names():
    assert file_names("a/b") == ("a/b.pdmodel", "a/b.pdiparams")
    assert file_names("a/b", "another_forward") == ("a/b.another_forward.pdmodel", "a/b.another_forward.pdiparams")


def test_fine_tune_gradients(tmp_path):
    cp, ref = mlp_concrete()
    loaded = load(save(tmp_path, cp))
    loaded.train()
    params = {p.name: p for p in loaded.parameters()}
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0", "fc_1.w_0"]
    assert all(not p.stop_gradient for p in params.values())
    x = np.random.rand(3, 4).astype("float32")
    loaded(oar.to_tensor(x)).sum().backward()
    w1, b1 = params["fc_0.w_0"].numpy(), params["fc_0.b_0"].numpy()
    h = np.tanh(x @ w1 + b1)
    np.testing.assert_allclose(params["fc_1.w_0"].grad.numpy(), h.T @ np.ones([3, 3]), rtol=1e-5)
    assert params["fc_0.w_0"].grad is not None
