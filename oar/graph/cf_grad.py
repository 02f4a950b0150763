"""Gradient rules of the control-flow ops (called by `backward.backward_ops` like any other rule).

cond: the gradient is another `cond` on the same predicate whose branches recompute their forward branch and
then run its backward. while: the forward `while` is switched to keep each iteration's inputs (a history list);
a `while_grad` op walks that history backwards, running the recomputed body's backward per iteration and
accumulating the gradients of the outer variables the body reads.
"""
import copy

import numpy as np

from ..ops.common import not_differentiable_again
from ..ops.registry import defop
from .backward import CTX, backward_ops, building, differentiable, is_array, requires_grad, zeros_grad
from .control_flow import externals, sub_block
from .op_checks import count_problem, distinct_problem, fields_problem


def _clone_into(dst, src, outer=None):
    """Copies the variables and ops of block `src` into `dst` (forward recompute in a gradient block), in SSA
    form: an op that overwrites a name (an in-place ``array_write``, an assignment to an outer variable) defines
    a fresh name from there on, so the gradient ops appended after the recompute read the values the forward
    ops saw. Returns ``(ops, rename)`` with `rename` mapping original names to their final names.

    `outer` maps outer names already renamed by an enclosing clone; ops with sub-blocks reading such a name get
    their sub-blocks cloned too."""
    from ..ir.printer import sub_blocks
    for v in src.vars.values():
        if v.name not in dst.vars:
            nv = dst.create_var(v.name, v.shape, v.dtype, persistable=v.persistable, stop_gradient=v.stop_gradient,
                                is_parameter=v.is_parameter, trainable=v.trainable, is_data=v.is_data)
            nv.attrs = dict(v.attrs)
    cur, seen, ops = dict(outer or {}), set(), []
    for op in src.ops:
        ins = {k: [cur.get(n, n) for n in names] for k, names in op.inputs.items()}
        attrs = copy.deepcopy(op.attrs)
        if sub_blocks(op) and any(n in cur for n in op.input_names()):
            _reclone_sub_blocks(op, attrs, dst, cur)
        seen.update(op.input_names())
        outs = {}
        for k, names in op.outputs.items():
            new = []
            for n in names:
                if n in seen or n not in src.vars:
                    old = src.var(n)
                    v = dst.create_var(dst.program.unique_name(n.split("@SSA")[0] + "@SSA"), old.shape, old.dtype,
                                       stop_gradient=old.stop_gradient)
                    v.attrs = dict(old.attrs)
                    cur[n] = v.name
                seen.add(n)
                new.append(cur.get(n, n))
            outs[k] = new
        ops.append(dst.append_op(op.type, ins, outs, attrs, op.loc))
    return ops, cur


def _reclone_sub_blocks(op, attrs, dst, cur):
    """Clones the sub-blocks of `op` under `dst` with the renamed outer names `cur`; fixes the attributes that
    name sub-block values."""
    from ..ir.printer import block_attrs
    prog = dst.program
    fin = {}
    for key in block_attrs(op):
        if key in attrs:
            nb = prog.create_block(dst.idx)
            _, fin[key] = _clone_into(nb, prog.blocks[attrs[key]], cur)
            attrs[key] = nb.idx
    if op.type == "cond":
        for key, outs in (("true_block", "true_outs"), ("false_block", "false_outs")):
            attrs[outs] = [fin[key].get(n, n) for n in attrs[outs]]
    elif op.type == "while":
        attrs["cond_out"] = fin["cond_block"].get(attrs["cond_out"], attrs["cond_out"])
        attrs["body_out"] = [fin["body_block"].get(n, n) for n in attrs["body_out"]]
        carried = attrs.get("carried", [])
        attrs["carried_out"] = [fin["body_block"].get(n, n) for n in attrs.get("carried_out", carried)]
        attrs["carried"] = [cur.get(n, n) for n in carried]
    else:
        raise NotImplementedError(f"recomputing op {op.type!r} with renamed inputs in a gradient block")


def _zeros_in(block, name):
    with building(block):
        return zeros_grad(block.var(name))


