"""Every row of the op table traced with `oar.jit.trace` equals eager execution: the first call (which records)
returns eager values, and later calls (which run the recorded program) on the same and on changed inputs equal
eager runs on those inputs."""
import os
import sys

import numpy as np
import pytest

import oar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
from op_table import CASES  # noqa: E402

SKIP_TAGS = {"eager_only"}  # sparse tensors (oar/sparse) are not dense Tensors: their ops are not recorded


def _outs(r):
    return [o.numpy() for o in (list(r) if isinstance(r, (tuple, list)) else [r])]


def _changed(case):
    """The row's inputs with every float input scaled (domains such as (0.5, 2) or (-0.9, 0.9) stay valid)."""
    return [np.asarray(a * 0.97) if a.dtype.kind == "f" else a for a in case.inputs]


def _same(got, want, name):
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, name
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("case", [c for c in CASES if not set(c.tags) & SKIP_TAGS], ids=repr)
def test_traced_equals_eager(case):
    traced = oar.jit.trace(case.fn)
    for inputs in (case.inputs, case.inputs, _changed(case)):
        oar.seed(11)
        want = _outs(case.fn(*[oar.to_tensor(a) for a in inputs]))
        oar.seed(11)
        got = _outs(traced(*[oar.to_tensor(a) for a in inputs]))
        _same(got, want, case.name)
    assert traced.num_traces >= 1
