"""ONNX lowerings of the inference-only fused ops made by `oar.passes` (conv + bias + residual + activation, linear
+ bias + activation, add + activation), so the predictor's optimized program exports as it runs natively
(`Config.enable_onnxruntime()`)."""
from .lower_math import register
from .lower_nn import _spatial_pads

_ACT = {"relu": "Relu", "tanh": "Tanh", "sigmoid": "Sigmoid"}


def _activation(ctx, op, act):
    """The ONNX node type applying `act` (None: no node), checked before anything is emitted."""
    if act is not None and act not in _ACT:
        raise ctx.block_op_error(op, f"activation {act!r} has no ONNX lowering")
    return _ACT.get(act)


def _fused_conv2d(ctx, op):
    a = op.attrs
    ksize = ctx.in_meta(op, "filter")[0][2:]
    pads = _spatial_pads(ctx, op, a["padding_algorithm"], a["paddings"], ksize, a["strides"], a["dilations"])
    act, residual = _activation(ctx, op, a.get("act")), op.inputs.get("residual")
    bias = ctx.inp(op, "bias")
    if len(ctx.in_meta(op, "bias")[0]) != 1:
        bias = ctx.node("Reshape", [bias, ctx.ints([-1])])
    # nodes end in the op's output directly: DequantizeLinear -> Conv -> QuantizeLinear must be adjacent for
    # ONNX Runtime to run the convolution in int8
    steps = [("Conv", [ctx.inp(op, "input"), ctx.inp(op, "filter"), bias],
              dict(kernel_shape=list(ksize), strides=list(a["strides"]), dilations=list(a["dilations"]),
                   group=int(a["groups"]), **pads))]
    if residual:
        steps.append(("Add", [None, ctx.inp(op, "residual")], {}))
    if act:
        steps.append((act, [None], {}))
    _chain(ctx, op, steps)


def _chain(ctx, op, steps):
    """Emits `steps` (type, inputs with None for the previous output, attrs); the last writes the op's output."""
    cur = None
    for k, (t, ins, attrs) in enumerate(steps):
        ins = [cur if i is None else i for i in ins]
        cur = ctx.node(t, ins, [ctx.out(op)] if k == len(steps) - 1 else None, **attrs)


def _fused_linear(ctx, op):
    steps = [("MatMul", [ctx.inp(op, "x"), ctx.inp(op, "w")], {})]
    if op.inputs.get("b"):
        steps.append(("Add", [None, ctx.inp(op, "b")], {}))
    act = _activation(ctx, op, op.attrs.get("act"))
    if act:
        steps.append((act, [None], {}))
    _chain(ctx, op, steps)


def _fused_elemwise_add_act(ctx, op):
    act = _activation(ctx, op, op.attrs["act"])
    _chain(ctx, op, [("Add", [ctx.inp(op, "x"), ctx.inp(op, "y")], {}), (act, [None], {})])


register({"fused_conv2d": _fused_conv2d, "fused_linear": _fused_linear,
          "fused_elemwise_add_act": _fused_elemwise_add_act})
