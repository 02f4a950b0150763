"""ONNX lowerings of control flow: `cond` -> If, `while` -> Loop (ops of `control_flow.py`, which imports this
sibling module at its end; it is kept apart because control_flow.py is near the file-size budget).

Sub-blocks become ONNX sub-graphs that read outer values by name (ONNX's outer-scope rule), so captured
inputs need no wiring; every sub-graph output gets its own Identity because ONNX wants them produced inside.
"""
from .control_flow import COND, WHILE


def _branch(ctx, op, block_idx, out_names, label):
    block = ctx.program.blocks[block_idx]
    scope = ctx.enter(block)
    try:
        ctx.lower_ops(block.ops)
        outs = []
        for n in out_names:
            o = ctx.fresh(f"{n}.{label}")
            ctx.node("Identity", [ctx.name(n)], [o])
            outs.append((o, ctx.meta(n)[1]))
    finally:
        ctx.leave()
    return ctx.subgraph(f"{op.type}_{label}", scope, [], outs)


def _cond(ctx, op):
    a = op.attrs
    then_g = _branch(ctx, op, a["true_block"], a["true_outs"], "then")
    else_g = _branch(ctx, op, a["false_block"], a["false_outs"], "else")
    pred = ctx.inp(op, "cond")
    if ctx.in_meta(op, "cond")[1].name != "bool":
        pred = ctx.cast(pred, "bool")
    ctx.node("If", [pred], ctx.outs(op, "out"), then_branch=then_g, else_branch=else_g)


def _eval_cond(ctx, a, values, carried_values):
    """Lowers the loop's cond block on `values` (ONNX names of the loop vars) in the current graph."""
    cb = ctx.program.blocks[a["cond_block"]]
    ctx.enter(cb, share_nodes=True)
    try:
        for n, v in zip(a["cond_in"], values):
            ctx.bind(n, v)
        for n, v in carried_values.items():
            ctx.bind(n, v)
        ctx.lower_ops(cb.ops)
        pred = ctx.name(a["cond_out"])
        shape, dtype = ctx.meta(a["cond_out"])
        if dtype.name != "bool":
            pred = ctx.cast(pred, "bool")
        if shape != []:  # a one-element condition ([1], as Paddle's `i < n` on a [1] counter): Loop takes a scalar
            pred = ctx.node("Reshape", [pred, ctx.ints([])])
        return pred
    finally:
        ctx.leave()


def _while(ctx, op):
    a = op.attrs
    if a.get("save_history"):
        raise ctx.block_op_error(op, "a while loop that keeps its history (for gradients) cannot be exported")
    carried = list(a.get("carried", []))
    carried_body = list(a.get("carried_out", carried))
    init = ctx.ins(op, "x")
    cond0 = _eval_cond(ctx, a, init, {})
    bb = ctx.program.blocks[a["body_block"]]
    body = ctx.enter(bb)
    try:
        it, c_in = ctx.fresh("loop.iter"), ctx.fresh("loop.cond_in")
        g_in = [(it, "int64", []), (c_in, "bool", [])]
        for n in a["body_in"] + carried:
            v = ctx.fresh(f"{n}.in")
            ctx.bind(n, v)
            g_in.append((v, ctx.meta(n)[1]))
        ctx.lower_ops(bb.ops)
        new_x = [ctx.name(n) for n in a["body_out"]]
        new_c = {n: ctx.name(m) for n, m in zip(carried, carried_body)}
        cond = _eval_cond(ctx, a, new_x, new_c)
        g_out = []
        for n, v in [(a["cond_out"], cond)] + list(zip(a["body_out"], new_x)) + \
                [(n, new_c[n]) for n in carried]:
            o = ctx.fresh(f"{n}.next")
            ctx.node("Identity", [v], [o])
            g_out.append((o, "bool" if n == a["cond_out"] else ctx.meta(n)[1]))
    finally:
        ctx.leave()
    graph = ctx.subgraph("while_body", body, g_in, g_out)
    outs = ctx.outs(op, "out")
    ctx.node("Loop", ["", cond0] + init + [ctx.name(n) for n in carried], outs[:len(init) + len(carried)], body=graph)


COND.set(onnx=_cond)
WHILE.set(onnx=_while)
