"""Paddle-written checkpoints: files made by the rules of Paddle's `paddle.save` (python/paddle/framework/io.py:
`_build_saved_state_dict` + `_pickle_save` with its dispatch table) load into oar; malicious pickles are refused
without running anything; `oar.save(protocol="paddle")` writes that same layout."""
import copyreg
import io
import os
import pickle

import numpy as np
import pytest

import oar as paddle
from oar.io.paddle_pickle import UnsafePickleError


class FakePaddleTensor:
    """Stands for paddle's eager Tensor when writing a file the way Paddle does."""

    def __init__(self, name, data):
        self.name, self.data = name, data


class FakeLoDTensor:
    def __init__(self, data):
        self.data = data


def paddle_style_save(obj, path, protocol=4):
    """Paddle's save rules: a state dict becomes arrays + the name table; other Tensors are (name, array)."""
    if isinstance(obj, dict) and obj and all(isinstance(v, FakePaddleTensor) for v in obj.values()):
        saved = {k: v.data for k, v in obj.items()}
        saved["StructuredToParameterName@@"] = {k: v.name for k, v in obj.items()}
        obj = saved
    with open(path, "wb") as f:
        p = pickle.Pickler(f, protocol)
        p.dispatch_table = copyreg.dispatch_table.copy()
        p.dispatch_table[FakePaddleTensor] = lambda t: (tuple, ((t.name, t.data),))
        p.dispatch_table[FakeLoDTensor] = lambda t: (eval, ("data", {"data": t.data}))
        p.dump(obj)


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_lenet_state_dict_written_as_paddle_does_loads_and_predicts(tmp_path, protocol):
    paddle.seed(1)
    src = paddle.vision.models.LeNet()
    state = {k: FakePaddleTensor(f"p_{i}", v.numpy()) for i, (k, v) in enumerate(src.state_dict().items())}
    path = str(tmp_path / "lenet.pdparams")
    paddle_style_save(state, path, protocol)
    loaded = paddle.load(path)
    assert "StructuredToParameterName@@" not in loaded and all(isinstance(v, paddle.Tensor) for v in loaded.values())
    paddle.seed(2)
    dst = paddle.vision.models.LeNet()
    assert dst.set_state_dict(loaded) == ([], [])
    x = paddle.to_tensor(np.random.RandomState(0).rand(2, 1, 28, 28).astype("float32"))
    np.testing.assert_array_equal(dst(x).numpy(), src(x).numpy())
    table = paddle.load(path, keep_name_table=True)["StructuredToParameterName@@"]
    assert table == {k: v.name for k, v in state.items()}
    assert isinstance(paddle.load(path, return_numpy=True)["features.0.weight"], np.ndarray)


def test_optimizer_state_with_named_tuples_and_lodtensor(tmp_path):
    w = np.arange(6, dtype="float32").reshape(2, 3)
    obj = {"linear_0.w_0_moment1_0": FakePaddleTensor("linear_0.w_0_moment1_0", w),
           "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.05}, "global_step": FakeLoDTensor(np.array([7], "int64"))}
    path = str(tmp_path / "adam.pdopt")
    paddle_style_save(obj, path)
    got = paddle.load(path)
    assert got["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.05}
    m = got["linear_0.w_0_moment1_0"]
    assert isinstance(m, paddle.Tensor) and m.name == "linear_0.w_0_moment1_0"
    np.testing.assert_array_equal(m.numpy(), w)
    np.testing.assert_array_equal(np.asarray(got["global_step"]), [7])


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > pwned.txt",))


class Custom:
    pass


@pytest.mark.parametrize("payload, refused", [(Evil(), "system"), ({"w": Custom()}, "Custom"),
                                              ((eval, ("__import__('os')",)), "eval")])
def test_malicious_or_arbitrary_objects_are_refused(tmp_path, monkeypatch, payload, refused):
    monkeypatch.chdir(tmp_path)
    path = str(tmp_path / "bad.pdparams")
    if isinstance(payload, tuple):   # a raw eval(...) reduce, as an attacker would write it
        buf = io.BytesIO()
        p = pickle.Pickler(buf, 4)
        p.dispatch_table = {Custom: lambda _: payload}
        p.dump(Custom())
        data = buf.getvalue()
    else:
        data = pickle.dumps(payload, protocol=4)
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(UnsafePickleError, match=refused):
        paddle.load(path)
    assert not os.path.exists(tmp_path / "pwned.txt")


def test_truncated_paddle_file_is_a_clear_error(tmp_path):
    path = str(tmp_path / "cut.pdparams")
    paddle_style_save({"w": FakePaddleTensor("w", np.ones([64], "float32"))}, path)
    data = open(path, "rb").read()
    open(path, "wb").write(data[:len(data) // 2])
    with pytest.raises(ValueError, match="truncated or damaged"):
        paddle.load(path)


def test_save_protocol_paddle_writes_paddles_layout(tmp_path):
    net = paddle.nn.Linear(3, 2)
    path = str(tmp_path / "net.pdparams")
    paddle.save(net.state_dict(), path, protocol="paddle")
    with open(path, "rb") as f:
        raw = pickle.load(f)   # what Paddle's loader sees: plain arrays plus the name table
    assert set(raw) == {"weight", "bias", "StructuredToParameterName@@"}
    assert isinstance(raw["weight"], np.ndarray) and raw["StructuredToParameterName@@"]["weight"] == net.weight.name
    back = paddle.load(path)
    np.testing.assert_array_equal(back["weight"].numpy(), net.weight.numpy())
    opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
    net(paddle.ones([1, 3])).sum().backward()
    opt.step()
    paddle.save(opt.state_dict(), str(tmp_path / "o.pdopt"), protocol="paddle")
    opt.set_state_dict(paddle.load(str(tmp_path / "o.pdopt")))
