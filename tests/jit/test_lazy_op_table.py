"""Every row of the op table run in lazy mode equals eager execution: values, dtypes and shapes, and (for the
rows with gradient checks) the gradients of a weighted sum, computed through lazy values."""
import os
import sys

import numpy as np
import pytest

import oar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
from op_table import CASES  # noqa: E402

SKIP_TAGS = {"eager_only"}  # sparse tensors (oar/sparse) are not dense Tensors


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _same(got, want, name):
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, name
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=name)


ROWS = [c for c in CASES if not set(c.tags) & SKIP_TAGS]


@pytest.mark.parametrize("case", ROWS, ids=repr)
def test_lazy_equals_eager(case):
    oar.seed(11)
    want = [o.numpy() for o in _outs(case.fn(*case.tensors()))]
    oar.seed(11)
    with oar.lazy():
        outs = _outs(case.fn(*case.tensors()))
    _same([o.numpy() for o in outs], want, case.name)


@pytest.mark.parametrize("case", [c for c in ROWS if c.diff and "random" not in c.tags], ids=repr)
def test_lazy_gradients_equal_eager(case):
    rng = np.random.default_rng(7)
    weights = [rng.standard_normal(o.shape) for o in _outs(case.fn(*case.tensors())) if o.dtype.kind == "f"]

    def grads():
        ts = case.tensors(requires_grad=True)
        fl = [o for o in _outs(case.fn(*ts)) if o.dtype.kind == "f"]
        loss = sum((o * oar.to_tensor(w)).sum() for o, w in zip(fl, weights))
        loss.backward()
        return [ts[i].grad.numpy() if ts[i].grad is not None else None for i in case.diff]
    want = grads()
    with oar.lazy():
        got = grads()
    for g, w in zip(got, want):
        assert (g is None) == (w is None), case.name
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=case.name)
