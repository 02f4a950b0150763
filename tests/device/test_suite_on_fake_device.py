"""A CI-run slice of the existing suite under ``pytest --fake-device`` (every tensor made on the fake GPU): the
optimizers, AMP, converted training steps, and the layer gradient / norm / RNN / error tests of tests/nn (about
12 s). `pytest --fake-device tests/nn tests/optimizer tests/amp tests/jit/test_train_step.py` runs all of those
folders (docs/gpu.md)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["tests/optimizer", "tests/amp", "tests/jit/test_train_step.py", "tests/nn/test_nn_grads.py",
         "tests/nn/test_nn_rnn.py", "tests/nn/test_nn_norm_dropout.py", "tests/nn/test_nn_attrs_formats.py",
         "tests/nn/test_nn_errors.py"]


def test_suite_slice_passes_on_the_fake_device():
    env = {k: v for k, v in os.environ.items() if k not in ("OAR_TEST_DEVICE", "OAR_DEVICE_BACKEND")}
    r = subprocess.run([sys.executable, "-m", "pytest", "--fake-device", "-W",
                        "ignore", *FILES], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    tail = r.stdout[-3000:] + r.stderr[-2000:]
    assert r.returncode == 0, tail
    passed = re.search(r"(\d+) passed", r.stdout)
    assert passed and int(passed.group(1)) > 200 and "skipped" not in r.stdout.splitlines()[-1], tail
