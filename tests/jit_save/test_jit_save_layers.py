"""oar.jit.save / oar.jit.load on real Layers and functions converted with to_static."""
import os

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.static import InputSpec


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.bn = nn.BatchNorm1D(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(oar.nn.functional.relu(self.bn(self.fc(x))))


def test_train_mode_save_keeps_both_programs(tmp_path):
    net = Net()
    spec = [InputSpec([None, 6], "float32", "x")]
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=spec)  # train mode
    loaded = oar.jit.load(prefix)
    x = oar.randn([5, 6])
    net.eval()
    loaded.eval()
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    assert "batch_norm" in str(loaded.program())
    train_prog = loaded._train_program()
    assert any(op.attrs.get("training") is True for op in train_prog.global_block().ops)
    assert not any(op.attrs.get("training") is True for op in loaded.program().global_block().ops)
    info = oar.graph.model_files.read_info(prefix + ".pdiparams.info")
    assert sorted(m["structured_name"] for m in info.values()) == sorted(net.state_dict())


def test_fine_tune_loaded_with_optimizer(tmp_path):
    net = Net()
    net.eval()
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 6], "float32")])
    loaded = oar.jit.load(prefix)
    loaded.train()
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    before = [p.numpy().copy() for p in loaded.parameters()]
    loss = loaded(oar.randn([8, 6])).mean()
    loss.backward()
    opt.step()
    assert any(not np.allclose(a, p.numpy()) for a, p in zip(before, loaded.parameters()))


def test_function_and_output_spec(tmp_path):
    def f(x, y):
        return x + y, x * y

    prefix = str(tmp_path / "f" / "model")
    specs = [InputSpec([None, 3], "float32", "x"), InputSpec([None, 3], "float32", "y")]
    oar.jit.save(f, prefix, input_spec=specs, output_spec=[1])
    loaded = oar.jit.load(prefix)
    a, b = oar.randn([2, 3]), oar.randn([2, 3])
    np.testing.assert_allclose(loaded(a, b).numpy(), (a * b).numpy(), rtol=1e-6)
    assert [op.type for op in loaded.program().global_block().ops] == ["multiply"]
    assert not [n for n in os.listdir(tmp_path / "f") if n.endswith(".tmp")]


def test_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="no to_static method and no input_spec"):
        oar.jit.save(Net(), str(tmp_path / "n"))
    with pytest.raises(ValueError, match="unknown config"):
        oar.jit.save(Net(), str(tmp_path / "n"), input_spec=[InputSpec([None, 6])], bogus=1)


def test_oar_load_prefix_into_fresh_layer(tmp_path):
    net = Net()
    net.eval()
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 6], "float32")])
    fresh = Net()
    fresh.set_state_dict(oar.load(prefix), use_structured_name=False)
    fresh.eval()
    x = oar.randn([3, 6])
    np.testing.assert_allclose(fresh(x).numpy(), net(x).numpy(), rtol=1e-6)
