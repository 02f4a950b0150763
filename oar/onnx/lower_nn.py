"""ONNX lowerings of the nn ops: activations, convolutions, pooling, batch norm (inference), dropout (inference),
embedding (ops of `oar/nn/functional/`)."""
import math

import numpy as np

from ..framework import dtype as D
from ..kernels import pool as P
from ..ops.nn.conv import resolve_pads
from .lower_math import _same, register


def _x(ctx, op):
    return ctx.inp(op, next(iter(op.inputs)))


def _c(ctx, op, value):
    """A scalar constant of the dtype of the op's first input."""
    return ctx.const(value, ctx.in_meta(op, next(iter(op.inputs)))[1])


def _gelu(ctx, op):
    x = _x(ctx, op)
    if op.attrs.get("approximate"):  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        x3 = ctx.node("Mul", [ctx.node("Mul", [x, x]), x])
        inner = ctx.node("Mul", [ctx.node("Add", [x, ctx.node("Mul", [x3, _c(ctx, op, 0.044715)])]),
                                 _c(ctx, op, math.sqrt(2.0 / math.pi))])
        t = ctx.node("Tanh", [inner])
    else:  # 0.5 x (1 + erf(x / sqrt 2))
        t = ctx.node("Erf", [ctx.node("Div", [x, _c(ctx, op, math.sqrt(2.0))])])
    half_x = ctx.node("Mul", [x, _c(ctx, op, 0.5)])
    ctx.node("Mul", [half_x, ctx.node("Add", [t, _c(ctx, op, 1.0)])], [ctx.out(op)])


def _x_times(fn):
    """x * fn(x) activations (silu, swish, mish, hardswish)."""
    def lower(ctx, op):
        x = _x(ctx, op)
        ctx.node("Mul", [x, fn(ctx, op, x)], [ctx.out(op)])
    return lower


def _softplus(ctx, op):
    beta, threshold = op.attrs["beta"], op.attrs["threshold"]
    x = _x(ctx, op)
    bx = ctx.node("Mul", [x, _c(ctx, op, beta)])
    sp = ctx.node("Div", [ctx.node("Softplus", [bx]), _c(ctx, op, beta)])
    ctx.node("Where", [ctx.node("Greater", [bx, _c(ctx, op, threshold)]), x, sp], [ctx.out(op)])


def _prelu(ctx, op):
    xs = ctx.in_meta(op, "x")[0]
    w = ctx.inp(op, "alpha")
    n = int(np.prod(ctx.in_meta(op, "alpha")[0] or [1]))
    if n > 1:  # per channel: [C] broadcast along the channel dim
        shape = [1] * len(xs)
        shape[1 if op.attrs["data_format"].startswith("NC") else len(xs) - 1] = n
        w = ctx.node("Reshape", [w, ctx.ints(shape[1:])])
    ctx.node("PRelu", [_x(ctx, op), w], [ctx.out(op)])


def _softmax(onnx_type):
    def lower(ctx, op):
        nd = len(ctx.in_meta(op, "x")[0])
        axis = int(op.attrs["axis"]) % max(nd, 1)
        if ctx.opset >= 13 or axis == nd - 1:
            return ctx.unary(op, onnx_type, axis=axis)
        # before opset 13 Softmax normalises over all dims from `axis` on: move the axis last first
        perm = [i for i in range(nd) if i != axis] + [axis]
        inv = [perm.index(i) for i in range(nd)]
        y = ctx.node(onnx_type, [ctx.node("Transpose", [_x(ctx, op)], perm=perm)], axis=nd - 1)
        ctx.node("Transpose", [y], [ctx.out(op)], perm=inv)
    return lower


# ---- convolution and pooling ------------------------------------------------------------------------------------

def _onnx_pads(pairs):
    return [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]


def _spatial_pads(ctx, op, algo, paddings, ksize, strides, dilations):
    """Explicit ONNX pads, or auto_pad for 'SAME' when the spatial dims are unknown."""
    spatial = ctx.in_meta(op, next(iter(op.inputs)))[0][2:]
    if algo == "SAME" and any(s < 0 for s in spatial):
        return {"auto_pad": "SAME_UPPER"}
    return {"pads": _onnx_pads(resolve_pads(algo, paddings, spatial, ksize, strides, dilations))}


def _conv(ctx, op):
    a = op.attrs
    ksize = ctx.in_meta(op, "filter")[0][2:]
    pads = _spatial_pads(ctx, op, a["padding_algorithm"], a["paddings"], ksize, a["strides"], a["dilations"])
    ctx.node("Conv", [ctx.inp(op, "input"), ctx.inp(op, "filter")], [ctx.out(op)], kernel_shape=list(ksize),
             strides=list(a["strides"]), dilations=list(a["dilations"]), group=int(a["groups"]), **pads)


