"""oar.save / oar.load: round trips of nested state, and clear errors for files that are not oar files."""
import json
import os

import ml_dtypes
import numpy as np
import pytest

import oar


def test_roundtrip_nested(tmp_path):
    w = oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    w.name = "linear_0.w_0"
    obj = {"model": {"w": w, "b": oar.to_tensor(np.zeros(3, np.float64))},
           "opt": {"LR_Scheduler": {"last_epoch": 3, "last_lr": 0.05}, "m": oar.to_tensor(np.int64(7))},
           "list": [1, 2.5, "x", None, True, (3, np.ones(2, np.int32))], 4: "int key",
           "bf": oar.to_tensor(np.ones(2, ml_dtypes.bfloat16))}
    path = str(tmp_path / "sub" / "ckpt.pdparams")
    oar.save(obj, path)
    got = oar.load(path)
    assert list(got) == ["model", "opt", "list", 4, "bf"]
    assert isinstance(got["model"]["w"], oar.Tensor) and got["model"]["w"].name == "linear_0.w_0"
    np.testing.assert_array_equal(got["model"]["w"].numpy(), w.numpy())
    assert got["model"]["b"].numpy().dtype == np.float64
    assert got["opt"]["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.05}
    assert got["opt"]["m"].shape == [] and int(got["opt"]["m"]) == 7
    lst = got["list"]
    assert lst[:5] == [1, 2.5, "x", None, True] and isinstance(lst[5], tuple)
    assert isinstance(lst[5][1], np.ndarray) and lst[5][1].dtype == np.int32
    assert got[4] == "int key" and got["bf"].numpy().dtype == ml_dtypes.bfloat16
    as_np = oar.load(path, return_numpy=True)
    assert isinstance(as_np["model"]["w"], np.ndarray)


def test_optimizer_state_roundtrip(tmp_path):
    p = oar.Parameter(np.ones(3))
    p.name = "p"
    opt = oar.optimizer.Adam(oar.optimizer.lr.StepDecay(0.1, 2), parameters=[p])
    p.grad = np.ones(3)
    opt.step()
    oar.save(opt.state_dict(), str(tmp_path / "opt.pdopt"))
    state = oar.load(str(tmp_path / "opt.pdopt"))
    opt2 = oar.optimizer.Adam(oar.optimizer.lr.StepDecay(0.1, 2), parameters=[p])
    opt2.set_state_dict(state)
    p.grad = np.ones(3)
    opt2.step()
    assert opt2._acc[id(p)][2].numpy()[0] == pytest.approx(0.9 ** 3)


def test_not_oar_and_truncated_files(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"hello world, not safetensors at all")
    with pytest.raises(ValueError, match="junk.bin"):
        oar.load(str(junk))
    path = str(tmp_path / "ok.pdparams")
    oar.save({"w": oar.ones([100, 100])}, path)
    data = open(path, "rb").read()
    trunc = tmp_path / "trunc.pdparams"
    trunc.write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match="trunc.pdparams"):
        oar.load(str(trunc))
    from safetensors.numpy import save_file
    save_file({"a": np.ones(2)}, str(tmp_path / "plain.safetensors"))
    with pytest.raises(ValueError, match="no oar format marker"):
        oar.load(str(tmp_path / "plain.safetensors"))
    with pytest.raises(FileNotFoundError, match="missing.pdparams"):
        oar.load(str(tmp_path / "missing.pdparams"))
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        oar.load(str(empty))


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="no pickle"):
        oar.save({"f": lambda: 1}, str(tmp_path / "x"))


def test_no_pickle_in_file(tmp_path):
    path = str(tmp_path / "s.pdparams")
    oar.save({"a": [1, {"b": oar.ones([2])}]}, path)
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    assert header["__metadata__"]["oar_format"] == "1"
    assert b"\x80\x04" not in raw[:2]


def test_jit_prefix_is_delegated(tmp_path, monkeypatch):
    prefix = str(tmp_path / "model")
    open(prefix + ".pdiparams", "wb").close()
    import types
    import sys
    fake = types.ModuleType("oar.jit.save_load")
    fake.load_state_dict_from_prefix = lambda p: {"from": p}
    monkeypatch.setitem(sys.modules, "oar.jit.save_load", fake)
    import oar.jit
    monkeypatch.setattr(oar.jit, "save_load", fake, raising=False)
    assert oar.load(prefix) == {"from": prefix}
    assert not os.path.exists(prefix)


def test_nested_scheduler_state_in_optimizer_state(tmp_path):
    """LinearWarmup around a scheduler nests a dict inside LR_Scheduler; it survives save/load with its types."""
    def make():
        fc = oar.nn.Linear(3, 2)
        sched = oar.optimizer.lr.LinearWarmup(oar.optimizer.lr.CosineAnnealingDecay(0.1, 5), 2, 0.0, 0.1)
        return fc, sched, oar.optimizer.AdamW(sched, parameters=fc.parameters())
    fc, sched, opt = make()
    fc(oar.ones([2, 3])).sum().backward()
    opt.step()
    for _ in range(3):
        sched.step()
    oar.save(opt.state_dict(), str(tmp_path / "o.pdopt"))
    state = oar.load(str(tmp_path / "o.pdopt"))
    inner = state["LR_Scheduler"]["LinearWarmup_LR"]
    assert inner == {"last_epoch": 1, "last_lr": sched.learning_rate.last_lr}
    assert isinstance(state["LR_Scheduler"]["last_epoch"], int)
    _, sched2, opt2 = make()
    opt2.set_state_dict(state)
    assert sched2() == sched() and sched2.learning_rate.last_epoch == 1
    key = fc.weight.name + "_moment1_0"
    np.testing.assert_array_equal(state[key].numpy(), opt.state_dict()[key].numpy())
