"""A `PaddleProgram` (either format) rebuilt as an oar program: each Paddle op becomes calls of oar's op
functions in static mode, so shapes and dtypes are inferred and checked as for any oar program.

`LEGACY` and `PIR` map an op type of each format to a rule; a rule reads its inputs and attributes and returns
the op's outputs by slot. An op type with no rule is refused naming the file, the op and what is missing."""
import numpy as np

from ...core import dtype as D
from ...ops import creation, indexing, logic, manipulation, math, reduction, search
from ...ops.nn import activation as act, common, conv, norm, pooling
from .. import builder, control_flow
from ..program import Program
from .model import DTYPES

LEGACY, PIR = {}, {}


class Unsupported(ValueError):
    pass


def rule(table, *types):
    def register(fn):
        for t in types:
            table[t] = fn
        return fn
    return register


class Translator:
    """The values built so far (Paddle value name -> Variable, list of Variables, or None) and constants."""

    def __init__(self, prog):
        self.prog, self.env, self.consts, self.made = prog, {}, dict(prog.consts), {}

    def value(self, name):
        if name is None:
            return None
        if name in self.env:
            return self.env[name]
        if name in self.consts:  # a constant used as a tensor: made in the block that uses it
            block = builder.default_main_program().current_block().idx
            key = (name, block)
            if key not in self.made:
                c = self.consts[name]
                self.made[key] = creation.full(list(c.shape), c.flat[0].item(), str(c.dtype)) \
                    if c.size and np.all(c == c.flat[0]) else creation.assign(c)
            return self.made[key]
        raise ValueError(f"reads value {name!r:.80}, which no earlier op computes")

    def const(self, name, what):
        """The constant value of `name` (a Paddle full / full_int_array / fill_constant output) as a list or
        scalar; a value computed at run time is refused."""
        if name not in self.consts:
            raise Unsupported(f"{what} computed at run time (value {name!r:.60}) is not supported")
        return self.consts[name].tolist()

    def scalar(self, name, what):
        """The constant `name` as one Python number (Paddle stores a scalar attribute as a [1] tensor)."""
        value = self.const(name, what)
        while isinstance(value, list):
            if len(value) != 1:
                raise Unsupported(f"{what} must be one number, got {value!r:.60}")
            value = value[0]
        return value


# ---- shared helpers ----------------------------------------------------------------------------------------
def _broadcast_axis(x, y, axis):
    """Paddle 1.x elementwise `axis`: `y`'s dims line up with `x`'s from `axis` on."""
    if axis is None or axis == -1 or len(y.shape) == len(x.shape):
        return y
    trailing = len(x.shape) - axis - len(y.shape)
    return manipulation.reshape(y, list(y.shape) + [1] * trailing) if trailing > 0 else y


def _padding(paddings, algorithm):
    if algorithm in ("SAME", "VALID"):
        return algorithm
    p = list(paddings or [0, 0])
    if len(p) == 4 and p[0] == p[1] and p[2] == p[3]:
        return [p[0], p[2]]
    return [[0, 0], [0, 0], [p[0], p[1]], [p[2], p[3]]] if len(p) == 4 else p


def _pool(x, kind, ksize, strides, paddings, algorithm, global_pooling, adaptive, ceil_mode, exclusive, fmt):
    if kind not in ("max", "avg"):
        raise Unsupported(f"pooling_type {kind!r}")
    if global_pooling or (adaptive and list(ksize) == [1, 1]):
        ksize, adaptive = [1, 1], True
    if adaptive:
        return (pooling.adaptive_max_pool2d if kind == "max" else pooling.adaptive_avg_pool2d)(x, list(ksize))
    pad = _padding(paddings, algorithm)
    if kind == "max":
        return pooling.max_pool2d(x, list(ksize), list(strides), pad, ceil_mode=ceil_mode, data_format=fmt)
    return pooling.avg_pool2d(x, list(ksize), list(strides), pad, ceil_mode=ceil_mode, exclusive=exclusive,
                              data_format=fmt)


