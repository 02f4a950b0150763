"""constant_folding: ops on constants are precomputed; results unchanged."""
import numpy as np

import oar
from oar.passes import constant_folding, dead_code_elimination

from pass_helpers import build, const, run


def test_folds_weight_transforms():
    w, b = const(np.random.rand(3, 4)), const(np.random.rand(3))

    def f(x):
        wt = oar.transpose(w * 2.0, [1, 0])
        return oar.matmul(x, wt) + b.reshape([1, 3])

    p, feeds, fetch = build(f, [("x", [-1, 4], "float32")])
    q = constant_folding(p, keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert types == ["matmul", "add"], types
    assert q.provenance[-1].startswith("constant_folding: folded")
    q = dead_code_elimination(q, keep=fetch)
    assert w.name not in q.global_block().vars
    x = np.random.rand(5, 4).astype("float32")
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-6)


def test_leaves_random_and_fed_ops():
    def f(x):
        return x + oar.rand([3])

    p, feeds, fetch = build(f, [("x", [3], "float32")])
    q = constant_folding(p, keep=fetch)
    assert [op.type for op in q.global_block().ops] == [op.type for op in p.global_block().ops]


def test_leaves_persistable_written_by_program():
    state = const(np.ones(3))

    def f(x):
        return x + state * 3.0

    p, feeds, fetch = build(f, [("x", [3], "float32")])
    p.global_block().append_op("assign", {"x": [fetch[0]]}, {"out": [state.name]})
    q = constant_folding(p, keep=fetch)
    assert "multiply" in [op.type for op in q.global_block().ops]
