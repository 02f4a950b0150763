"""Gradient rules of the control-flow ops (called by `backward.backward_ops` like any other rule).

cond: the gradient is another `cond` on the same predicate whose branches recompute their forward branch and
then run its backward. while: the forward `while` is switched to keep each iteration's inputs (a history list);
a `while_grad` op walks that history backwards, running the recomputed body's backward per iteration and
accumulating the gradients of the outer variables the body reads.
"""
import copy

import numpy as np

from ..ops.registry import defop
from .backward import CTX, backward_ops, building, differentiable, requires_grad
from .control_flow import externals, sub_block


def _clone_into(dst, src):
    """Copies the variables and ops of block `src` into `dst` (forward recompute in a gradient block)."""
    for v in src.vars.values():
        if v.name not in dst.vars:
            nv = dst.create_var(v.name, v.shape, v.dtype, persistable=v.persistable, stop_gradient=v.stop_gradient,
                                is_parameter=v.is_parameter, trainable=v.trainable, is_data=v.is_data)
            nv.attrs = dict(v.attrs)
    return [dst.append_op(op.type, {k: list(n) for k, n in op.inputs.items()},
                          {k: list(n) for k, n in op.outputs.items()}, copy.deepcopy(op.attrs), op.loc)
            for op in src.ops]


def _zeros_in(block, name):
    from ..ops.math import zeros_like
    with building(block):
        return zeros_like(block.var(name))


def _branch_grad(prog, src_idx, outs, gouts, want):
    """A gradient block for branch `src_idx`: returns (block, names of the grads of `want`)."""
    with sub_block(prog) as g:
        fwd = _clone_into(g, prog.blocks[src_idx])
    pairs = [(n, gv) for n, gv in zip(outs, gouts) if gv is not None]
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
    res = [block.create_var(prog.unique_name("cond_grad.out"), block.var(n).shape, block.var(n).dtype,
                            stop_gradient=False) for n in want]
    block.append_op("cond", {"cond": [pred.name], "input": ins}, {"out": [v.name for v in res]},
                    {"true_block": tb.idx, "false_block": fb.idx, "true_outs": tnames, "false_outs": fnames},
                    op.loc)
    got = dict(zip(want, res))
    return (None,) + tuple(got.get(n) for n in cap)


# ---- while ----------------------------------------------------------------------------------------------------

def _while_grad_impl(*args, **attrs):
    raise RuntimeError("the while_grad op runs only inside a Program")


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
            acc = list(c) if acc is None else [x + y for x, y in zip(acc, c)]
        if acc is None:
            acc = [np.zeros_like(extv[j]) for j in zero_from]
        return tuple(g) + tuple(acc)
    return run


WHILE_GRAD = defop("while_grad", _while_grad_impl, inputs=("history", "out_grad", "input"), outputs=("out*",),
                   lower=_while_grad_lower, infer=lambda m, **a: [])


def while_grad(gouts, outs, *inputs, **attrs):
    op, req = CTX.op, CTX.req
    block, prog = op.block, op.block.program
    xs, cap = op.input("x"), op.input("input")
    body = prog.blocks[attrs["body_block"]]
    body_in, body_out = attrs["body_in"], attrs["body_out"]
    fx = [i for i, n in enumerate(body_in) if differentiable(body.var(n))]
    want_c = [n for n in cap if n in req and differentiable(block.var(n))]
    if not any(xs[i] in req for i in fx) and not want_c:
        return (None,) * len(inputs)
    if attrs.get("carried"):
        raise NotImplementedError("the gradient of a while_loop whose body assigns outer variables "
                                  f"({attrs['carried']}) is not supported")
    if not op.attrs.get("save_history"):
        h = block.create_var(prog.unique_name("while.history"), [], "float32")
        h.attrs["kind"] = "tensor_array"
        op.attrs["save_history"] = True
        op.outputs["history"] = [h.name]
        prog._bump()
    hist = op.output("history")[0]
    with sub_block(prog) as g:
        fwd = _clone_into(g, body)
        gin = [g.create_var(prog.unique_name("while_grad.gout"), g.var(body_out[i]).shape,
                            g.var(body_out[i]).dtype, stop_gradient=False) for i in fx]
    req_b = requires_grad(fwd, g, [body_in[i] for i in fx] + want_c)
    grads = backward_ops(g, fwd, [body_out[i] for i in fx], gin, req_b)
    res = [grads[n] if grads.get(n) is not None else _zeros_in(g, n) for n in [body_in[i] for i in fx] + want_c]
    gouts_names = [res_v.name for res_v in res]
    ext, _ = externals(g, gouts_names)
    ext = [n for n in ext if n not in g.vars]
    ext = list(dict.fromkeys(ext + want_c))
    out_grads = [gouts[i] if gouts[i] is not None else None for i in fx]
    if any(v is None for v in out_grads):
        from ..ops.math import zeros_like
        out_grads = [v if v is not None else zeros_like(outs[i]) for v, i in zip(out_grads, fx)]
    gx = [block.create_var(prog.unique_name("while_grad.x"), block.var(xs[i]).shape, block.var(xs[i]).dtype,
                           stop_gradient=False) for i in fx]
    gc = [block.create_var(prog.unique_name("while_grad.input"), block.var(n).shape, block.var(n).dtype,
                           stop_gradient=False) for n in want_c]
    block.append_op("while_grad", {"history": [hist], "out_grad": [v.name for v in out_grads], "input": ext},
                    {"out": [v.name for v in gx + gc]},
                    {"grad_block": g.idx, "body_in": list(body_in), "gout_in": [v.name for v in gin],
                     "grad_outs": gouts_names, "fwd_captured": list(cap), "want_captured": want_c}, op.loc)
    by_x = {i: v for i, v in zip(fx, gx)}
    by_c = dict(zip(want_c, gc))
    return tuple(by_x.get(i) for i in range(len(xs))) + tuple(by_c.get(n) for n in cap)