def _conv(x, w, a, bias=None):
    return conv.conv2d(x, w, bias, a.get("strides", [1, 1]), _padding(a.get("paddings"), a.get("padding_algorithm")),
                       a.get("dilations", [1, 1]), a.get("groups", 1) or 1, a.get("data_format", "NCHW"))


def _layer_norm(x, scale, bias, epsilon, begin):
    begin = begin % len(x.shape)
    shape = list(x.shape[begin:])
    if any(d < 0 for d in shape):
        raise Unsupported("layer_norm over a dimension of unknown size")
    if len(shape) > 1:
        scale = None if scale is None else manipulation.reshape(scale, shape)
        bias = None if bias is None else manipulation.reshape(bias, shape)
    return norm.layer_norm(x, shape, scale, bias, epsilon)


def _slice(x, axes, starts, ends, decrease):
    y = indexing.slice(x, list(axes), list(starts), list(ends))
    return manipulation.squeeze(y, list(decrease)) if decrease else y


def _reduce(fn, x, axis, keepdim, reduce_all):
    return fn(x, None if reduce_all or axis in (None, []) else list(axis), keepdim=bool(keepdim))


def _interp(t, op, x, out_size, size_tensor, scale_tensor):
    """A Paddle resize op: the output size from its `SizeTensor` values (one per dim), else its `OutSize` value,
    else its scale (a constant `Scale` input or the `scale` attribute), else its ``out_d/out_h/out_w``
    attributes, as Paddle's kernels take them in that order."""
    a = op.attrs
    nd = len(x.shape) - 2
    size, scale = None, a.get("scale") or None
    if size_tensor:
        size = list(size_tensor)
    elif out_size is not None:
        size = out_size
    elif scale_tensor is not None:
        scale = t.const(scale_tensor, "the resize op's Scale input")
    elif not scale:
        size = [a.get(k, -1) for k in ("out_d", "out_h", "out_w")[3 - nd:]]
        if any(not isinstance(v, int) or v <= 0 for v in size):
            raise Unsupported(f"resize without a size or scale (out sizes {size})")
    if isinstance(scale, list) and len(scale) == 1:
        scale = scale[0]
    return common.resize(x, size=size, scale_factor=None if size is not None else scale,
                         mode=a.get("interp_method", "bilinear"), align_corners=bool(a.get("align_corners", False)),
                         align_mode=a.get("align_mode", 1),
                         data_format=a.get("data_layout", a.get("data_format", "NCHW")))


_UNARY = {"relu": act.relu, "sigmoid": act.sigmoid, "tanh": act.tanh, "silu": act.silu, "softsign": act.softsign,
          "mish": act.mish, "exp": math.exp, "log": math.log, "sqrt": math.sqrt, "rsqrt": math.rsqrt,
          "abs": math.abs, "floor": math.floor, "ceil": math.ceil, "square": math.square, "sin": math.sin,
          "cos": math.cos, "erf": math.erf, "sign": math.sign, "logical_not": logic.logical_not,
          "shape": manipulation.shape}
_BINARY = {"add": math.add, "subtract": math.subtract, "multiply": math.multiply, "divide": math.divide,
           "maximum": math.maximum, "minimum": math.minimum, "elementwise_pow": math.pow,
           "floor_divide": math.floor_divide, "remainder": math.remainder, "equal": logic.equal,
           "not_equal": logic.not_equal, "less_than": logic.less_than, "less_equal": logic.less_equal,
           "greater_than": logic.greater_than, "greater_equal": logic.greater_equal,
           "logical_and": logic.logical_and, "logical_or": logic.logical_or}
_LEGACY_BINARY = {"elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
                  "elementwise_div": "divide", "elementwise_max": "maximum", "elementwise_min": "minimum",
                  "elementwise_pow": "elementwise_pow", "elementwise_floordiv": "floor_divide",
                  "elementwise_mod": "remainder", **{k: k for k in ("equal", "not_equal", "less_than", "less_equal",
                                                                    "greater_than", "greater_equal", "logical_and",
                                                                    "logical_or")}}


