"""`import oar` loads the layers above the executor on first use (PEP 562): each of them, reached first in a fresh
interpreter, imports cleanly and brings what it needs (an import that only worked because another package happened
to be loaded earlier fails here); `dir(oar)` lists them."""
import os
import subprocess
import sys

import oar

REPO = os.path.dirname(os.path.dirname(oar.__file__))

FIRST_USES = {name: f"import oar; oar.{name}" for name in oar._LAZY_MODULES if name != "onnx"}
FIRST_USES["onnx"] = "import oar; from oar.onnx.exporter import _require_onnx; _require_onnx()"


def test_each_upper_layer_loads_first_in_a_fresh_interpreter():
    env = dict(os.environ, PYTHONPATH=REPO)
    procs = {what: subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for what, code in FIRST_USES.items()}
    failed = {}
    for what, p in procs.items():
        try:
            _, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            err = "timed out"
        if p.returncode:
            failed[what] = err[-600:]
    assert not failed, failed


def test_dir_lists_lazy_names():
    names = dir(oar)
    assert {"nn", "jit", "optimizer", "grad", "Model"} <= set(names)
    assert oar.grad is oar.autograd.grad and oar.Model is oar.hapi.Model
