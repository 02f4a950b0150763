"""Batch-norm folding: an inference-mode batch_norm after a conv2d or a linear (matmul [+ add bias]) becomes
a rescaled weight (and bias) plus one per-channel add.

    y = (conv(x, W) + b - mean) * gamma / sqrt(var + eps) + beta
      = conv(x, W * s) + b * s + (beta - mean * s),      s = gamma / sqrt(var + eps)

Needs: the weights, biases and batch-norm statistics are constants `scope` holds (an inference
program); the batch_norm is in inference mode (``training=False`` / ``is_test`` / ``use_global_stats``), and
every intermediate between the conv/matmul and the batch_norm has that single reader and is not kept.
Guarantees: the batch_norm's output variable keeps its name and value (up to rounding); scaled weights are
new constants (the originals are untouched, DCE drops them when unused).

Example:
    >>> p = fold_batch_norm(program)
    >>> [op.type for op in p.global_block().ops]   # conv2d, add  (no batch_norm)
"""
import numpy as np

from ..kernels.norm import batch_norm_affine
from .graph import arg_names, bound_value, consumers, opdef, out_names, values_scope
from .contract import verified

BN_TYPES = ("batch_norm",)
CONV_TYPES = ("conv2d", "conv1d", "conv3d")


def _slots(op):
    """slot name -> variable name, for the op's declared inputs."""
    d = opdef(op)
    return {s: op.inputs[s][0] for s in d.inputs if op.inputs.get(s)}


def _find(slots, *keys):
    """The variable of the first slot among `keys` that the op has."""
    return next((slots[k] for k in keys if k in slots), None)


def _bn_inference(op):
    a = op.attrs
    return a.get("training") is False or a.get("is_test") is True or a.get("use_global_stats") is True


def _new_const(p, scope, base, value):
    name = p.unique_name(base + ".folded")
    gb = p.global_block()
    gb.create_var(name, list(value.shape), str(value.dtype), persistable=True, stop_gradient=True)
    scope.vars[name] = np.ascontiguousarray(value)
    return name