# ---- legacy (ProgramDesc) rules: inputs and outputs by slot name -----------------------------------------------
def _x(t, op, slot="X"):
    return t.value(op.one(slot))


for _name, _fn in _UNARY.items():
    rule(LEGACY, _name)(lambda t, op, fn=_fn: {"Out": fn(_x(t, op, "Input" if op.type == "shape" else "X"))})
for _name, _phi in _LEGACY_BINARY.items():
    rule(LEGACY, _name)(lambda t, op, fn=_BINARY[_phi]: {"Out": fn(
        _x(t, op), _broadcast_axis(_x(t, op), _x(t, op, "Y"), op.attrs.get("axis", -1)))})

rule(LEGACY, "relu6")(lambda t, op: {"Out": math.clip(_x(t, op), 0.0, op.attrs.get("threshold", 6.0))})
rule(LEGACY, "gelu")(lambda t, op: {"Out": act.gelu(_x(t, op), bool(op.attrs.get("approximate", False)))})
rule(LEGACY, "leaky_relu")(lambda t, op: {"Out": act.leaky_relu(_x(t, op), op.attrs.get("alpha", 0.02))})
rule(LEGACY, "hard_swish")(lambda t, op: {"Out": act.hardswish(_x(t, op))})
rule(LEGACY, "hard_sigmoid")(lambda t, op: {"Out": act.hardsigmoid(_x(t, op), op.attrs.get("slope", 0.2),
                                                                    op.attrs.get("offset", 0.5))})
rule(LEGACY, "swish")(lambda t, op: {"Out": act.silu(_x(t, op)) if op.attrs.get("beta", 1.0) == 1.0 else
                                     math.multiply(_x(t, op), act.sigmoid(math.scale(_x(t, op), op.attrs["beta"])))})
rule(LEGACY, "elu")(lambda t, op: {"Out": act.elu(_x(t, op), op.attrs.get("alpha", 1.0))})
rule(LEGACY, "softmax")(lambda t, op: {"Out": act.softmax(_x(t, op), op.attrs.get("axis", -1))})
rule(LEGACY, "log_softmax")(lambda t, op: {"Out": act.log_softmax(_x(t, op), op.attrs.get("axis", -1))})
rule(LEGACY, "scale")(lambda t, op: {"Out": math.scale(_x(t, op), op.attrs.get("scale", 1.0), op.attrs.get("bias", 0.0),
                                                       op.attrs.get("bias_after_scale", True))})
rule(LEGACY, "clip")(lambda t, op: {"Out": math.clip(_x(t, op), op.attrs.get("min"), op.attrs.get("max"))})
rule(LEGACY, "pow")(lambda t, op: {"Out": math.pow(_x(t, op), op.attrs.get("factor", 1.0))})
rule(LEGACY, "cast")(lambda t, op: {"Out": math.cast(_x(t, op), DTYPES[op.attrs["out_dtype"]])})
rule(LEGACY, "assign")(lambda t, op: {"Out": _x(t, op)})
rule(LEGACY, "conv2d", "depthwise_conv2d")(
    lambda t, op: {"Output": _conv(_x(t, op, "Input"), _x(t, op, "Filter"), op.attrs, t.value(op.one("Bias")))})
rule(LEGACY, "batch_norm")(lambda t, op: {"Y": norm.batch_norm(
    _x(t, op), _x(t, op, "Mean"), _x(t, op, "Variance"), _x(t, op, "Scale"), _x(t, op, "Bias"), False,
    epsilon=op.attrs.get("epsilon", 1e-5), data_format=op.attrs.get("data_layout", "NCHW"))})
rule(LEGACY, "layer_norm")(lambda t, op: {"Y": _layer_norm(_x(t, op), t.value(op.one("Scale")), t.value(op.one("Bias")),
                                                           op.attrs.get("epsilon", 1e-5),
                                                           op.attrs.get("begin_norm_axis", 1))})
