"""sigmoid keeps its relative precision for negative inputs in float32, as Paddle's ``1 / (1 + exp(-x))`` does: the
YOLOv3 IoU-aware head takes ``sigmoid(iou_logit) ** 0.4`` of logits near -17 and then a log, where oar's former
``(tanh(x / 2) + 1) / 2`` (``tanh + 1`` cancelling) was 80% off and gave 0 below -17."""
import numpy as np
import pytest

import oar
from oar.kernels import fused

X = np.array([-80.0, -30.0, -17.2262, -8.0, -0.5, 0.0, 0.5, 8.0, 17.0, 100.0, np.inf, -np.inf, np.nan], np.float32)
EXACT = 1 / (1 + np.exp(-X.astype(np.float64)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_relative_precision(dtype):
    got = oar.nn.functional.sigmoid(oar.to_tensor(X.astype(dtype))).numpy()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, EXACT, rtol=2e-7 if dtype == "float32" else 1e-15, atol=0)


def test_fused_in_place_sigmoid_is_the_same_kernel():
    out = X.copy()
    np.testing.assert_array_equal(fused.sigmoid_(out), oar.nn.functional.sigmoid(oar.to_tensor(X)).numpy())
    np.testing.assert_allclose(out, EXACT, rtol=2e-7, atol=0)


def test_silu_of_very_negative_inputs():
    x = oar.to_tensor(np.array([-20.0, -40.0], np.float32), stop_gradient=False)
    y = oar.nn.functional.silu(x)
    np.testing.assert_allclose(y.numpy(), [-20.0 / (1 + np.exp(20.0)), -40.0 / (1 + np.exp(40.0))], rtol=1e-6)
