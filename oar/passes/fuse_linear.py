"""Linear fusion for inference: ``matmul(x, W) [+ b] [-> relu]`` with constant W, b becomes one
``fused_linear`` op that adds the bias and applies the activation in place on the matmul's result.

Needs: W (2-D) and b (1-D, length W.shape[1], same dtype) are constants `scope` holds; each
intermediate has that single reader and is not kept. Guarantees: the last op's output keeps its name and
value; fewer ops and temporary buffers per layer (the ``fused_linear`` op has no gradient: inference only).

Example:
    >>> p = fuse_linear(program)   # matmul, add, relu -> fused_linear {act="relu"}
"""
from ..kernels import fused
from ..ops.onnx_rules import activation as onnx_activation, steps as onnx_steps
from ..ops.registry import defop
from .graph import arg_names, bound_value, consumers, last_readers, out_names, values_scope
from .contract import verified

ACTS = fused.EPILOGUE_ACTS


def _lower(compiler, op):
    """The executor's kernel (`oar.kernels.fused.linear_runner`): keyword-free, with one output buffer per input
    shape when the `memory_optimize` pass set ``reuse_output``."""
    return fused.linear_runner(op.attrs.get("act"), op.attrs.get("reuse_output", False))


def _infer(metas, act=None, reuse_output=False):
    (xs, xd), (ws, _) = metas[0], metas[1]
    return [(list(xs[:-1]) + [ws[1]], xd)]


FUSED_LINEAR = defop("fused_linear", fused.linear, inputs=("x", "w", "b"), infer=_infer, lower=_lower,
                     differentiable=False)


@verified
def fuse_linear(program, keep=(), activation=True, scope=None):
    """Returns a copy of `program` with constant-weight matmul + bias [+ relu] chains fused (``activation=False``:
    matmul + bias only); constants are read from `scope` (`global_scope()` when None)."""
    scope = values_scope(scope)
    p = program.clone()
    gb = p.global_block()
    keep = set(keep)
    readers = consumers(p)
    reader_of = last_readers(gb)
    fused, drop = 0, set()
    for op in list(gb.ops):
        if op.type != "matmul" or id(op) in drop or op.attrs.get("transpose_x") or op.attrs.get("transpose_y"):
            continue
        x, w = arg_names(op)
        wv, xv = bound_value(p, w, scope), gb.vars.get(x)
        if wv is None or wv.ndim != 2 or xv is None or xv.dtype.np != wv.dtype or len(xv.shape) < 1:
            continue
        chain, bias, act, last = [op], None, None, out_names(op)[0]
        nxt = _single_reader(last, readers, reader_of, keep)
        if nxt is not None and nxt.type == "add" and arg_names(nxt)[0] == last:
            bv = bound_value(p, arg_names(nxt)[1], scope)
            if bv is not None and bv.ndim == 1 and bv.shape[0] == wv.shape[1] and bv.dtype == wv.dtype:
                bias, last = arg_names(nxt)[1], out_names(nxt)[0]
                chain.append(nxt)
                nxt = _single_reader(last, readers, reader_of, keep)
        if activation and nxt is not None and nxt.type in ACTS:
            act, last = nxt.type, out_names(nxt)[0]
            chain.append(nxt)
        if len(chain) == 1:
            continue
        ins = {"x": [x], "w": [w]}
        if bias is not None:
            ins["b"] = [bias]
        idx = gb.ops.index(op)
        gb.ops[idx] = type(op)(gb, "fused_linear", ins, {"out": [last]}, {"act": act}, chain[-1].loc)
        drop.update(id(o) for o in chain[1:])
        fused += 1
    gb.ops = [o for o in gb.ops if id(o) not in drop]
    p._bump()
    p.provenance.append(f"fuse_linear: fused {fused} linear chains")
    return p


def _single_reader(name, readers, reader_of, keep):
    if readers.get(name, 0) != 1 or name in keep:
        return None
    return reader_of.get(name)


def _onnx(ctx, op):
    nodes = [("MatMul", [ctx.inp(op, "x"), ctx.inp(op, "w")], {})]
    if op.inputs.get("b"):
        nodes.append(("Add", [None, ctx.inp(op, "b")], {}))
    act = onnx_activation(ctx, op, op.attrs.get("act"))
    nodes.extend(act)
    onnx_steps(ctx, op, nodes)


FUSED_LINEAR.set(onnx=_onnx, amp="white")