rule(LEGACY, "pool2d")(lambda t, op: {"Out": _pool(
    _x(t, op), op.attrs.get("pooling_type", "max"), op.attrs.get("ksize", [1, 1]), op.attrs.get("strides", [1, 1]),
    op.attrs.get("paddings", [0, 0]), op.attrs.get("padding_algorithm", "EXPLICIT"),
    op.attrs.get("global_pooling", False), op.attrs.get("adaptive", False), op.attrs.get("ceil_mode", False),
    op.attrs.get("exclusive", True), op.attrs.get("data_format", "NCHW"))})
rule(LEGACY, "matmul_v2")(lambda t, op: {"Out": math.matmul(_x(t, op), _x(t, op, "Y"), op.attrs.get("trans_x", False),
                                                            op.attrs.get("trans_y", False))})


@rule(LEGACY, "matmul")
def _legacy_matmul(t, op):
    out = math.matmul(_x(t, op), _x(t, op, "Y"), op.attrs.get("transpose_X", False), op.attrs.get("transpose_Y", False))
    alpha = op.attrs.get("alpha", 1.0)
    return {"Out": out if alpha == 1.0 else math.scale(out, alpha)}


@rule(LEGACY, "mul")
def _legacy_mul(t, op):
    x, y = _x(t, op), _x(t, op, "Y")
    xd, yd = op.attrs.get("x_num_col_dims", 1), op.attrs.get("y_num_col_dims", 1)
    x2 = manipulation.flatten(x, xd, -1) if len(x.shape) > xd + 1 else x
    x2 = manipulation.flatten(x2, 0, xd - 1) if xd > 1 else x2
    y2 = manipulation.reshape(y, [int(np.prod(y.shape[:yd])), -1]) if len(y.shape) != 2 else y
    out = math.matmul(x2, y2)
    return {"Out": manipulation.reshape(out, list(x.shape[:xd]) + list(y.shape[yd:])) if xd > 1 else out}


@rule(LEGACY, "reshape2", "reshape")
def _legacy_reshape(t, op):
    if op.inputs.get("Shape") or op.inputs.get("ShapeTensor"):
        raise Unsupported("reshape to a shape computed at run time (Shape / ShapeTensor input)")
    return {"Out": manipulation.reshape(_x(t, op), list(op.attrs.get("shape", [])))}


rule(LEGACY, "flatten_contiguous_range")(lambda t, op: {"Out": manipulation.flatten(
    _x(t, op), op.attrs.get("start_axis", 1), op.attrs.get("stop_axis", -1))})


@rule(LEGACY, "flatten2", "flatten")
def _legacy_flatten2(t, op):  # to 2-D: [prod(shape[:axis]), prod(shape[axis:])]
    x, axis = _x(t, op), op.attrs.get("axis", 1)
    if axis == 0:
        return {"Out": manipulation.reshape(x, [1, -1])}
    return {"Out": manipulation.flatten(manipulation.flatten(x, axis, -1), 0, axis - 1)}


rule(LEGACY, "transpose2", "transpose")(lambda t, op: {"Out": manipulation.transpose(_x(t, op),
                                                                                      list(op.attrs["axis"]))})
rule(LEGACY, "squeeze2", "squeeze")(lambda t, op: {"Out": manipulation.squeeze(
    _x(t, op), list(op.attrs.get("axes", [])) or None)})
rule(LEGACY, "unsqueeze2", "unsqueeze")(lambda t, op: {"Out": manipulation.unsqueeze(_x(t, op),
                                                                                      list(op.attrs["axes"]))})
rule(LEGACY, "concat")(lambda t, op: {"Out": manipulation.concat([t.value(n) for n in op.inputs["X"]],
                                                                 op.attrs.get("axis", 0))})
rule(LEGACY, "stack")(lambda t, op: {"Y": manipulation.stack([t.value(n) for n in op.inputs["X"]],
                                                             op.attrs.get("axis", 0))})
rule(LEGACY, "split")(lambda t, op: {"Out": manipulation.split(
    _x(t, op), list(op.attrs.get("sections") or []) or op.attrs.get("num"), op.attrs.get("axis", 0))})
rule(LEGACY, "slice")(lambda t, op: {"Out": _slice(_x(t, op, "Input"), op.attrs["axes"], op.attrs["starts"],
                                                   op.attrs["ends"], op.attrs.get("decrease_axis", []))})
