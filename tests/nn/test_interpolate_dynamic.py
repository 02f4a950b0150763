"""`interp_dynamic`: F.interpolate to a size held by a program tensor (PaddleSeg's
``F.interpolate(y, paddle.shape(x)[2:])``), its gradient and second-order rule. ONNX:
tests/onnx/test_zoo_lowerings.py."""
import numpy as np

import oar
import oar.nn.functional as F
from oar.ops.nn.common import INTERP_DYNAMIC
from oar.ops.registry import apply

R = np.random.default_rng(5)
IMG = R.uniform(-2, 2, (2, 3, 6, 7)).astype(np.float32)


def test_interpolate_to_a_run_time_size_has_eager_gradients():
    """The converted gradient (size from the gradient's shape) equals the eager one; a list mixing ints and a
    tensor entry is a run-time size too."""
    def fn(x):
        return F.interpolate(x, [oar.shape(x)[2] + 3, 5], mode="bilinear")
    weight = oar.to_tensor(R.uniform(-1, 1, (2, 3, 9, 5)).astype(np.float32))
    grads = []
    for f in (fn, oar.jit.to_static(fn, input_spec=[oar.static.InputSpec([None, 3, 6, 7], "float32")])):
        x = oar.to_tensor(IMG, stop_gradient=False)
        (f(x) * weight).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_second_order_rule_resamples_again():
    """d(dx . w)/d(out_grad) is the forward resampling of w (the gradient is linear in out_grad)."""
    x = oar.to_tensor(R.random((1, 2, 3, 4)).astype("float32"), stop_gradient=False)
    attrs = {"mode": "linear", "align_corners": False, "align_mode": 0}
    y = apply(INTERP_DYNAMIC, (x, oar.to_tensor(np.array([5, 6], "int64"))), attrs)
    g = oar.to_tensor(R.random((1, 2, 5, 6)).astype("float32"), stop_gradient=False)
    (dx,) = oar.grad([(y * g).sum()], [x], create_graph=True)
    w = oar.to_tensor(R.random((1, 2, 3, 4)).astype("float32"))
    (gg,) = oar.grad([(dx * w).sum()], [g])
    np.testing.assert_allclose(gg.numpy(), F.interpolate(w, [5, 6], mode="bilinear").numpy(), rtol=1e-6, atol=1e-7)
