"""memory_optimize: fused ops write into buffers planned once per input shape; results are unchanged, across runs
and shapes, and a value handed out by one run is never overwritten by the next."""
import numpy as np

import oar.nn.functional as F
from oar.passes import apply_passes, memory_optimize
from oar.graph.executor import Compiled

from pass_helpers import build, const

rng = np.random.default_rng(1)


def net():
    w1, b1 = const(rng.standard_normal([4, 3, 3, 3])), const(rng.standard_normal(4))
    w2, b2 = const(rng.standard_normal([4 * 9, 5]) * 0.1), const(rng.standard_normal(5))

    def f(x):
        y = F.relu(F.conv2d(x, w1, b1, stride=2, padding=1))
        return F.linear(y.flatten(1), w2, b2), y
    return f


def test_planned_buffers_change_no_result():
    p, feeds, fetch = build(net(), [("x", [-1, 3, 6, 6], "float32")])
    fused = apply_passes(p, keep=fetch[:1])   # y is not kept: its conv may reuse its buffer
    q = memory_optimize(fused, keep=fetch[:1])
    planned = [op for op in q.global_block().ops if op.attrs.get("reuse_output")]
    assert [op.type for op in planned] == ["fused_conv2d"]
    assert q.provenance[-1] == "memory_optimize: 1 ops write into reused buffers"
    ref, opt = Compiled(p, feeds, fetch[:1]), Compiled(q, feeds, fetch[:1])
    firsts = []
    for batch in (1, 3, 1, 3):
        x = rng.standard_normal([batch, 3, 6, 6]).astype("float32")
        got = opt.run_values([x])[0]
        np.testing.assert_allclose(got, ref.run_values([x])[0], rtol=1e-4, atol=1e-5)
        firsts.append((got, got.copy()))
    for got, copy in firsts:  # earlier results were not overwritten by later runs
        np.testing.assert_array_equal(got, copy)


def test_kept_outputs_are_not_planned():
    p, feeds, fetch = build(net(), [("x", [-1, 3, 6, 6], "float32")])
    q = memory_optimize(apply_passes(p, keep=fetch), keep=fetch)
    assert not any(op.attrs.get("reuse_output") for op in q.global_block().ops)


def test_fused_linear_planned():
    w1, b1 = const(rng.standard_normal([8, 8])), const(rng.standard_normal(8))
    w2, b2 = const(rng.standard_normal([8, 4])), const(rng.standard_normal(4))
    p, feeds, fetch = build(lambda x: F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), [("x", [-1, 8], "float32")])
    q = memory_optimize(apply_passes(p, keep=fetch), keep=fetch)
    assert [op.attrs.get("reuse_output", False) for op in q.global_block().ops] == [True, False]
    opt, ref = Compiled(q, feeds, fetch), Compiled(p, feeds, fetch)
    for batch in (2, 5, 2):
        x = rng.standard_normal([batch, 8]).astype("float32")
        np.testing.assert_allclose(opt.run_values([x])[0], ref.run_values([x])[0], rtol=1e-5, atol=1e-6)