rule(LEGACY, "gather")(lambda t, op: {"Out": indexing.gather(_x(t, op), _x(t, op, "Index"), op.attrs.get("axis", 0))})
rule(LEGACY, "lookup_table_v2")(lambda t, op: {"Out": common.embedding(
    _x(t, op, "Ids"), _x(t, op, "W"), None if op.attrs.get("padding_idx", -1) == -1 else op.attrs["padding_idx"])})
rule(LEGACY, "dropout")(lambda t, op: {"Out": math.scale(_x(t, op), 1.0 - op.attrs.get("dropout_prob", 0.5))
                                       if op.attrs.get("dropout_implementation") == "downgrade_in_infer"
                                       else _x(t, op)})
rule(LEGACY, "reduce_mean")(lambda t, op: {"Out": _reduce(reduction.mean, _x(t, op), op.attrs.get("dim"),
                                                          op.attrs.get("keep_dim"), op.attrs.get("reduce_all"))})
rule(LEGACY, "reduce_sum")(lambda t, op: {"Out": _reduce(reduction.sum, _x(t, op), op.attrs.get("dim"),
                                                         op.attrs.get("keep_dim"), op.attrs.get("reduce_all"))})
rule(LEGACY, "reduce_max")(lambda t, op: {"Out": _reduce(reduction.max, _x(t, op), op.attrs.get("dim"),
                                                         op.attrs.get("keep_dim"), op.attrs.get("reduce_all"))})
rule(LEGACY, "arg_max")(lambda t, op: {"Out": search.argmax(
    manipulation.flatten(_x(t, op)) if op.attrs.get("flatten") else _x(t, op),
    None if op.attrs.get("flatten") else op.attrs.get("axis", -1), bool(op.attrs.get("keepdims", False)),
    DTYPES.get(op.attrs.get("dtype", 3), "int64"))})
rule(LEGACY, *(m + "_interp_v2" for m in ("linear", "bilinear", "trilinear", "bicubic", "nearest")))(
    lambda t, op: {"Out": _interp(t, op, _x(t, op), _x(t, op, "OutSize"),
                                  [t.value(n) for n in op.inputs.get("SizeTensor") or ()], op.one("Scale"))})


rule(LEGACY, "fill_any_like")(lambda t, op: {"Out": creation.full_like(
    _x(t, op), op.attrs.get("value", 0.0), None if op.attrs.get("dtype", -1) == -1 else DTYPES[op.attrs["dtype"]])})


@rule(LEGACY, "fill_constant")
def _legacy_fill(t, op):
    value = float(op.attrs["str_value"]) if op.attrs.get("str_value") else op.attrs.get("value", 0.0)
    dtype = DTYPES[op.attrs.get("dtype", 5)]
    t.consts[op.outputs["Out"][0]] = np.full(op.attrs.get("shape", []), value, D.np_dtype(D.convert_dtype(dtype)))
    return {}


# ---- PIR rules: positional inputs and outputs -------------------------------------------------------------------
def _i(t, op, k):
    return t.value(op.one(k))


for _name, _fn in _UNARY.items():
    rule(PIR, _name, _name + "_")(lambda t, op, fn=_fn: {0: fn(_i(t, op, 0))})
for _name, _fn in _BINARY.items():
    rule(PIR, _name, _name + "_")(lambda t, op, fn=_fn: {0: fn(_i(t, op, 0), _i(t, op, 1))})
rule(PIR, "relu6")(lambda t, op: {0: act.relu6(_i(t, op, 0))})
rule(PIR, "gelu")(lambda t, op: {0: act.gelu(_i(t, op, 0), bool(op.attrs.get("approximate", False)))})
rule(PIR, "leaky_relu")(lambda t, op: {0: act.leaky_relu(_i(t, op, 0), op.attrs.get("negative_slope", 0.02))})
rule(PIR, "hardswish")(lambda t, op: {0: act.hardswish(_i(t, op, 0))})
rule(PIR, "hardsigmoid")(lambda t, op: {0: act.hardsigmoid(_i(t, op, 0), op.attrs.get("slope", 0.2),
                                                          op.attrs.get("offset", 0.5))})
