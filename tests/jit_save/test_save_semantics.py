"""oar.jit.save/load semantics on real Layers: train vs eval saves, train()/eval() switching, fine-tuning until
the loss falls, several methods, output_spec with returned Tensors, clip_extra, functions, re-saving, atomic
replacement of a previous save."""
import json
import os

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.core import safe_files
from oar.graph import model_files
from oar.static import InputSpec

SPEC = [InputSpec([None, 6], "float32", "x")]


class Net(nn.Layer):
    def __init__(self, p=0.5):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.bn = nn.BatchNorm1D(4)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        return self.drop(oar.nn.functional.relu(self.bn(self.fc(x))))


class TwoMethods(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    @oar.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x):
        y = self.fc(x)
        return y, oar.tanh(y)

    @oar.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def another_forward(self, x):
        return self.fc(x) * 2.0


def pdmodel(prefix):
    return json.load(open(prefix + ".pdmodel"))


def ops_of(program_dict):
    return [op["type"] for b in program_dict["blocks"] for op in b["ops"]]


def test_eval_mode_save_writes_only_an_inference_program(tmp_path):
    net = Net()
    net.eval()
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=SPEC)
    d = pdmodel(prefix)
    assert d["train"] is False and "infer_program" not in d
    assert not any(op["attrs"].get("training") is True for op in d["program"]["blocks"][0]["ops"])
    loaded = oar.jit.load(prefix)
    loaded.train()  # nothing to train with: the inference program runs either way
    x = oar.randn([5, 6])
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)


def test_train_and_eval_switch_dropout_and_batch_norm(tmp_path):
    net = Net(p=0.5)
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=SPEC)  # train mode
    d = pdmodel(prefix)
    assert d["train"] is True and "infer_program" in d
    assert "dropout" in ops_of(d["program"])
    loaded = oar.jit.load(prefix)
    x = oar.randn([64, 6])
    net.eval()
    loaded.eval()
    want = net(x).numpy()
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(loaded(x).numpy(), loaded(x).numpy())  # eval: deterministic
    bn_mean = [t for n, t in loaded.state_dict().items() if "mean" in n or "w_1" in n]
    before = {id(t): t.numpy().copy() for t in bn_mean}
    loaded.train()
    a, b = loaded(x).numpy(), loaded(x).numpy()
    assert not np.array_equal(a, b)  # dropout draws a new mask each call
    kept = a != 0
    assert 0.2 < kept.mean() < 0.8  # about half of the positive activations are dropped
    assert not np.allclose(a[kept], want[kept] * 2, rtol=1e-3)  # batch statistics, not the running ones
    assert any(not np.array_equal(before[id(t)], t.numpy()) for t in bn_mean)  # running stats move in train
    loaded.eval()
    np.testing.assert_allclose(loaded(x).numpy(), loaded(x).numpy())


