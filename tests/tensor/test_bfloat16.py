"""bfloat16: a real dtype with the optional ml_dtypes package; without it the dtype exists and every attempt to make
an array of it says what to install."""
import subprocess
import sys

import numpy as np
import pytest

import oar


def test_bfloat16_with_ml_dtypes():
    pytest.importorskip("ml_dtypes")
    x = oar.to_tensor([1.5, 2.5, -3.0], dtype="bfloat16", stop_gradient=False)
    assert x.dtype == oar.bfloat16 and x.numpy().dtype.name == "bfloat16"
    y = x * 2 + 1.0  # a Python float keeps the tensor's dtype
    assert y.dtype == oar.bfloat16
    np.testing.assert_array_equal(y.numpy().astype(np.float32), [4.0, 6.0, -5.0])
    assert (x + oar.ones([3], "float16")).dtype == oar.float32  # Paddle: bf16 with f16 gives f32
    assert (x + oar.ones([3], "float32")).dtype == oar.float32
    assert (x + oar.ones([3], "float64")).dtype == oar.float64
    (x * x).sum().backward()
    assert x.grad.dtype == oar.bfloat16
    np.testing.assert_array_equal(x.grad.numpy().astype(np.float32), [3.0, 5.0, -6.0])
    assert oar.ones([2], dtype=oar.bfloat16).astype("float32").numpy().tolist() == [1.0, 1.0]
    assert oar.zeros([2]).astype("bfloat16").dtype == oar.bfloat16


_WITHOUT = """
import sys
sys.modules["ml_dtypes"] = None  # as if the package were not installed
import oar
assert oar.bfloat16 == "bfloat16" and str(oar.bfloat16) == "paddle.bfloat16"
for make in (lambda: oar.ones([2], "bfloat16"), lambda: oar.to_tensor([1.0], dtype="bfloat16"),
             lambda: oar.ones([2]).astype(oar.bfloat16)):
    try:
        make()
    except RuntimeError as e:
        assert "pip install ml_dtypes" in str(e), e
    else:
        raise AssertionError("bfloat16 without ml_dtypes did not raise")
assert (oar.ones([2]) + 1).dtype == oar.float32  # everything else works
print("ok")
"""


def test_bfloat16_without_ml_dtypes_says_what_to_install():
    r = subprocess.run([sys.executable, "-c", _WITHOUT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