rule(PIR, "swish")(lambda t, op: {0: act.silu(_i(t, op, 0))})
rule(PIR, "elu")(lambda t, op: {0: act.elu(_i(t, op, 0), op.attrs.get("alpha", 1.0))})
rule(PIR, "softmax", "softmax_")(lambda t, op: {0: act.softmax(_i(t, op, 0), op.attrs.get("axis", -1))})
rule(PIR, "log_softmax")(lambda t, op: {0: act.log_softmax(_i(t, op, 0), op.attrs.get("axis", -1))})
rule(PIR, "scale", "scale_")(lambda t, op: {0: math.scale(_i(t, op, 0), t.scalar(op.one(1), "scale"),
                                                          op.attrs.get("bias", 0.0),
                                                          op.attrs.get("bias_after_scale", True))})
rule(PIR, "clip", "clip_")(lambda t, op: {0: math.clip(_i(t, op, 0), t.scalar(op.one(1), "clip min"),
                                                       t.scalar(op.one(2), "clip max"))})
rule(PIR, "pow")(lambda t, op: {0: math.pow(_i(t, op, 0), op.attrs.get("y", 1.0))})
rule(PIR, "cast", "cast_")(lambda t, op: {0: math.cast(_i(t, op, 0), op.attrs["dtype"])})
rule(PIR, "assign", "assign_out_")(lambda t, op: {0: _i(t, op, 0)})
rule(PIR, "conv2d", "depthwise_conv2d")(lambda t, op: {0: _conv(_i(t, op, 0), _i(t, op, 1), op.attrs)})
rule(PIR, "batch_norm", "batch_norm_")(lambda t, op: {0: norm.batch_norm(
    _i(t, op, 0), _i(t, op, 1), _i(t, op, 2), _i(t, op, 3), _i(t, op, 4), False,
    epsilon=op.attrs.get("epsilon", 1e-5), data_format=op.attrs.get("data_format", "NCHW"))})
rule(PIR, "layer_norm")(lambda t, op: {0: _layer_norm(_i(t, op, 0), _i(t, op, 1), _i(t, op, 2),
                                                      op.attrs.get("epsilon", 1e-5),
                                                      op.attrs.get("begin_norm_axis", 1))})
rule(PIR, "pool2d")(lambda t, op: {0: _pool(
    _i(t, op, 0), op.attrs.get("pooling_type", "max"), t.const(op.one(1), "pool2d kernel size"),
    op.attrs.get("strides", [1, 1]), op.attrs.get("paddings", [0, 0]), op.attrs.get("padding_algorithm", "EXPLICIT"),
    op.attrs.get("global_pooling", False), op.attrs.get("adaptive", False), op.attrs.get("ceil_mode", False),
    op.attrs.get("exclusive", True), op.attrs.get("data_format", "NCHW"))})
rule(PIR, "matmul")(lambda t, op: {0: math.matmul(_i(t, op, 0), _i(t, op, 1), op.attrs.get("transpose_x", False),
                                                  op.attrs.get("transpose_y", False))})
rule(PIR, "reshape", "reshape_")(lambda t, op: {0: manipulation.reshape(_i(t, op, 0),
                                                                        t.const(op.one(1), "reshape shape"))})
rule(PIR, "flatten", "flatten_")(lambda t, op: {0: manipulation.flatten(_i(t, op, 0), op.attrs.get("start_axis", 1),
                                                                        op.attrs.get("stop_axis", -1))})
rule(PIR, "transpose", "transpose_")(lambda t, op: {0: manipulation.transpose(_i(t, op, 0), list(op.attrs["perm"]))})
rule(PIR, "squeeze", "squeeze_")(lambda t, op: {0: manipulation.squeeze(_i(t, op, 0),
                                                                        t.const(op.one(1), "squeeze axes") or None)})
