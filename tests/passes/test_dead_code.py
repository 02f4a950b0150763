"""dead_code_elimination: unused ops and variables go, fetched results are unchanged."""
import numpy as np
import pytest

import oar
from oar.passes import dead_code_elimination

from pass_helpers import build, const, run


def test_removes_unused_branch_and_param():
    w, unused_w = const(np.random.rand(4, 3)), const(np.random.rand(4, 5))

    def f(x):
        y = oar.matmul(x, w)
        oar.matmul(x, unused_w).exp()  # dead
        return oar.tanh(y)

    p, feeds, fetch = build(f, [("x", [-1, 4], "float32")])
    q = dead_code_elimination(p, keep=fetch)
    assert [op.type for op in q.global_block().ops] == ["matmul", "tanh"]
    assert unused_w.name not in q.global_block().vars
    assert "x" in q.global_block().vars
    assert q.provenance[-1].startswith("dead_code_elimination: removed 2 ops")
    x = np.random.rand(2, 4).astype("float32")
    np.testing.assert_array_equal(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0])
    assert len(p.global_block().ops) == 4  # the input program is untouched


def test_keeps_side_effects():
    def f(x):
        y = x * 2
        x.exp()
        return y

    p, feeds, fetch = build(f, [("x", [3], "float32")])
    persist = p.global_block().create_var("state", [3], "float32", persistable=True)
    p.global_block().append_op("assign", {"x": [p.global_block().ops[-1].output_names()[0]]}, {"out": ["state"]})
    q = dead_code_elimination(p, keep=fetch)
    assert [op.type for op in q.global_block().ops] == ["full", "multiply", "exp", "assign"]
    assert persist.name in q.global_block().vars


def test_needs_keep():
    p, _, _ = build(lambda x: x + 1, [("x", [3], "float32")])
    with pytest.raises(ValueError, match="needs the names"):
        dead_code_elimination(p)
