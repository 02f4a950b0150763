"""Convolution fusion for inference: ``conv2d(x, W) + b [+ residual] [-> relu]`` with constant W, b becomes one
``fused_conv2d`` op, which adds the bias and the residual and applies the activation in place on the
convolution's result, and runs the convolution through a planned `ConvRunner` (buffers per input shape, the
im2col algorithm chosen by measurement; `oar.kernels.conv_plan`).

Needs: W (4-D) and b (per output channel: shape ``[O]``, ``[O, 1, 1]`` or ``[1, O, 1, 1]``, same dtype) are
constants `scope` holds; each intermediate has that single reader and is not kept; the residual is
a same-shape, same-dtype value; no op between the conv and the chain's end writes x, W or b (the fused op runs
where the chain ends, after the residual is computed). Guarantees: the last op's output keeps its name and
value (up to float rounding); the op has no gradient (inference only). ``reuse_output=True`` (set by the
`memory_optimize` pass) makes the op write into one buffer per input shape, reused on every run.

Example:
    >>> p = fuse_conv_bias_act(program)   # conv2d, add, add, relu -> fused_conv2d {act="relu"}
"""
from ..kernels import fused
from ..kernels.conv import SCRATCH
from ..ops.nn.conv import onnx_spatial_pads, resolve_pads
from ..ops.onnx_rules import activation as onnx_activation, steps as onnx_steps
from ..ops.registry import defop
from .graph import arg_names, bound_value, consumers, last_readers, out_names, values_scope
from .contract import verified

ACTS = fused.EPILOGUE_ACTS
CONV_ATTRS = ("strides", "paddings", "padding_algorithm", "dilations", "groups")


def _fused_conv2d(input, filter, bias, residual=None, strides=(1, 1), paddings=((0, 0), (0, 0)),
                  padding_algorithm="EXPLICIT", dilations=(1, 1), groups=1, act=None, reuse_output=False):
    """The reference kernel (eager, constant folding): `oar.kernels.fused.conv2d` on the resolved paddings."""
    pads = resolve_pads(padding_algorithm, paddings, input.shape[2:], filter.shape[2:], strides, dilations)
    return fused.conv2d(input, filter, bias, residual, pads, strides, dilations, groups, act)


def _lower(compiler, op):
    """The executor's kernel for one fused_conv2d: `ConvRunner`s of its own (its buffers belong to this plan)."""
    a = dict(op.attrs)
    runners, weight = {}, [None]

    def run(x, filter, bias, residual=None):
        if a["groups"] != 1 or x.ndim != 4:
            return (_fused_conv2d(x, filter, bias, residual, **a),)
        pads = resolve_pads(a["padding_algorithm"], a["paddings"], x.shape[2:], filter.shape[2:], a["strides"],
                            a["dilations"])
        return (fused.conv2d_planned(runners, weight, x, filter, bias, residual, pads, a["strides"],
                                     a["dilations"], a.get("reuse_output", False), a.get("act")),)
    return run


def _infer(metas, **attrs):
    from ..ops.nn.conv import _conv_infer
    return _conv_infer(metas[:2], **{k: attrs[k] for k in CONV_ATTRS})


FUSED_CONV2D = defop("fused_conv2d", _fused_conv2d, inputs=("input", "filter", "bias", "residual"), infer=_infer,
                     lower=_lower, differentiable=False, scratch=SCRATCH)


