"""The layers that `import oar` loads lazily (PEP 562 `oar.__getattr__`) load correctly when several threads
ask for them at the same moment (in a fresh interpreter, where nothing is loaded yet)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import threading, numpy as np
import oar
names = ["nn", "optimizer", "jit", "amp", "vision", "hapi", "autograd", "distributed", "linalg", "fft", "signal",
         "sparse", "distribution", "quantization", "text", "Model", "grad", "create_parameter"]
barrier = threading.Barrier(N)
errors, got = [], {}
def load(k):
    try:
        barrier.wait()
        for name in names[k::N] + names:
            got[name] = getattr(oar, name)
        net = oar.nn.Linear(2, 2)                    # and the loaded layers work
        out = oar.jit.to_static(lambda x: x * 2)(oar.ones([2]))
        assert out.numpy().tolist() == [2.0, 2.0]
    except BaseException as e:
        import traceback
        errors.append(traceback.format_exc())
threads = [threading.Thread(target=load, args=(k,)) for k in range(N)]
[t.start() for t in threads]
[t.join() for t in threads]
assert not errors, errors[0]
assert all(getattr(oar, n) is got[n] for n in names)
print("ok")
"""


@pytest.mark.parametrize("n_threads", [2, 4])
def test_lazy_layers_load_from_several_threads_at_once(n_threads, tmp_path):
    script = tmp_path / "load.py"  # a file, so that to_static finds the lambda's source
    script.write_text(f"N = {n_threads}\n" + SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]