def _conv_transpose(ctx, op):
    a = op.attrs
    ksize = ctx.in_meta(op, "filter")[0][2:]
    ctx.node("ConvTranspose", [ctx.inp(op, "input"), ctx.inp(op, "filter")], [ctx.out(op)],
             kernel_shape=list(ksize), strides=list(a["strides"]), dilations=list(a["dilations"]),
             group=int(a["groups"]), pads=_onnx_pads(a["paddings"]), output_padding=list(a["output_padding"]))


def _pool(onnx_type):
    def lower(ctx, op):
        a = op.attrs
        nd = len(a["ksize"])
        pads = _spatial_pads(ctx, op, a["padding_algorithm"], a["paddings"], a["ksize"], a["strides"], [1] * nd)
        extra = {"count_include_pad": int(not a["exclusive"])} if "exclusive" in a else {}
        _only_first_output(ctx, op)
        ctx.node(onnx_type, [_x(ctx, op)], [ctx.out(op)], kernel_shape=list(a["ksize"]), strides=list(a["strides"]),
                 ceil_mode=int(bool(a["ceil_mode"])), **pads, **extra)
    return lower


def _only_first_output(ctx, op):
    """Ops whose extra outputs (pooling masks, dropout masks, saved statistics) ONNX does not produce."""
    first = next(iter(op.outputs))
    for slot, names in op.outputs.items():
        for n in names[1:] if slot == first else names:
            ctx.unsupported_outputs[n] = op


