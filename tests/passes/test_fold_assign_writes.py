"""fold_assign_writes: ``t = op(...); ...; assign(t) -> P`` becomes ``P = op(...)`` only where no reader can tell."""
import numpy as np
import pytest

import oar
from oar.graph.program import Program
from oar.passes import fold_assign_writes
from oar.graph.executor import compile_program


def _program(between=None, extra_reader=False):
    """x (fed), w (persistable): t = w * x; [between]; assign(t) -> w; out = w + x (+ t when extra_reader)."""
    p = Program()
    gb = p.global_block()
    gb.create_var("x", [3], "float32", is_data=True)
    gb.create_var("w", [3], "float32", persistable=True)
    for n in ("t", "u", "out"):
        gb.create_var(n, [3], "float32")
    gb.append_op("multiply", {"x": ["w"], "y": ["x"]}, {"out": ["t"]})
    if between == "read":
        gb.append_op("add", {"x": ["w"], "y": ["x"]}, {"out": ["u"]})
    elif between == "write":
        gb.append_op("add", {"x": ["x"], "y": ["x"]}, {"out": ["w"]})
    gb.append_op("assign", {"x": ["t"]}, {"out": ["w"]})
    gb.append_op("add", {"x": ["w"], "y": ["t" if extra_reader else "x"]}, {"out": ["out"]})
    return p


def _run(program, fetch, steps=3):
    """Runs `steps` times on one scope (the persistable w carries over); returns every fetch and w."""
    scope = oar.static.Scope()
    scope.vars["w"] = np.array([1.0, 2.0, 3.0], np.float32)
    plan = compile_program(program, ["x"], fetch)
    got = []
    for k in range(steps):
        got.append(plan.run({"x": np.full([3], 0.5 + k, np.float32)}, scope))
    return got, np.asarray(scope.vars["w"])


def test_folds_the_trailing_assign_into_the_producer_with_the_same_values():
    p = _program()
    fetch = ["out"]
    q = fold_assign_writes(p, keep=fetch)
    ops = q.global_block().ops
    assert [op.type for op in ops] == ["multiply", "add"] and ops[0].outputs["out"] == ["w"]
    assert "t" not in q.global_block().vars
    assert q.provenance[-1] == "fold_assign_writes: 1 assign(s) into persistable variables folded"
    (a, wa), (b, wb) = _run(p, fetch), _run(q, fetch)
    np.testing.assert_array_equal(wa, wb)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x[0], y[0])


@pytest.mark.parametrize("case", ["read between", "write between", "kept", "second reader"])
def test_leaves_the_assign_where_folding_could_change_a_value(case):
    p = _program(between=case.split()[0] if "between" in case else None, extra_reader=case == "second reader")
    fetch = ["out", "u"] if case == "read between" else (["out", "t"] if case == "kept" else ["out"])
    q = fold_assign_writes(p, keep=fetch)
    assert [op.type for op in q.global_block().ops] == [op.type for op in p.global_block().ops]
    (a, wa), (b, wb) = _run(p, fetch), _run(q, fetch)
    np.testing.assert_array_equal(wa, wb)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
