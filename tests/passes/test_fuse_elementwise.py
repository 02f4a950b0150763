"""fuse_elementwise: elementwise trees become one op with out= buffers; every kept value bitwise unchanged."""
import numpy as np

import oar
import oar.nn.functional as F
from oar.passes import fuse_elementwise
from oar.graph.executor import compile_program

from pass_helpers import build, const

rng = np.random.default_rng(0)


def _lstm_like(x, h, c):
    i, f, g, o = F.sigmoid(x * 2.0 + h), F.sigmoid(x - h), oar.tanh(x * h), F.sigmoid(h / (x * x + 1.0))
    c2 = f * c + i * g
    return o * oar.tanh(c2), c2


def test_lstm_cell_chain_fused_and_bitwise_unchanged_over_runs():
    p, feeds, fetch = build(_lstm_like, [(n, [4, 8], "float32") for n in ("x", "h", "c")])
    q = fuse_elementwise(p, keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert types.count("fused_elementwise") >= 1 and "tanh" not in types and "sigmoid" not in types
    assert q.provenance[-1].startswith("fuse_elementwise:")
    plan_p, plan_q = compile_program(p, feeds, fetch), compile_program(q, feeds, fetch)
    outs = []
    for _ in range(3):   # later runs write into the buffers of the first
        xs = [rng.standard_normal([4, 8]).astype("float32") for _ in feeds]
        a, b = plan_p.run_values(xs), plan_q.run_values(xs)
        for u, v in zip(a, b):
            np.testing.assert_array_equal(v, u)
        outs.append([v.copy() for v in b])
        held = b
    for u, v in zip(held, outs[-1]):
        np.testing.assert_array_equal(u, v)   # values handed out are not overwritten by later runs


def test_values_read_twice_kept_or_with_unknown_dims_are_not_fused():
    def f(x, y):
        s = x * y
        return oar.tanh(s) + s

    p, feeds, fetch = build(f, [("x", [3], "float32"), ("y", [3], "float32")])
    q = fuse_elementwise(p, keep=fetch)
    ops = q.global_block().ops
    assert [op.type for op in ops].count("fused_elementwise") == 1   # tanh(s) + s: s has two readers
    assert "multiply" in [op.type for op in ops]
    p2, feeds2, fetch2 = build(lambda x: oar.exp(oar.tanh(x)), [("x", [-1, 3], "float32")])
    assert "fused_elementwise" not in [op.type for op in fuse_elementwise(p2, keep=fetch2).global_block().ops]
    p3, _, fetch3 = build(lambda x: oar.exp(oar.tanh(x)), [("x", [2, 3], "float32")])
    tanh_out = p3.global_block().ops[0].output_names()[0]
    q3 = fuse_elementwise(p3, keep=fetch3 + [tanh_out])
    assert "fused_elementwise" not in [op.type for op in q3.global_block().ops]


def test_broadcasting_and_constants_inside_a_chain():
    b = const(rng.standard_normal(5))
    p, feeds, fetch = build(lambda x: F.relu(x * b + 1.0) / 3.0, [("x", [2, 5], "float32")])
    q = fuse_elementwise(p, keep=fetch)
    assert [op.type for op in q.global_block().ops if op.type != "full"] == ["fused_elementwise"]
    x = rng.standard_normal([2, 5]).astype("float32")
    for _ in range(2):
        np.testing.assert_array_equal(compile_program(q, feeds, fetch).run_values([x])[0],
                                      compile_program(p, feeds, fetch).run_values([x])[0])


def test_final_buffer_reused_only_when_the_value_never_leaves_the_run():
    w = const(rng.standard_normal([8, 3]))
    p, feeds, fetch = build(lambda x, y: oar.matmul(oar.tanh(x * y + 1.0), w), [("x", [4, 8], "float32"),
                                                                              ("y", [4, 8], "float32")])
    q = fuse_elementwise(p, keep=fetch)
    fused = [op for op in q.global_block().ops if op.type == "fused_elementwise"]
    assert len(fused) == 1 and fused[0].attrs["reuse_out"] is True      # its one reader is a matmul
    p2, feeds2, fetch2 = build(lambda x, y: oar.tanh(x * y + 1.0), [("x", [4, 8], "float32"),
                                                                   ("y", [4, 8], "float32")])
    q2 = fuse_elementwise(p2, keep=fetch2)
    assert [op for op in q2.global_block().ops if op.type == "fused_elementwise"][0].attrs["reuse_out"] is False
    plan_p, plan_q = compile_program(p, feeds, fetch), compile_program(q, feeds, fetch)
    for _ in range(3):
        xs = [rng.standard_normal([4, 8]).astype("float32") for _ in feeds]
        np.testing.assert_array_equal(plan_q.run_values(xs)[0], plan_p.run_values(xs)[0])


def test_fused_sigmoid_keeps_the_relative_precision_of_small_results():
    """The chain's sigmoid is the kernel's ``1 / (1 + exp(-x))``: ``sigmoid(-17.2) ** 0.4``-style IoU-aware scores
    of YOLOv3 heads need small results exact (the former tanh form gave 0 below -17)."""
    p, feeds, fetch = build(lambda x: F.sigmoid(x * 2.0) * 3.0, [("x", [4], "float32")])
    q = fuse_elementwise(p, keep=fetch)
    assert [op.type for op in q.global_block().ops].count("fused_elementwise") == 1
    x = np.array([-8.6131, -15.0, -40.0, 3.0], np.float32)
    got = compile_program(q, feeds, fetch).run_values([x])[0]
    np.testing.assert_allclose(got, 3.0 / (1 + np.exp(-2.0 * x.astype(np.float64))), rtol=3e-7, atol=0)


def test_a_sum_whose_terms_are_made_one_by_one_stays_a_run_of_adds():
    def f(x, w):  # s = t0 + t1 + t2, each term a matmul made after the previous add (a gradient over time steps)
        s = oar.matmul(x, w) + oar.matmul(x * 2.0, w)
        s = s + oar.matmul(x * 3.0, w)
        return oar.tanh(s)

    p, feeds, fetch = build(f, [("x", [3, 4], "float32"), ("w", [4, 4], "float32")])
    types = [op.type for op in p.global_block().ops]
    assert types.index("add") < max(i for i, t in enumerate(types) if t == "matmul")   # the third term comes later
    q = fuse_elementwise(p, keep=fetch)
    ops = q.global_block().ops
    # the first add waits for nothing: it stays; the second add and tanh (all operands there) are one chain
    assert [op.type for op in ops].count("add") == 1 and [op.type for op in ops].count("fused_elementwise") == 1
    xs = [rng.standard_normal([3, 4]).astype("float32"), rng.standard_normal([4, 4]).astype("float32")]
    for u, v in zip(compile_program(p, feeds, fetch).run_values(xs), compile_program(q, feeds, fetch).run_values(xs)):
        np.testing.assert_array_equal(v, u)
