"""The one liveness analysis (oar.graph.liveness) that the executor, the dead-code pass and the runner use."""
import numpy as np

import oar
from oar.graph import liveness


def _build(fn):
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            out = fn()
    finally:
        oar.disable_static()
    return main, out


def _types(ops):
    return [op.type for op in ops]


def test_fetch_targets_decide_which_ops_are_needed():
    def fn():
        x = oar.static.data('x', [2])
        return x * 2.0, oar.exp(x)
    main, (y, z) = _build(fn)
    ops = main.global_block().ops
    assert _types(liveness.needed_ops(ops, [z.name])) == ["exp"]
    assert _types(liveness.needed_ops(ops, [y.name])) == ["full", "multiply"]
    assert _types(liveness.needed_ops(ops, [y.name, z.name])) == _types(ops)
    # a fed name needs no producer
    assert liveness.needed_ops(ops, [y.name], fed=[y.name]) == []
    assert liveness.read_before_written(ops) == ["x"]
    assert liveness.read_before_written(ops, defined=["x"]) == []


def test_side_effecting_ops_are_kept():
    def fn():
        x = oar.static.data('x', [2])
        oar.static.Print(x)          # nobody reads its output
        return x + 1.0
    main, y = _build(fn)
    ops = main.global_block().ops
    assert "print" in _types(liveness.needed_ops(ops, [y.name]))
    assert _types(liveness.needed_ops(ops, [])) == ["print"]


def test_writes_to_persistable_variables_are_kept():
    def fn():
        x = oar.static.data('x', [2])
        counter = oar.static.create_global_var([2], 0.0, 'float32', persistable=True, name='counter')
        oar.assign(x * 3.0, output=counter)
        return x - 1.0
    main, y = _build(fn)
    kept = liveness.needed_ops(main.global_block().ops, [y.name])
    assert "assign" in _types(kept) and "multiply" in _types(kept)   # the write and what it reads


def test_an_op_with_sub_blocks_reads_what_they_use():
    def fn():
        x = oar.static.data('x', [2])
        w = x * 5.0                                       # read only inside the branches
        oar.exp(x)                                        # read by nobody
        pred = oar.static.data('p', [1], 'bool')
        return oar.static.nn.cond(pred, lambda: w + 1.0, lambda: w - 1.0), w
    main, (out, w) = _build(fn)
    gb = main.global_block()
    cond_op = next(op for op in gb.ops if op.type == "cond")
    assert w.name in liveness.names_in_sub_blocks(cond_op)
    assert w.name in liveness.op_reads(cond_op)
    kept = _types(liveness.needed_ops(gb.ops, [out.name]))
    assert "multiply" in kept and "cond" in kept and "exp" not in kept


def test_last_reads_and_values_released_after_their_last_use():
    def fn():
        x = oar.static.data('x', [2])
        a = oar.exp(x)
        b = a * 2.0
        return b + a, b
    main, (c, b) = _build(fn)
    ops = main.global_block().ops
    last = liveness.last_reads(ops)
    a_name = ops[0].output_names()[0]
    assert last["x"] == 0 and last[a_name] == len(ops) - 1
    assert liveness.dies_at(ops, 0, last, keep={c.name, b.name}) == ["x"]
    assert liveness.dies_at(ops, len(ops) - 1, last, keep={c.name, b.name}) == [a_name]


def test_the_executor_and_dead_code_agree_with_the_analysis():
    def fn():
        x = oar.static.data('x', [None, 2])
        y = oar.tanh(x) * 2.0
        oar.exp(x)  # dead
        return y
    main, y = _build(fn)
    from oar.passes.dead_code import dead_code_elimination
    p = dead_code_elimination(main, keep=[y.name])
    assert _types(p.global_block().ops) == _types(liveness.needed_ops(main.global_block().ops, [y.name]))
    x = np.ones([3, 2], np.float32)
    ref = oar.static.compile_program(main, ["x"], [y.name]).run({"x": x})[0]
    got = oar.static.compile_program(p, ["x"], [y.name]).run({"x": x})[0]
    np.testing.assert_allclose(got, ref)
    np.testing.assert_allclose(ref, np.tanh(x) * 2.0, rtol=1e-6)
