"""The model zoo (issue 23): Paddle programs written as Paddle's model libraries write them (tests/zoo/models/), run
unchanged with ``import paddle`` answered by oar, each checked at five stages against the Paddle 3.3.1 numbers in
paddle_zoo_refs.npz (written by tools/paddle_refs/zoo.py, same formula weights and inputs): eager == Paddle, parameter
gradients == Paddle's, converted (``to_static``) == eager, ``jit.save``/``jit.load`` == eager, ONNX Runtime on the
exported model == eager. The table of results is docs/zoo.md."""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import oar
from paddle_alias import paddle_alias

HERE = pathlib.Path(__file__).resolve().parent
REFS = dict(np.load(HERE / "paddle_zoo_refs.npz"))
_spec = importlib.util.spec_from_file_location("zoo_tool", HERE.parents[1] / "tools" / "paddle_refs" / "zoo.py")
TOOL = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(TOOL)
FORMULAS = TOOL.FORMULAS
with paddle_alias():
    ZOO = TOOL.zoo()

# (model, stage) -> why it fails today; strict, so a fix shows up as an unexpected pass
XFAIL = {}


def build(name):
    """A fresh eval-mode model with the formula weights, and its inputs."""
    make, specs = ZOO[name]
    net = make()
    params = dict(net.named_parameters())
    state = net.state_dict()
    net.set_state_dict(FORMULAS.weights({k: (list(v.shape), str(v.dtype).replace("paddle.", ""))
                                         for k, v in state.items() if FORMULAS.is_set(k, params)}))
    net.eval()
    return net, [FORMULAS.make_input(s, k) for k, s in enumerate(specs)]


def outputs(out):
    out = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o.numpy() if hasattr(o, "numpy") else np.asarray(o) for o in out]


def input_spec(arrays):
    return [oar.static.InputSpec(list(a.shape), str(a.dtype), f"x{k}") for k, a in enumerate(arrays)]


_EAGER = {}


def eager(name):
    if name not in _EAGER:
        net, arrays = build(name)
        _EAGER[name] = outputs(net(*[oar.to_tensor(a) for a in arrays]))
    return _EAGER[name]


def paddle_outputs(name):
    n = sum(1 for k in REFS if k.startswith(name + "/out"))
    return [REFS[f"{name}/out{j}"] for j in range(n)]


def assert_close(got, want, rtol, spread):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w)
        else:
            # absolute tolerance relative to the outputs' spread: float32 sums in another order
            np.testing.assert_allclose(g, w, rtol=rtol, atol=spread * (float(np.std(w)) + 1e-30))


def check_eager(name, tmp_path):
    net, _ = build(name)
    assert list(net.state_dict()) == list(REFS[f"{name}/state_keys"])
    assert_close(eager(name), paddle_outputs(name), 1e-4, 1e-4)


def check_grads(name, tmp_path):
    net, arrays = build(name)
    FORMULAS.rnns_to_train(net)
    outs = net(*[oar.to_tensor(a) for a in arrays])
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    loss = sum((o * oar.to_tensor(FORMULAS.loss_weight(o.size, j).reshape(o.shape).astype("float32"))).sum()
               for j, o in enumerate(outs) if o.dtype in (oar.float32, oar.float64))
    loss.backward()
    got = {n: FORMULAS.grad_digest(n, p.grad.numpy()) for n, p in net.named_parameters() if p.grad is not None}
    names = [str(n) for n in REFS[f"{name}/grad_names"]]
    assert list(got) == names
    # float32 noise is relative to the model's gradients: a gradient that is 0 in exact arithmetic (a bias before
    # instance norm) is noise of that size on both sides
    floor = 1e-6 * float(REFS[f"{name}/grads"][:, 1].max())
    for n, (digest, l1) in zip(names, REFS[f"{name}/grads"]):
        assert got[n][1] == pytest.approx(l1, rel=1e-3, abs=floor), n
        assert abs(got[n][0] - digest) <= 2e-4 * l1 + floor, (n, got[n][0], digest, l1)


def check_to_static(name, tmp_path):
    net, arrays = build(name)
    static = oar.jit.to_static(net, input_spec=input_spec(arrays))
    assert_close(outputs(static(*[oar.to_tensor(a) for a in arrays])), eager(name), 1e-5, 1e-5)


def check_save_load(name, tmp_path):
    net, arrays = build(name)
    oar.jit.save(net, str(tmp_path / "model"), input_spec=input_spec(arrays))
    loaded = oar.jit.load(str(tmp_path / "model"))
    assert_close(outputs(loaded(*[oar.to_tensor(a) for a in arrays])), eager(name), 1e-5, 1e-5)


def check_onnx(name, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    net, arrays = build(name)
    path = oar.onnx.export(net, str(tmp_path / "model"), input_spec=input_spec(arrays))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})
    assert_close(got, eager(name), 1e-4, 1e-4)


STAGES = {"eager": check_eager, "grads": check_grads, "to_static": check_to_static, "save_load": check_save_load,
          "onnx": check_onnx}
CASES = [pytest.param(m, s, marks=pytest.mark.xfail(reason=XFAIL[m, s], strict=True)) if (m, s) in XFAIL
         else (m, s) for m in ZOO for s in STAGES]


@pytest.mark.parametrize("model,stage", CASES)
def test_zoo(model, stage, tmp_path):
    STAGES[stage](model, tmp_path)


def test_paddle_alias_restores_modules():
    before = {k: v for k, v in sys.modules.items() if k == "paddle" or k.startswith("paddle.")}
    with paddle_alias():
        import paddle.nn.functional as F
        assert F is oar.nn.functional and sys.modules["paddle"] is oar
        assert oar.nn.functional.__spec__.name == "oar.nn.functional"
    assert {k: v for k, v in sys.modules.items() if k == "paddle" or k.startswith("paddle.")} == before