def _grad_var(block, name, like):
    v = block.create_var(name, like.shape, like.dtype, stop_gradient=False)
    if is_array(like):
        v.attrs["kind"] = "tensor_array"
    return v


def _branch_grad(prog, src_idx, outs, gouts, want):
    """A gradient block for branch `src_idx`: returns (block, names of the grads of `want`)."""
    with sub_block(prog) as g:
        fwd, rename = _clone_into(g, prog.blocks[src_idx])
    pairs = [(rename.get(n, n), gv) for n, gv in zip(outs, gouts) if gv is not None]
    req = requires_grad(fwd, g, want)
    grads = backward_ops(g, fwd, [n for n, _ in pairs], [gv for _, gv in pairs], req)
    res = [grads[n] if grads.get(n) is not None else _zeros_in(g, n) for n in want]
    return g, [v.name for v in res]


def cond_grad(gouts, outs, pred, *captured, **attrs):
    op, req = CTX.op, CTX.req
    block, prog = op.block, op.block.program
    cap = op.input("input")
    want = [n for n in cap if n in req and differentiable(block.var(n))]
    if not want:
        return (None,) * (1 + len(captured))
    tb, tnames = _branch_grad(prog, attrs["true_block"], attrs["true_outs"], gouts, want)
    fb, fnames = _branch_grad(prog, attrs["false_block"], attrs["false_outs"], gouts, want)
    tr, _ = externals(tb, tnames)
    fr, _ = externals(fb, fnames)
    ins = list(dict.fromkeys(tr + fr))
    res = [_grad_var(block, prog.unique_name("cond_grad.out"), block.var(n)) for n in want]
    block.append_op("cond", {"cond": [pred.name], "input": ins}, {"out": [v.name for v in res]},
                    {"true_block": tb.idx, "false_block": fb.idx, "true_outs": tnames, "false_outs": fnames},
                    op.loc)
    got = dict(zip(want, res))
    return (None,) + tuple(got.get(n) for n in cap)


# ---- while ----------------------------------------------------------------------------------------------------

def _while_grad_impl(*args, **attrs):
    raise RuntimeError("the while_grad op runs only inside a Program")


def _add(x, y):
    if type(x) is list:
        from .tensor_array import _array_add
        return _array_add(x, y)
    return x + y


def _while_grad_lower(compiler, op):
    a = op.attrs
    ext = op.input("input")
    fcap = a["fwd_captured"]
    gfn, _ = compiler.compile_block(a["grad_block"], a["body_in"] + a["gout_in"] + ext, a["grad_outs"])
    ng = len(a["gout_in"])
    pos = [fcap.index(n) if n in fcap else -1 for n in ext]
    zero_from = [ext.index(n) for n in a["want_captured"]]

    def run(hist, *args):
        g, extv = args[:ng], args[ng:]
        acc = None
        for vals, capv in reversed(hist):
            e = [capv[p] if p >= 0 else extv[j] for j, p in enumerate(pos)]
            res = gfn(*vals, *g, *e)
            g, c = res[:ng], res[ng:]
            acc = list(c) if acc is None else [_add(x, y) for x, y in zip(acc, c)]
        if acc is None:
            acc = [[] if type(extv[j]) is list else np.zeros_like(extv[j]) for j in zero_from]
        return tuple(g) + tuple(acc)
    return run


WHILE_GRAD = defop("while_grad", _while_grad_impl, inputs=("history", "out_grad", "input"), outputs=("out*",),
                   lower=_while_grad_lower, infer=lambda m, **a: [],
                   grad=not_differentiable_again("while_grad", "the gradient of a while loop in a static program"))


def _while_grad_verify(inputs, outputs, a):
    bad = fields_problem(a, ints=("grad_block",), names=("body_in", "gout_in", "grad_outs", "fwd_captured",
                                                          "want_captured"))
    if bad:
        return bad
    ext = inputs.get("input", [])
    return (count_problem(len(inputs.get("history", [])), 1, "input 'history'")
            or count_problem(len(inputs.get("out_grad", [])), len(a["gout_in"]), "input 'out_grad'")
            or next((f"want_captured {n!r:.80} is not an input" for n in a["want_captured"] if n not in ext), None)
            or distinct_problem(a["body_in"] + a["gout_in"] + ext, "body_in + gout_in + input")
            or count_problem(len(a["grad_outs"]), len(a["gout_in"]) + len(ext), "grad_outs")
            or count_problem(len(outputs.get("out", [])), len(a["gout_in"]) + len(a["want_captured"]), "output 'out'"))


