"""For every row of the op table: the op run as a static Program equals eager execution, values and gradients
(gradients via `oar.static.gradients`, the static counterpart of `oar.grad`)."""
import os
import sys

import numpy as np
import pytest

import oar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
from op_table import CASES  # noqa: E402

SKIP_TAGS = {"random", "eager_only"}  # eager_only: sparse tensors (oar/sparse) need concrete indices
CASES_S = [c for c in CASES if not (set(c.tags) & SKIP_TAGS)]


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _static_run(case, weights=None, round_trip=False):
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            xs = []
            for i, a in enumerate(case.inputs):
                v = oar.static.data(f"in{i}", list(a.shape), str(a.dtype))
                v.stop_gradient = not (weights is not None and i in case.diff)
                xs.append(v)
            outs = _outs(case.fn(*xs))
            fetch = list(outs)
            if weights is not None:
                fl = [o for o in outs if o.dtype.kind == "f"]
                loss = None
                for o, w in zip(fl, weights):
                    term = (o * oar.to_tensor(w)).sum()
                    loss = term if loss is None else loss + term
                grads = oar.static.gradients([loss], [xs[i] for i in case.diff])
                fetch = [g for g in grads if g is not None]
                missing = [i for i, g in zip(case.diff, grads) if g is None]
    finally:
        oar.disable_static()
    exe = oar.static.Executor()
    if round_trip:  # attributes come back as JSON values (lists, not tuples): kernels must take them
        main = main.clone()
    res = exe.run(main, feed={f"in{i}": a for i, a in enumerate(case.inputs)}, fetch_list=fetch)
    if weights is not None:
        return res, missing
    return res


@pytest.mark.parametrize("case", CASES_S, ids=repr)
def test_static_forward_equals_eager(case):
    eager = [o.numpy() for o in _outs(case.fn(*case.tensors()))]
    static = _static_run(case)
    assert len(static) == len(eager)
    for s, e in zip(static, eager):
        assert list(np.shape(s)) == list(np.shape(e)), case.name
        assert np.asarray(s).dtype == e.dtype, case.name
        np.testing.assert_allclose(s, e, rtol=1e-6, atol=1e-9, err_msg=case.name)


@pytest.mark.parametrize("case", [c for c in CASES_S if (c.values[0] if hasattr(c, "values") else c).diff], ids=repr)
def test_static_gradient_equals_eager(case):
    rng = np.random.default_rng(7)
    outs = [o for o in _outs(case.fn(*case.tensors())) if o.dtype.kind == "f"]
    weights = [rng.standard_normal(o.shape) for o in outs]
    ts = case.tensors(requires_grad=True)
    loss = None
    for o, w in zip([o for o in _outs(case.fn(*ts)) if o.dtype.kind == "f"], weights):
        term = (o * oar.to_tensor(w)).sum()
        loss = term if loss is None else loss + term
    eager = oar.grad(loss, [ts[i] for i in case.diff], allow_unused=True)
    static, missing = _static_run(case, weights)
    eager_present = [g for g in eager if g is not None]
    assert len(static) == len(eager_present), f"{case.name}: no static gradient for inputs {missing}"
    for s, e in zip(static, eager_present):
        np.testing.assert_allclose(s, e.numpy(), rtol=1e-6, atol=1e-9, err_msg=case.name)


@pytest.mark.parametrize("case", CASES_S, ids=repr)
def test_static_after_json_round_trip(case):
    """Every op (and its gradient ops) still runs after the Program went through its JSON form."""
    eager = [o.numpy() for o in _outs(case.fn(*case.tensors()))]
    static = _static_run(case, round_trip=True)
    for s, e in zip(static, eager):
        np.testing.assert_allclose(s, e, rtol=1e-6, atol=1e-9, err_msg=case.name)
    if case.diff:
        rng = np.random.default_rng(7)
        weights = [rng.standard_normal(o.shape) for o in _outs(case.fn(*case.tensors())) if o.dtype.kind == "f"]
        a, _ = _static_run(case, weights)
        b, _ = _static_run(case, weights, round_trip=True)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-9, err_msg=case.name)
