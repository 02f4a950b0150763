"""to_static and jit.load refuse the arguments they cannot honour (issue 25: **kwargs swallowed typos)."""
import pytest

import oar
from oar.static import InputSpec


def test_to_static_rejects_a_misspelt_keyword():
    with pytest.raises(TypeError, match="input_specs"):
        oar.jit.to_static(lambda x: x * 2, input_specs=[InputSpec([None, 2])])
    with pytest.raises(TypeError, match="input_specs"):
        oar.jit.to_static(input_specs=[InputSpec([None, 2])])


def test_to_static_refuses_what_oar_cannot_do():
    with pytest.raises(ValueError, match="backend='CINN' is not supported"):
        oar.jit.to_static(lambda x: x, backend="CINN")
    with pytest.raises(NotImplementedError, match="property=True"):
        oar.jit.to_static(lambda x: x, property=True)
    f = oar.jit.to_static(lambda x: x * 2, backend=None, full_graph=True)
    assert f(oar.to_tensor([1.0])).numpy().tolist() == [2.0]


def test_jit_load_reads_paddle_file_name_configs_and_rejects_others(tmp_path):
    net = oar.nn.Linear(2, 2)
    oar.jit.save(net, str(tmp_path / "net"), input_spec=[InputSpec([None, 2], "float32", "x")])
    x = oar.ones([1, 2])
    loaded = oar.jit.load(str(tmp_path), model_filename="net.pdmodel", params_filename="net.pdiparams")
    assert bool(oar.allclose(loaded(x), net(x)))
    with pytest.raises(ValueError, match="unknown config 'model_file_name'"):
        oar.jit.load(str(tmp_path), model_file_name="net.pdmodel")
    with pytest.raises(ValueError, match="params_filename 'other.pdiparams' must be net.pdiparams"):
        oar.jit.load(str(tmp_path), model_filename="net.pdmodel", params_filename="other.pdiparams")
    with pytest.raises(ValueError, match="params_filename needs model_filename"):
        oar.jit.load(str(tmp_path / "net"), params_filename="net.pdiparams")