@verified
def fuse_conv_bias_act(program, keep=(), epilogue=True, scope=None):
    """Returns a copy of `program` with constant-weight conv2d + bias [+ residual] [+ relu] chains fused
    (``epilogue=False``: conv2d + bias only, as `oar.quantization` wants them); constants are read from `scope`
    (`global_scope()` when None)."""
    scope = values_scope(scope)
    p = program.clone()
    gb = p.global_block()
    keep = set(keep)
    readers = consumers(p)
    reader_of = last_readers(gb)
    fused, drop, place, used = 0, set(), {}, set()
    for k, op in enumerate(list(gb.ops)):
        if op.type != "conv2d" or id(op) in drop:
            continue
        x, w = arg_names(op)
        wv = bound_value(p, w, scope)
        if wv is None or wv.ndim != 4:
            continue
        last = out_names(op)[0]
        nxt = _single_reader(last, readers, reader_of, keep, used)
        if nxt is None or nxt.type != "add" or arg_names(nxt)[0] != last:
            continue
        bias = arg_names(nxt)[1]
        bv = bound_value(p, bias, scope)
        if bv is None or bv.dtype != wv.dtype or bv.size != wv.shape[0] or bv.shape[-1:] not in ((1,), (bv.size,)) \
                or bv.ndim > 4 or (bv.ndim > 1 and bv.shape[-3] != bv.size):
            continue
        chain, residual, act, last = [op, nxt], None, None, out_names(nxt)[0]
        nxt = _single_reader(last, readers, reader_of, keep, used) if epilogue else None
        if nxt is not None and nxt.type == "add":
            a, b = arg_names(nxt)
            other = b if a == last else a
            ov = gb.vars.get(other)
            if other != last and ov is not None and _same_meta(gb, other, last):
                residual, last = other, out_names(nxt)[0]
                chain.append(nxt)
                nxt = _single_reader(last, readers, reader_of, keep, used)
        if nxt is not None and nxt.type in ACTS:
            act, last = nxt.type, out_names(nxt)[0]
            chain.append(nxt)
        end = gb.ops.index(chain[-1])
        if any(set(o.output_names()) & {x, w, bias} for o in gb.ops[k + 1:end]):
            continue  # the fused op runs where the chain ends: its inputs must still hold their values there
        ins = {"input": [x], "filter": [w], "bias": [bias]}
        if residual is not None:
            ins["residual"] = [residual]
        attrs = {n: op.attrs[n] for n in CONV_ATTRS}
        attrs["act"] = act
        place[id(chain[-1])] = type(op)(gb, "fused_conv2d", ins, {"out": [last]}, attrs, chain[-1].loc)
        drop.update(id(o) for o in chain[:-1])
        used.update(id(o) for o in chain)
        fused += 1
    gb.ops = [place.get(id(o), o) for o in gb.ops if id(o) not in drop]
    p._bump()
    p.provenance.append(f"fuse_conv_bias_act: fused {fused} convolution chains")
    return p


def _same_meta(gb, a, b):
    va, vb = gb.vars.get(a), gb.vars.get(b)
    return va is not None and vb is not None and va.dtype is vb.dtype and list(va.shape) == list(vb.shape)


def _single_reader(name, readers, reader_of, keep, used):
    if readers.get(name, 0) != 1 or name in keep:
        return None
    op = reader_of.get(name)
    return None if op is None or id(op) in used else op


def _onnx(ctx, op):
    """Conv (+ Add residual) (+ activation), ending in the op's output directly (see `oar.ops.onnx_rules.steps`)."""
    a = op.attrs
    ksize = ctx.in_meta(op, "filter")[0][2:]
    pads = onnx_spatial_pads(ctx, op, a["padding_algorithm"], a["paddings"], ksize, a["strides"], a["dilations"])
    act, residual = onnx_activation(ctx, op, a.get("act")), op.inputs.get("residual")
    bias = ctx.inp(op, "bias")
    if len(ctx.in_meta(op, "bias")[0]) != 1:
        bias = ctx.node("Reshape", [bias, ctx.ints([-1])])
    nodes = [("Conv", [ctx.inp(op, "input"), ctx.inp(op, "filter"), bias],
              dict(kernel_shape=list(ksize), strides=list(a["strides"]), dilations=list(a["dilations"]),
                   group=int(a["groups"]), **pads))]
    if residual:
        nodes.append(("Add", [None, ctx.inp(op, "residual")], {}))
    nodes.extend(act)
    onnx_steps(ctx, op, nodes)


FUSED_CONV2D.set(onnx=_onnx)