def _try_fold(p, scope, bn, producers, readers, keep):
    fmt = str(bn.attrs.get("data_format", "NCHW"))
    if fmt.endswith("C") and fmt != "NC":  # channels last: the per-channel scale is not along axis 1
        return False
    gb = p.global_block()
    s = _slots(bn)
    x = _find(s, "x", "input")
    mean, var = _find(s, "running_mean", "mean"), _find(s, "running_var", "variance", "var")
    gamma, beta = _find(s, "weight", "scale"), _find(s, "bias")
    vals = {k: bound_value(p, n, scope) if n else None for k, n in (("mean", mean), ("var", var), ("gamma", gamma),
                                                          ("beta", beta))}
    if x is None or vals["mean"] is None or vals["var"] is None:
        return False
    eps = float(bn.attrs.get("epsilon", bn.attrs.get("eps", 1e-5)))
    c = vals["mean"].shape[0]
    scale, shift = batch_norm_affine(vals["mean"], vals["var"], vals["gamma"], vals["beta"], eps)
    rank = len(gb.vars[x].shape)
    # walk back: optional per-channel bias add, then the conv / matmul
    chain, cur, bias_add = [], x, None
    op = producers.get(cur)
    if op is not None and op.type == "add" and readers.get(cur, 0) == 1 and cur not in keep:
        a, b = arg_names(op)
        bv = bound_value(p, b, scope)
        if bv is not None and _per_channel(bv, c, rank):
            bias_add, cur = (op, b, bv), a
            op = producers.get(cur)
    if op is None or readers.get(cur, 0) != 1 or cur in keep:
        return False
    if op.type in CONV_TYPES and _conv_ok(op):
        ws = _slots(op)
        w_name = _find(ws, "filter", "weight", "w")
        w = bound_value(p, w_name, scope) if w_name else None
        if w is None or w.shape[0] != c:
            return False
        conv_b = _find(ws, "bias", "b")
        new_w = w * scale.reshape([-1] + [1] * (w.ndim - 1)).astype(w.dtype)
        slot_w = [k for k, n in ws.items() if n == w_name][0]
        chain.append((op, slot_w, _new_const(p, scope, w_name, new_w)))
        if conv_b is not None:
            bv = bound_value(p, conv_b, scope)
            if bv is None:
                return False
            slot_b = [k for k, n in ws.items() if n == conv_b][0]
            chain.append((op, slot_b, _new_const(p, scope, conv_b, (bv * scale.reshape(bv.shape)).astype(bv.dtype))))
        bshape = [c] + [1] * (rank - 2)
    elif op.type == "matmul" and rank == 2 and not op.attrs.get("transpose_x") and not op.attrs.get("transpose_y"):
        a, w_name = arg_names(op)
        w = bound_value(p, w_name, scope)
        if w is None or w.ndim != 2 or w.shape[1] != c:
            return False
        chain.append((op, "y", _new_const(p, scope, w_name, (w * scale[None, :]).astype(w.dtype))))
        bshape = [c]
    else:
        return False
    if bias_add is not None:
        aop, b, bv = bias_add
        chain.append((aop, "y", _new_const(p, scope, b, (bv * scale.reshape(bv.shape)).astype(bv.dtype))))
    for o, slot, name in chain:
        o.inputs[slot] = [name]
    out = out_names(bn)[0]
    sh = _new_const(p, scope, "bn_shift", shift.reshape(bshape).astype(vals["mean"].dtype))
    # the batch_norm becomes `out = x + shift`; its other outputs (saved statistics) are dropped
    idx = gb.ops.index(bn)
    gb.ops[idx] = type(bn)(gb, "add", {"x": [x], "y": [sh]}, {"out": [out]}, {}, bn.loc)
    return True


def _per_channel(bv, c, rank):
    """True when `bv` broadcast against a rank-`rank` tensor varies only along axis 1 (the channels)."""
    if bv.size != c or bv.ndim > rank:
        return False
    if c == 1:
        return True
    axes = [rank - bv.ndim + i for i, d in enumerate(bv.shape) if d != 1]
    return axes == [1]


def _conv_ok(op):
    fmt = str(op.attrs.get("data_format", "NCHW"))
    return not (fmt.endswith("C") and len(fmt) > 2)


def _drop_stat_writeback(gb, bn):
    """In inference mode mean_out/variance_out equal the running statistics, so ``assign(mean_out ->
    running_mean)`` ops (left by a program traced in train mode then cloned for test) change nothing."""
    s = _slots(bn)
    stats = {_find(s, "mean"), _find(s, "variance")}
    outs = set(out_names(bn)[1:3])
    gb.ops = [o for o in gb.ops if not (o.type == "assign" and o.input_names() and o.input_names()[0] in outs
                                        and o.output_names() and o.output_names()[0] in stats)]


@verified
def fold_batch_norm(program, keep=(), scope=None):
    """Returns a copy of `program` with inference batch_norms folded into the preceding conv/linear (the
    statistics read from, the folded weights written to, `scope`: `global_scope()` when None)."""
    scope = values_scope(scope)
    p = program.clone()
    gb = p.global_block()
    keep = set(keep)
    folded = 0
    for bn in [o for o in gb.ops if o.type in BN_TYPES and _bn_inference(o)]:
        _drop_stat_writeback(gb, bn)
        producers = {n: o for o in gb.ops for n in o.output_names()}
        readers = consumers(p)
        extra = [n for n in out_names(bn)[1:] if readers.get(n, 0) or n in keep]
        if not extra and _try_fold(p, scope, bn, producers, readers, keep):
            folded += 1
    p._bump()
    p.provenance.append(f"fold_batch_norm: folded {folded} batch_norm ops")
    return p