rule(PIR, "unsqueeze", "unsqueeze_")(lambda t, op: {0: manipulation.unsqueeze(_i(t, op, 0),
                                                                              t.const(op.one(1), "unsqueeze axes"))})
rule(PIR, "concat")(lambda t, op: {0: manipulation.concat(_i(t, op, 0), t.scalar(op.one(1), "concat axis"))})
rule(PIR, "stack")(lambda t, op: {0: manipulation.stack(_i(t, op, 0), op.attrs.get("axis", 0))})
rule(PIR, "split")(lambda t, op: {0: manipulation.split(_i(t, op, 0), t.const(op.one(1), "split sections"),
                                                        t.scalar(op.one(2), "split axis"))})
rule(PIR, "split_with_num")(lambda t, op: {0: manipulation.split(_i(t, op, 0), op.attrs["num"],
                                                                 t.scalar(op.one(1), "split axis"))})
rule(PIR, "slice")(lambda t, op: {0: _slice(_i(t, op, 0), op.attrs["axes"], t.const(op.one(1), "slice starts"),
                                            t.const(op.one(2), "slice ends"), op.attrs.get("decrease_axis", []))})
rule(PIR, "gather")(lambda t, op: {0: indexing.gather(_i(t, op, 0), _i(t, op, 1), t.scalar(op.one(2), "gather axis"))})
rule(PIR, "embedding")(lambda t, op: {0: common.embedding(
    _i(t, op, 0), _i(t, op, 1), None if op.attrs.get("padding_idx", -1) == -1 else op.attrs["padding_idx"])})
rule(PIR, "dropout")(lambda t, op: {0: math.scale(_i(t, op, 0), 1.0 - float(op.attrs.get("p", 0.5)))
                                    if op.attrs.get("mode") == "downgrade_in_infer" else _i(t, op, 0)})
rule(PIR, "mean")(lambda t, op: {0: _reduce(reduction.mean, _i(t, op, 0), t.const(op.one(1), "mean axis"),
                                            op.attrs.get("keepdim"), False)})
rule(PIR, "sum")(lambda t, op: {0: _reduce(reduction.sum, _i(t, op, 0), t.const(op.one(1), "sum axis"),
                                           op.attrs.get("keepdim"), False)})
rule(PIR, "max")(lambda t, op: {0: _reduce(reduction.max, _i(t, op, 0), t.const(op.one(1), "max axis"),
                                           op.attrs.get("keepdim"), False)})
rule(PIR, "argmax")(lambda t, op: {0: search.argmax(
    manipulation.flatten(_i(t, op, 0)) if op.attrs.get("flatten") else _i(t, op, 0),
    None if op.attrs.get("flatten") else t.scalar(op.one(1), "argmax axis"), bool(op.attrs.get("keepdims", False)),
    op.attrs.get("dtype", "int64"))})
rule(PIR, *(m + "_interp" for m in ("linear", "bilinear", "trilinear", "bicubic", "nearest")))(
    lambda t, op: {0: _interp(t, op, _i(t, op, 0), _i(t, op, 1), _i(t, op, 2), op.one(3))})
rule(PIR, "full_like")(lambda t, op: {0: creation.full_like(_i(t, op, 0), t.scalar(op.one(1), "full_like value"),
                                                             op.attrs.get("dtype") or None)})
rule(PIR, "full", "full_int_array")(lambda t, op: {})  # constants: materialised only where used as a tensor
rule(PIR, "builtin.combine")(lambda t, op: {0: [t.value(op.one(k)) for k in sorted(op.inputs)]})
rule(PIR, "builtin.split")(lambda t, op: dict(enumerate(_i(t, op, 0))))  # a list value into its elements


# ---- control flow (PIR regions: each a block whose `yield` op gives its results) ------------------------------
def _run_block(t, table, prog, block):
    """Translates the ops of a region's block; returns the values its `yield` gives."""
    args, ops = block
    result = []
    for op in ops:
        if op.type == "yield":
            result = [t.value(op.one(k)) for k in sorted(op.inputs)]
        else:
            _translate(t, table, prog, op)
    return result


