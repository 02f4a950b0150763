"""A first `to_static` call of a function without control flow compiles and imports only the conversion
machinery: saving/loading, tracing and the control-flow runtime (`control`, `loop_runtime`) are imported on first
use. (Without cached bytecode, compiling those modules was a third of the seed LinearNet's first call.)"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LAZY = ["oar.jit.save_load", "oar.jit.translated", "oar.jit.traced", "oar.jit.traced_layer", "oar.jit.recorder",
        "oar.jit.control", "oar.jit.loop_runtime"]

CODE = """
import json, sys
import numpy as np
import oar

class LinearNet(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = oar.nn.Linear(784, 10)

    def forward(self, x):
        return self._linear(x)

def branchy(x):
    if x.sum() > 0:
        return x * 2
    return -x

x = oar.to_tensor(np.ones([4, 784], "float32"))
y = oar.jit.to_static(LinearNet())(x)
after_first = [m for m in %r if m in sys.modules]
z = oar.jit.to_static(branchy)(oar.to_tensor([-1.0, 2.0]))
after_branch = [m for m in %r if m in sys.modules]
print(json.dumps([after_first, after_branch, list(y.shape), z.numpy().tolist(), oar.jit.save.__module__,
                  oar.jit.TracedLayer.__name__]))
""" % (LAZY, LAZY)


def test_a_first_call_imports_no_saving_tracing_or_control_flow_and_they_load_on_use(tmp_path):
    script = tmp_path / "first_call.py"   # a file: the converted functions need their source
    script.write_text(CODE)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    after_first, after_branch, shape, z, save_module, traced_layer = json.loads(r.stdout.strip().splitlines()[-1])
    assert after_first == [] and shape == [4, 10]
    assert after_branch == ["oar.jit.control"] and z == [-2.0, 4.0]      # the tensor `if` needs it, nothing else
    assert save_module == "oar.jit.save_load" and traced_layer == "TracedLayer"


def test_the_lazy_names_are_the_public_ones():
    import oar
    assert sorted(oar.jit.__all__) == sorted(dir(oar.jit))
    for name in oar.jit.__all__:
        assert getattr(oar.jit, name) is not None
