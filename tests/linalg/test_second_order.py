"""Second-order gradients through the linalg / fft / signal / sparse op-table rows: the gradient of
``sum(grad(loss, x) * w)`` (built with create_graph=True) against finite differences of the first gradient."""
import os
import sys

import numpy as np
import pytest

import oar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nn"))
from nn_gradcheck import numeric_grad  # noqa: E402
import op_table_fft  # noqa: E402
import op_table_linalg  # noqa: E402
import op_table_signal  # noqa: E402
import op_table_sparse  # noqa: E402
from op_table import CASES  # noqa: E402

_NAMES = set()
for _m in (op_table_fft, op_table_linalg, op_table_signal, op_table_sparse):
    _NAMES |= {c.name for c in CASES if c.fn.__module__ == _m.__name__}
# rows small enough for a finite-difference Hessian check, first variant of each op
SECOND = [c for c in CASES if c.name in _NAMES and c.diff and c.name.endswith("[0]")
          and sum(c.inputs[i].size for i in c.diff) <= 24]


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _first_grad(case, arrays, weights, create_graph):
    ts = [oar.to_tensor(a, stop_gradient=i not in case.diff) for i, a in enumerate(arrays)]
    outs = [o for o in _outs(case.fn(*ts)) if o.dtype.kind == "f"]
    loss = None
    for o, w in zip(outs, weights):
        term = (o * oar.to_tensor(w)).sum()
        loss = term if loss is None else loss + term
    wanted = [ts[i] for i in case.diff]
    return ts, wanted, oar.grad(loss, wanted, create_graph=create_graph, allow_unused=True)


@pytest.mark.parametrize("case", SECOND, ids=repr)
def test_second_order(case):
    rng = np.random.default_rng(11)
    outs = [o for o in _outs(case.fn(*case.tensors())) if o.dtype.kind == "f"]
    weights = [rng.standard_normal(o.shape) for o in outs]
    ts, wanted, grads = _first_grad(case, [a.copy() for a in case.inputs], weights, True)
    vs = [rng.standard_normal(a.shape) for a in (case.inputs[i] for i in case.diff)]
    total = None
    for g, v in zip(grads, vs):
        if g is not None and not g.stop_gradient:
            term = (g * oar.to_tensor(v)).sum()
            total = term if total is None else total + term
    if total is None:
        pytest.skip("the first gradient does not depend on the inputs (a linear op)")
    second = oar.grad(total, wanted, allow_unused=True)

    def project(*arrays):
        _, _, gs = _first_grad(case, list(arrays), weights, False)
        return sum(float((g.numpy() * v).sum()) for g, v in zip(gs, vs) if g is not None)

    for slot, i in enumerate(case.diff):
        num = numeric_grad(project, case.inputs, i)
        got = np.zeros_like(num) if second[slot] is None else second[slot].numpy()
        np.testing.assert_allclose(got, num, rtol=1e-4, atol=1e-6, err_msg=f"{case.name}: second order, input {i}")