def test_fine_tuning_a_loaded_model_lowers_the_loss(tmp_path):
    oar.seed(3)
    net = Net(p=0.0)
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=SPEC)
    loaded = oar.jit.load(prefix)
    loaded.train()
    rng = np.random.default_rng(0)
    x = oar.to_tensor(rng.standard_normal([32, 6]).astype("float32"))
    target = oar.to_tensor(rng.random([32, 4]).astype("float32"))
    opt = oar.optimizer.Adam(learning_rate=0.05, parameters=loaded.parameters())
    losses = []
    for _ in range(40):
        loss = ((loaded(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.3 * losses[0], losses


def test_several_methods_saved_loaded_and_resaved(tmp_path):
    net = TwoMethods()
    prefix = str(tmp_path / "two")
    oar.jit.save(net, prefix)
    files = sorted(os.listdir(tmp_path))
    assert files == ["two.another_forward.pdiparams", "two.another_forward.pdmodel", "two.pdiparams",
                     "two.pdiparams.info", "two.pdmodel"]
    loaded = oar.jit.load(prefix)
    x = oar.randn([3, 4])
    y, t = net(x)
    ly, lt = loaded(x)
    np.testing.assert_allclose(lt.numpy(), t.numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.another_forward(x).numpy(), net.another_forward(x).numpy(), rtol=1e-6)
    assert "tanh" not in str(loaded.program("another_forward"))
    assert len(loaded.parameters()) == 2  # the methods share the weights
    again = str(tmp_path / "again" / "two")
    oar.jit.save(loaded, again)
    re = oar.jit.load(again)
    np.testing.assert_allclose(re.another_forward(x).numpy(), net.another_forward(x).numpy(), rtol=1e-6)


def test_output_spec_with_returned_tensors_prunes(tmp_path):
    net = TwoMethods()
    x = oar.randn([2, 4])
    y, t = net(x)
    prefix = str(tmp_path / "pruned")
    oar.jit.save(net, prefix, output_spec=[t])
    loaded = oar.jit.load(prefix)
    out = loaded(x)
    np.testing.assert_allclose(out.numpy(), t.numpy(), rtol=1e-6)
    assert [v["name"] for v in pdmodel(prefix)["outputs"]] == [t.name]
    with pytest.raises(ValueError, match="is not an output of the program"):
        oar.jit.save(net, prefix, output_spec=[oar.ones([1])])


def test_clip_extra_drops_source_locations_only(tmp_path):
    net = TwoMethods()
    keep, clip = str(tmp_path / "keep"), str(tmp_path / "clip")
    oar.jit.save(net, keep)
    oar.jit.save(net, clip, clip_extra=True)
    locs = [op["loc"] for op in pdmodel(keep)["program"]["blocks"][0]["ops"]]
    assert any(loc and loc[0].endswith("test_save_semantics.py") for loc in locs)
    assert all(op["loc"] is None for op in pdmodel(clip)["program"]["blocks"][0]["ops"])
    assert ops_of(pdmodel(keep)["program"]) == ops_of(pdmodel(clip)["program"])
    x = oar.randn([2, 4])
    np.testing.assert_allclose(oar.jit.load(clip)(x)[1].numpy(), oar.jit.load(keep)(x)[1].numpy())


def test_plain_function_writes_only_its_program(tmp_path):
    def f(x, y):
        return oar.tanh(x) * y

    prefix = str(tmp_path / "f")
    oar.jit.save(TwoMethods(), prefix)  # an earlier save to the same prefix: its files go away
    oar.jit.save(f, prefix, input_spec=[InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")])
    assert os.listdir(tmp_path) == ["f.pdmodel"]
    loaded = oar.jit.load(prefix)
    a, b = oar.randn([4, 3]), oar.randn([4, 3])
    np.testing.assert_allclose(loaded(a, b).numpy(), f(a, b).numpy(), rtol=1e-6)
    pred = oar.inference.create_predictor(oar.inference.Config(prefix))
    np.testing.assert_allclose(pred.run([a.numpy(), b.numpy()])[0], f(a, b).numpy(), rtol=1e-6)


def test_a_model_named_like_a_method_is_not_a_method(tmp_path):
    oar.jit.save(TwoMethods(), str(tmp_path / "net"))
    oar.jit.save(lambda x: x + 1, str(tmp_path / "net.v2"), input_spec=[InputSpec([2], "float32")])
    assert not hasattr(oar.jit.load(str(tmp_path / "net")), "v2")
    oar.jit.save(TwoMethods(), str(tmp_path / "net"))
    assert os.path.exists(tmp_path / "net.v2.pdmodel")  # re-saving net leaves the other model alone


def test_resave_after_fine_tuning_keeps_train_program_and_names(tmp_path):
    net = Net(p=0.0)
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=SPEC)
    loaded = oar.jit.load(prefix)
    loaded.train()
    opt = oar.optimizer.SGD(learning_rate=0.5, parameters=loaded.parameters())
    loaded(oar.randn([8, 6])).sum().backward()
    opt.step()
    again = str(tmp_path / "again")
    oar.jit.save(loaded, again)
    d = pdmodel(again)
    assert d["train"] is True and "infer_program" in d
    info = model_files.read_info(again + ".pdiparams.info")
    assert sorted(m["structured_name"] for m in info.values()) == sorted(net.state_dict())
    re = oar.jit.load(again)
    for p in loaded.parameters():
        np.testing.assert_array_equal(dict((q.name, q) for q in re.parameters())[p.name].numpy(), p.numpy())
    fresh = Net(p=0.0)
    fresh.set_state_dict(oar.load(again), use_structured_name=False)
    fresh.eval(), loaded.eval()
    x = oar.randn([3, 6])
    np.testing.assert_allclose(fresh(x).numpy(), loaded(x).numpy(), rtol=1e-5, atol=1e-6)


def test_failed_save_leaves_previous_files_intact(tmp_path, monkeypatch):
    net = TwoMethods()
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix)
    before = {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)}
    real, calls = safe_files._write_temp, []

    def fail_after_first(path, data, fsync):
        if calls:
            raise OSError("disk full (simulated)")
        calls.append(path)
        return real(path, data, fsync)
    monkeypatch.setattr(safe_files, "_write_temp", fail_after_first)
    for p in net.parameters():
        p.set_value(p.numpy() + 1)
    with pytest.raises(OSError, match="simulated"):
        oar.jit.save(net, prefix)
    assert len(calls) == 1  # the first file was written (to its temporary) before the failure
    after = {f: open(tmp_path / f, "rb").read() for f in os.listdir(tmp_path)}
    assert after == before  # same files, same bytes, no temporaries left behind
    monkeypatch.setattr(safe_files, "_write_temp", real)
    oar.jit.save(net, prefix)
    x = oar.randn([2, 4])
    np.testing.assert_allclose(oar.jit.load(prefix)(x)[0].numpy(), net(x)[0].numpy(), rtol=1e-6)