WHILE_GRAD.set(verify=_while_grad_verify, block_attrs=("grad_block",), onnx_reason="training-only")


def _ensure_history(op, block, prog):
    """Switches the forward `while` op to keep each iteration's inputs; returns the history variable's name."""
    if not op.attrs.get("save_history"):
        h = block.create_var(prog.unique_name("while.history"), [], "float32")
        h.attrs["kind"] = "tensor_array"
        h.attrs["history"] = True
        op.attrs["save_history"] = True
        op.outputs["history"] = [h.name]
        prog._bump()
    return op.output("history")[0]


def while_grad(gouts, outs, *inputs, **attrs):
    """Loop variables and carried outer variables (those the body assigns) flow backwards through the
    iterations; the gradients of the other captured variables are summed over the iterations."""
    op, req = CTX.op, CTX.req
    block, prog = op.block, op.block.program
    xs, cap = op.input("x"), op.input("input")
    nx = len(xs)
    body = prog.blocks[attrs["body_block"]]
    body_in, body_out = attrs["body_in"], attrs["body_out"]
    carried = list(attrs.get("carried", []))
    fx = [i for i, n in enumerate(body_in) if differentiable(body.var(n))]
    fcar = [n for n in carried if differentiable(block.var(n))]
    want_c = [n for n in cap if n in req and n not in carried and differentiable(block.var(n))]
    if not any(xs[i] in req for i in fx) and not want_c and not any(n in req for n in fcar):
        return (None,) * len(inputs)
    hist = _ensure_history(op, block, prog)
    with sub_block(prog) as g:
        fwd, rename = _clone_into(g, body)
        carried_out = dict(zip(carried, attrs.get("carried_out", carried)))
        loop_in = [body_in[i] for i in fx] + fcar
        loop_out = [rename.get(body_out[i], body_out[i]) for i in fx] + \
            [rename.get(carried_out[n], carried_out[n]) for n in fcar]
        gin = [_grad_var(g, prog.unique_name("while_grad.gout"), g.var(n)) for n in loop_out]
    req_b = requires_grad(fwd, g, loop_in + want_c)
    grads = backward_ops(g, fwd, loop_out, gin, req_b)
    res = [grads[n] if grads.get(n) is not None else _zeros_in(g, n) for n in loop_in + want_c]
    gouts_names = [v.name for v in res]
    ext, _ = externals(g, gouts_names)
    ext = [n for n in ext if n not in g.vars]
    ext = list(dict.fromkeys(ext + want_c))
    out_idx = list(fx) + [nx + carried.index(n) for n in fcar]
    out_grads = [gouts[i] if gouts[i] is not None else zeros_grad(outs[i]) for i in out_idx]
    gx = [_grad_var(block, prog.unique_name("while_grad.x"), block.var(xs[i])) for i in fx]
    gcar = [_grad_var(block, prog.unique_name("while_grad.carried"), block.var(n)) for n in fcar]
    gc = [_grad_var(block, prog.unique_name("while_grad.input"), block.var(n)) for n in want_c]
    block.append_op("while_grad", {"history": [hist], "out_grad": [v.name for v in out_grads], "input": ext},
                    {"out": [v.name for v in gx + gcar + gc]},
                    {"grad_block": g.idx, "body_in": list(body_in), "gout_in": [v.name for v in gin],
                     "grad_outs": gouts_names, "fwd_captured": list(cap), "want_captured": want_c}, op.loc)
    by_x = {i: v for i, v in zip(fx, gx)}
    by_c = dict(zip(want_c, gc))
    by_c.update(zip(fcar, gcar))
    return tuple(by_x.get(i) for i in range(nx)) + tuple(by_c.get(n) for n in cap)
