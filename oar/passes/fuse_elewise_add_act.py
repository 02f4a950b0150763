"""Elementwise add + activation fusion: ``act(add(x, y))`` becomes one ``fused_elemwise_add_act`` op that adds
and applies the activation in place on one buffer (BuildStrategy.fuse_elewise_add_act_ops).

Needs: the add's output has that single reader (the activation, in the same block) and is not kept; x and y
have the same dtype. Guarantees: the activation's output keeps its name and value; the op has a gradient rule
(``act'`` computed from the output, then summed over broadcast dims), so the pass is valid for training
programs too and the backward no longer keeps the pre-activation sum alive.

Example:
    >>> p = fuse_elewise_add_act(program)   # add, relu -> fused_elemwise_add_act {act="relu"}
"""
from ..kernels import fused
from ..ops.common import infer_broadcast
from ..ops.onnx_rules import activation as onnx_activation, steps as onnx_steps
from ..ops.registry import apply, defop
from .graph import arg_names, consumers, names_read_inside, out_names, sub_blocks
from .contract import verified


ACTS = fused.ADD_ACTS


_CURV = {  # d(act')/d(out) as ops, for the gradient of the gradient op (second order)
    "relu": None,
    "tanh": lambda out: -2 * out,
    "sigmoid": lambda out: 1 - 2 * out,
}


def _fused_grad_grad(gg, d, out, g, act):
    from ..ops.math import zeros_like
    dout = zeros_like(out) if _CURV[act] is None else gg * g * _CURV[act](out)
    return dout, apply(FUSED_ADD_ACT_GRAD, (out, gg), {"act": act})


FUSED_ADD_ACT_GRAD = defop("fused_elemwise_add_act_grad", fused.add_act_grad, inputs=("out", "out_grad"),
                           infer=lambda m, act: [m[1]], grad=_fused_grad_grad)


def _grad(g, out, x, y, act):
    from ..ops.math import unbroadcast
    d = apply(FUSED_ADD_ACT_GRAD, (out, g), {"act": act})
    return (None if x.stop_gradient else unbroadcast(d, x), None if y.stop_gradient else unbroadcast(d, y))


FUSED_ELEMWISE_ADD_ACT = defop("fused_elemwise_add_act", fused.add_act, inputs=("x", "y"),
                               infer=lambda m, act: infer_broadcast(m), grad=_grad)


def fused_elemwise_add_act(x, y, act="relu"):
    """``act(x + y)`` in one op (act: relu, tanh or sigmoid).

    Example:
        >>> out = fused_elemwise_add_act(a, b, "relu")    # == F.relu(a + b)
    """
    if act not in ACTS:
        raise ValueError(f"fused_elemwise_add_act: act must be one of {sorted(ACTS)}, got {act!r}")
    return apply(FUSED_ELEMWISE_ADD_ACT, (x, y), {"act": act})


@verified
def fuse_elewise_add_act(program, keep=()):
    """Returns a copy of `program` with every add -> activation pair fused (in every block)."""
    p = program.clone()
    keep = set(keep)
    readers = consumers(p)
    fused = 0
    for block in p.blocks:
        # names read inside the sub-blocks of this block's ops (a sub-block may read the add's output)
        inner = {n for op in block.ops if sub_blocks(op) for n in names_read_inside(p, op)}
        reader_of = {}
        for op in block.ops:
            for n in op.input_names():
                reader_of[n] = op
        drop, new_ops = set(), []
        for op in block.ops:
            if id(op) in drop:
                continue
            if op.type == "add" and len(op.output_names()) == 1:
                s = out_names(op)[0]
                act = reader_of.get(s)
                x, y = arg_names(op)
                if (act is not None and act.type in ACTS and readers.get(s, 0) == 1 and s not in keep
                        and s not in inner and not act.attrs and _same_dtype(block, x, y)
                        and arg_names(act) == [s]):
                    new_ops.append(type(op)(block, "fused_elemwise_add_act", {"x": [x], "y": [y]},
                                            {"out": [out_names(act)[0]]}, {"act": act.type}, act.loc))
                    drop.add(id(act))
                    if s in block.vars and not block.vars[s].persistable:
                        del block.vars[s]
                    fused += 1
                    continue
            new_ops.append(op)
        block.ops = new_ops
    p._bump()
    p.provenance.append(f"fuse_elewise_add_act: fused {fused} add+activation pairs")
    return p


def _same_dtype(block, x, y):
    try:
        vx, vy = block.var(x), block.var(y)
    except KeyError:
        return False
    return vx.dtype is vy.dtype and vx.dtype.kind == "f"


def _onnx(ctx, op):
    act = onnx_activation(ctx, op, op.attrs["act"])
    onnx_steps(ctx, op, [("Add", [ctx.inp(op, "x"), ctx.inp(op, "y")], {})] + act)


FUSED_ELEMWISE_ADD_ACT.set(onnx=_onnx)
