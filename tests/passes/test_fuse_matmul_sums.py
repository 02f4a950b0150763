"""fuse_matmul_sums: a sum of transposed products becomes one product of concatenations; values unchanged
(up to summation order)."""
import numpy as np

import oar
from oar.passes import fuse_matmul_sums
from oar.graph.executor import compile_program

from pass_helpers import build

rng = np.random.default_rng(0)


def _sum_of_products(*xs):
    a, b = xs[:4], xs[4:]
    total = oar.matmul(a[0], b[0], transpose_x=True)
    for x, y in zip(a[1:], b[1:]):
        total = total + oar.matmul(x, y, transpose_x=True)
    return total


def _feeds(rows=(3, 5, 2, 4)):
    return [(f"a{i}", [r, 6], "float32") for i, r in enumerate(rows)] + \
           [(f"b{i}", [r, 7], "float32") for i, r in enumerate(rows)]


def test_sum_becomes_one_matmul_with_the_same_value():
    p, feeds, fetch = build(_sum_of_products, _feeds())
    q = fuse_matmul_sums(p, keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert types == ["concat", "concat", "matmul"]
    assert q.provenance[-1] == "fuse_matmul_sums: 4 products in 1 sums became 1 matmuls"
    xs = [rng.standard_normal(s).astype("float32") for _, s, _ in _feeds()]
    got = compile_program(q, feeds, fetch).run_values(xs)[0]
    want = compile_program(p, feeds, fetch).run_values(xs)[0]
    assert got.shape == (6, 7)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_not_fused_when_a_product_is_kept_read_twice_or_untransposed():
    p, feeds, fetch = build(_sum_of_products, _feeds())
    first = p.global_block().ops[0].output_names()[0]
    q = fuse_matmul_sums(p, keep=fetch + [first])
    assert [op.type for op in q.global_block().ops].count("matmul") >= 2

    def twice(*xs):
        m = oar.matmul(xs[0], xs[4], transpose_x=True)
        return _sum_of_products(*xs) + m * 0.0 + m
    p2, feeds2, fetch2 = build(twice, _feeds())
    assert "concat" in [op.type for op in fuse_matmul_sums(p2, keep=fetch2).global_block().ops]  # the rest still

    def plain(*xs):
        return sum((oar.matmul(x, y) for x, y in zip(xs[:3], xs[3:])), oar.zeros([6, 6]))
    p3, _, fetch3 = build(plain, [(f"a{i}", [6, 5], "float32") for i in range(3)] +
                          [(f"b{i}", [5, 6], "float32") for i in range(3)])
    assert "concat" not in [op.type for op in fuse_matmul_sums(p3, keep=fetch3).global_block().ops]
