"""oar.lite: saved models run in a fresh interpreter that imports no layer above the executor and no third-party
package besides numpy and safetensors (others are blocked, as on a minimal install); results equal the full
framework's."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import oar
import oar.lite
from oar.static import InputSpec

REPO = os.path.dirname(os.path.dirname(oar.__file__))

# Runs in the fresh interpreter: block third-party imports other than numpy/safetensors, load and run each model,
# report what got imported.
CHILD = r"""
import importlib.abc, json, sys
ALLOWED = {"numpy", "safetensors", "oar"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in ALLOWED or top in sys.stdlib_module_names or top.startswith("_"):
            return None
        raise ModuleNotFoundError(f"blocked on a minimal install: {name}", name=name)
sys.meta_path.insert(0, Block())
import numpy as np
import oar.lite
cases = json.loads(sys.argv[1])
for prefix, npz in cases:
    feeds = np.load(npz)
    predictor = oar.lite.load(prefix)
    outs = predictor.run([feeds[n] for n in predictor.get_input_names()])
    np.savez(npz + ".out.npz", *outs)
upper = ("oar.nn", "oar.jit", "oar.autograd", "oar.optimizer", "oar.amp", "oar.hapi", "oar.vision", "oar.onnx")
print(json.dumps({
    "upper": sorted(m for m in sys.modules if ".".join(m.split(".")[:2]) in upper),
    "third_party": sorted({m.split(".")[0] for m in sys.modules} - set(sys.stdlib_module_names) - ALLOWED
                          - {m for m in sys.modules if m.startswith("_")} - {"cython_runtime"}),
}))
"""


class Branchy(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(4, 4)

    @oar.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            y = oar.nn.functional.relu(y)
        else:
            y = -y
        return y


def _models(tmp_path):
    """(prefix, feeds, reference outputs) for an MLP, a conv/bn/pool net and a to_static layer with a cond."""
    oar.seed(0)
    rng = np.random.default_rng(0)
    mlp = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3), oar.nn.Softmax())
    cnn = oar.nn.Sequential(oar.nn.Conv2D(3, 4, 3, padding=1), oar.nn.BatchNorm2D(4), oar.nn.ReLU(),
                            oar.nn.MaxPool2D(2), oar.nn.Flatten(), oar.nn.Linear(16, 2))
    cnn.eval()
    cases = [(mlp, [InputSpec([None, 4], "float32", "x")], {"x": rng.standard_normal([5, 4]).astype("float32")}),
             (cnn, [InputSpec([None, 3, 4, 4], "float32", "image")],
              {"image": rng.standard_normal([2, 3, 4, 4]).astype("float32")}),
             (Branchy(), None, {"x": rng.standard_normal([3, 4]).astype("float32")})]
    out = []
    for i, (layer, spec, feeds) in enumerate(cases):
        prefix = str(tmp_path / f"m{i}")
        oar.jit.save(layer, prefix, input_spec=spec)
        ref = layer(*[oar.to_tensor(a) for a in feeds.values()]).numpy()
        np.savez(prefix + ".feeds.npz", **feeds)
        out.append((prefix, prefix + ".feeds.npz", ref))
    return out


def test_lite_runs_without_upper_layers(tmp_path):
    models = _models(tmp_path)
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps([(p, f) for p, f, _ in models])], env=env,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["upper"] == [], report
    assert report["third_party"] == [], report
    for prefix, feeds, ref in models:
        got = np.load(feeds + ".out.npz")["arr_0"]
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_lite_api_forms(tmp_path):
    oar.seed(1)
    layer = oar.nn.Linear(4, 2)
    prefix = str(tmp_path / "net")
    oar.jit.save(layer, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    x = np.arange(12, dtype="float32").reshape(3, 4)
    ref = layer(oar.to_tensor(x)).numpy()
    config = oar.lite.MobileConfig()
    config.set_model_from_file(prefix + ".pdmodel")
    predictor = oar.lite.create_paddle_predictor(config)
    predictor.get_input(0).from_numpy(x)
    assert predictor.run() is None
    np.testing.assert_allclose(predictor.get_output(0).numpy(), ref, rtol=1e-6)
    assert predictor.get_input(0).name() == "x" and predictor.get_output(0).shape() == [3, 2]
    (out,) = oar.lite.load(prefix, optimize=False).run([x])
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    with pytest.raises(ValueError, match="set_model_from_file"):
        oar.lite.create_paddle_predictor(oar.lite.MobileConfig())
    with pytest.raises(ValueError, match="model file not found|not found"):
        oar.lite.load(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="shape"):
        oar.lite.load(prefix).run([np.ones([3, 5], "float32")])