def _adaptive(onnx_global, onnx_pool, kind):
    def lower(ctx, op):
        out_size = list(op.attrs["output_size"])
        shape, dt = ctx.in_meta(op, "x")
        spatial = shape[len(shape) - len(out_size):]
        x = _x(ctx, op)
        _only_first_output(ctx, op)
        if all(o == 1 for o in out_size) and len(out_size) == len(shape) - 2:
            ctx.node(onnx_global, [x], [ctx.out(op)])
        elif all(s > 0 and s % o == 0 for s, o in zip(spatial, out_size)) and len(out_size) == len(shape) - 2:
            k = [s // o for s, o in zip(spatial, out_size)]
            ctx.node(onnx_pool, [x], [ctx.out(op)], kernel_shape=k, strides=k)
        elif kind == "avg" and all(s > 0 for s in spatial) and len(out_size) <= 2:
            # the kernel's own formulation: one averaging matrix per pooled axis
            npdt = D.np_dtype(dt)
            _separable(ctx, op, x, [P.adaptive_matrix(s, o, npdt) for s, o in zip(spatial, out_size)])
        else:
            raise ctx.block_op_error(op, f"adaptive pooling of spatial size {spatial} to {out_size} has no ONNX "
                                         "lowering (needs known sizes divisible by the output size)")
    return lower


def _separable(ctx, op, x, mats):
    """Applies one (out, in) matrix to each of the last one or two axes of x, as the kernels do."""
    y = ctx.node("MatMul", [x, ctx.const(np.ascontiguousarray(mats[-1].T))])
    if len(mats) == 2:
        y = ctx.node("MatMul", [ctx.const(mats[0]), y])
    ctx.node("Identity", [y], [ctx.out(op)])


def _interp(ctx, op):
    from ..kernels.nn import interp_matrix as _interp_matrix
    a = op.attrs
    shape, dt = ctx.in_meta(op, "x")
    nd = len(a["out_size"])
    spatial = shape[len(shape) - nd:]
    if nd > 2 or any(s < 0 for s in spatial):
        raise ctx.block_op_error(op, f"interpolate over {nd} dims of spatial size {spatial} has no ONNX lowering "
                                     "(needs 1 or 2 dims of known size)")
    mats = [_interp_matrix(s, o, a["mode"], a["align_corners"], a["align_mode"], sc, D.np_dtype(dt))
            for s, o, sc in zip(spatial, a["out_size"], a["scales"])]
    _separable(ctx, op, ctx.inp(op, "x"), mats)


# ---- normalization, dropout, embedding --------------------------------------------------------------------------

def _batch_norm(ctx, op):
    a = op.attrs
    if a["training"] and not a["use_global_stats"]:
        raise ctx.block_op_error(op, "batch_norm in training mode (batch statistics) cannot be exported; call "
                                     "layer.eval() first")
    _only_first_output(ctx, op)
    x = ctx.inp(op, "x")
    shape = ctx.in_meta(op, "x")[0]
    names = [ctx.inp(op, s) for s in ("scale", "bias", "mean", "variance")]
    if a["data_format"][-1] != "C" or len(shape) == 2:
        ctx.node("BatchNormalization", [x] + names, [ctx.out(op)], epsilon=float(a["epsilon"]))
        return
    scale, bias, mean, var = names  # channels last: y = (x - mean) * scale / sqrt(var + eps) + bias
    inv = ctx.node("Div", [scale, ctx.node("Sqrt", [ctx.node("Add", [var, _c(ctx, op, a["epsilon"])])])])
    ctx.node("Add", [ctx.node("Mul", [ctx.node("Sub", [x, mean]), inv]), bias], [ctx.out(op)])


def _dropout(ctx, op):
    a = op.attrs
    if a["training"]:
        raise ctx.block_op_error(op, "dropout in training mode is random; call layer.eval() before exporting")
    _only_first_output(ctx, op)
    if a["mode"] == "upscale_in_train" or a["p"] == 0.0:
        ctx.node("Identity", [_x(ctx, op)], [ctx.out(op)])
    else:
        ctx.node("Mul", [_x(ctx, op), _c(ctx, op, 1.0 - a["p"])], [ctx.out(op)])


def _embedding(ctx, op):
    ids, w = ctx.inp(op, "ids"), ctx.inp(op, "weight")
    pidx = op.attrs.get("padding_idx")
    if pidx is None or pidx < 0:
        ctx.node("Gather", [w, ids], [ctx.out(op)], axis=0)
        return
    out = ctx.node("Gather", [w, ids], axis=0)
    pad = ctx.node("Equal", [ids, ctx.const(pidx, ctx.in_meta(op, "ids")[1])])
    pad = ctx.node("Unsqueeze", [pad, ctx.ints([-1])])
    ctx.node("Where", [pad, ctx.const(0, ctx.in_meta(op, "weight")[1]), out], [ctx.out(op)])


TABLE = {
    "relu": _same("Relu"), "relu6": lambda ctx, op: ctx.node("Clip", [_x(ctx, op), _c(ctx, op, 0), _c(ctx, op, 6)],
                                                             [ctx.out(op)]),
    "leaky_relu": lambda ctx, op: ctx.unary(op, "LeakyRelu", alpha=float(op.attrs["alpha"])),
    "elu": lambda ctx, op: ctx.unary(op, "Elu", alpha=float(op.attrs["alpha"])),
    "selu": lambda ctx, op: ctx.unary(op, "Selu", alpha=float(op.attrs["alpha"]), gamma=float(op.attrs["scale"])),
    "gelu": _gelu,
    "silu": _x_times(lambda ctx, op, x: ctx.node("Sigmoid", [x])),
    "swish": _x_times(lambda ctx, op, x: ctx.node("Sigmoid", [ctx.node("Mul", [x, _c(ctx, op, op.attrs["beta"])])])),
    "mish": _x_times(lambda ctx, op, x: ctx.node("Tanh", [ctx.node("Softplus", [x])])),
    "hardswish": _x_times(lambda ctx, op, x: ctx.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)),
    "hardsigmoid": lambda ctx, op: ctx.unary(op, "HardSigmoid", alpha=float(op.attrs["slope"]),
                                             beta=float(op.attrs["offset"])),
    "hardtanh": lambda ctx, op: ctx.node("Clip", [_x(ctx, op), _c(ctx, op, op.attrs["min"]),
                                                  _c(ctx, op, op.attrs["max"])], [ctx.out(op)]),
    "softplus": _softplus, "softsign": _same("Softsign"),
    "logsigmoid": lambda ctx, op: ctx.node("Neg", [ctx.node("Softplus", [ctx.node("Neg", [_x(ctx, op)])])],
                                           [ctx.out(op)]),
    "tanh_shrink": lambda ctx, op: ctx.node("Sub", [_x(ctx, op), ctx.node("Tanh", [_x(ctx, op)])], [ctx.out(op)]),
    "thresholded_relu": lambda ctx, op: ctx.unary(op, "ThresholdedRelu", alpha=float(op.attrs["threshold"])),
    "softmax": _softmax("Softmax"), "log_softmax": _softmax("LogSoftmax"), "prelu": _prelu,
    "conv2d": _conv, "conv3d": _conv, "conv2d_transpose": _conv_transpose, "conv3d_transpose": _conv_transpose,
    "max_pool2d": _pool("MaxPool"), "avg_pool2d": _pool("AveragePool"),
    "adaptive_avg_pool": _adaptive("GlobalAveragePool", "AveragePool", "avg"),
    "adaptive_max_pool2d": _adaptive("GlobalMaxPool", "MaxPool", "max"),
    "interp": _interp, "batch_norm": _batch_norm, "dropout": _dropout, "embedding": _embedding,
}

register(TABLE)