def _pir_if(t, op, table, prog):
    (_, true_block), (_, false_block) = op.attrs["regions"]
    outs = control_flow.cond(_i(t, op, 0), lambda: _run_block(t, table, prog, (None, true_block)),
                             lambda: _run_block(t, table, prog, (None, false_block)))
    return dict(enumerate(outs or []))


def _pir_while(t, op, table, prog):
    (args, body), = op.attrs["regions"]
    init = [_i(t, op, k) for k in sorted(op.inputs)]  # [condition, *loop values]
    if len(args) != len(init) - 1:
        raise Unsupported(f"while with {len(init) - 1} loop values but {len(args)} block arguments")

    def step(flag, *values):
        t.env.update(zip(args, values))
        return _run_block(t, table, prog, (args, body))  # yields [next condition, *next values]
    outs = control_flow.while_loop(lambda flag, *values: flag, step, init)
    return dict(enumerate(outs[1:]))


def _legacy_while(t, op, table, prog):
    """Paddle 1.x/2.x `while`: its body block writes the loop values (`Out`, the condition among them) in place
    with `assign`; here they are `while_loop`'s carried values."""
    body = prog.blocks.get(op.attrs.get("sub_block"))
    if body is None:
        raise Unsupported(f"sub_block {op.attrs.get('sub_block')!r} does not exist")
    names, flag = op.outputs.get("Out", []), op.one("Condition")
    if flag not in names:
        raise Unsupported("a while whose body does not update its condition")
    k = names.index(flag)

    def step(*values):
        t.env.update(zip(names, values))
        for inner in body:
            _translate(t, table, prog, inner)
        return [t.value(n) for n in names]
    outs = control_flow.while_loop(lambda *values: values[k], step, [t.value(n) for n in names])
    t.env.update(zip(names, outs))
    return {}


_CONTROL_FLOW = {"if": _pir_if, "while": _pir_while}
_LEGACY_CONTROL_FLOW = {"while": _legacy_while}


# ---- the program -------------------------------------------------------------------------------------------------
def build(prog):
    """(oar Program, input Variables, output Variables, parameter names) for a `PaddleProgram`."""
    table = LEGACY if prog.format == "legacy" else PIR
    main = Program()
    t = Translator(prog)
    with builder.static_mode(), builder.program_guard(main, Program()):
        gb = main.global_block()
        for name, (dtype, dims) in prog.params.items():
            t.env[name] = gb.create_var(name, list(dims), D.convert_dtype(dtype), persistable=True)
        inputs = [builder.data(name, dims, dtype) for name, dtype, dims in prog.feeds]
        t.env.update({v.name: v for v in inputs})
        for op in prog.ops:
            _translate(t, table, prog, op)
        outputs = [t.value(n) for n in prog.fetches]
    return main, inputs, outputs


def _translate(t, table, prog, op):
    """Appends the oar ops of one Paddle op and binds its outputs."""
    regions = op.attrs.get("regions") or (prog.format == "legacy" and op.type in _LEGACY_CONTROL_FLOW)
    fn = table.get(op.type) if not regions else (_CONTROL_FLOW if prog.format == "pir" else
                                                _LEGACY_CONTROL_FLOW).get(op.type)
    if fn is None:
        what = "control flow op" if regions or op.type in ("conditional_block", "while") else "op"
        raise ValueError(f"{prog.path}: {op} has no oar translation (this {what} of Paddle's {prog.format} "
                         f"format is not supported)")
    try:
        outs = fn(t, op, table, prog) if regions else fn(t, op)
    except Unsupported as e:
        raise ValueError(f"{prog.path}: {op}: {e}") from None
    except (ValueError, TypeError, KeyError, IndexError) as e:
        if str(e).startswith(prog.path):  # already names the file and an op (one nested in a region)
            raise
        raise ValueError(f"{prog.path}: {op} cannot be translated ({type(e).__name__}: {e})") from None
    for slot, value in outs.items():
        names = op.outputs.get(slot) or []
        values = value if isinstance(value, (list, tuple)) and len(names) > 1 else [value]
        for n, v in zip(names, values):
            t.env[n] = v
