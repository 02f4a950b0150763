"""ONNX lowerings of the math family: elementwise, comparisons and logic, reductions, linear algebra, casts and
constants (ops of `oar/ops/math.py`, `reduction.py`, `linalg.py`, `logic.py`, `creation.py`, `search.py`).

Each row maps an oar op to ONNX nodes; ``register`` stores it as ``REGISTRY[name].extra['onnx']``.
"""
import math

import numpy as np

from ..jit import undefined as _undefined  # noqa: F401  (defines assert_defined, lowered below)
from ..ops.registry import REGISTRY
from ..passes import fuse_linear as _fuse_linear  # noqa: F401  (defines fused_linear, lowered below)
from .context import onnx_dtype


def register(table):
    for name, fn in table.items():
        REGISTRY[name].extra["onnx"] = fn


def _x(ctx, op):
    return ctx.inp(op, "x")


def _same(onnx_type, **attrs):
    return lambda ctx, op: ctx.unary(op, onnx_type, **attrs)


def _binary(onnx_type):
    return lambda ctx, op: ctx.node(onnx_type, [ctx.inp(op, "x"), ctx.inp(op, "y")], [ctx.out(op)])


def _chain(*steps):
    """A unary op as a chain of ONNX ops on x; each step is (type, attrs) or a callable(ctx, name, op) -> name."""
    def lower(ctx, op):
        cur = _x(ctx, op)
        for i, s in enumerate(steps):
            last = i == len(steps) - 1
            if callable(s):
                cur = s(ctx, cur, op)
                if last:
                    ctx.node("Identity", [cur], [ctx.out(op)])
            else:
                cur = ctx.node(s[0], [cur], [ctx.out(op)] if last else None, **(s[1] if len(s) > 1 else {}))
    return lower


def _scalar(ctx, op, value, slot="x"):
    """A scalar constant of the dtype of the op's input `slot`."""
    return ctx.const(value, ctx.in_meta(op, slot)[1])


def _with(onnx_type, value, first=False):
    """x OP c (or c OP x) for a scalar c of x's dtype."""
    def step(ctx, cur, op):
        c = _scalar(ctx, op, value)
        return ctx.node(onnx_type, [c, cur] if first else [cur, c])
    return step


def _round_half_away(ctx, op):
    """oar (like Paddle) rounds halves away from zero; ONNX Round rounds them to even: sign(x) * floor(|x| + 0.5)."""
    x = _x(ctx, op)
    up = ctx.node("Floor", [ctx.node("Add", [ctx.node("Abs", [x]), _scalar(ctx, op, 0.5)])])
    ctx.node("Mul", [ctx.node("Sign", [x]), up], [ctx.out(op)])


def _divide(ctx, op):
    x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
    odt = ctx.out_meta(op)[1]
    if ctx.in_meta(op, "x")[1] is not odt:  # int / int is a float division
        x, y = ctx.cast(x, odt), ctx.cast(y, odt)
    ctx.node("Div", [x, y], [ctx.out(op)])


def _floor_divide(ctx, op):
    x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
    if ctx.in_meta(op, "x")[1].kind in "iu":  # ONNX Div truncates; Python floors: subtract 1 where signs differ
        q = ctx.node("Div", [x, y])
        r = ctx.node("Sub", [x, ctx.node("Mul", [q, y])])
        zero = _scalar(ctx, op, 0)
        fix = ctx.node("And", [ctx.node("Not", [ctx.node("Equal", [r, zero])]),
                               ctx.node("Xor", [ctx.node("Less", [x, zero]), ctx.node("Less", [y, zero])])])
        ctx.node("Sub", [q, ctx.cast(fix, ctx.in_meta(op, "x")[1])], [ctx.out(op)])
    else:
        ctx.node("Floor", [ctx.node("Div", [x, y])], [ctx.out(op)])


def _remainder(ctx, op):
    x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
    if ctx.in_meta(op, "x")[1].kind in "iu":
        ctx.node("Mod", [x, y], [ctx.out(op)], fmod=0)
    else:  # x - floor(x / y) * y: the sign of the divisor, as NumPy and Paddle
        ctx.node("Sub", [x, ctx.node("Mul", [ctx.node("Floor", [ctx.node("Div", [x, y])]), y])], [ctx.out(op)])


def _not_of(onnx_type):
    return lambda ctx, op: ctx.node("Not", [ctx.node(onnx_type, [ctx.inp(op, "x"), ctx.inp(op, "y")])],
                                    [ctx.out(op)])


def _trunc(ctx, cur, op):
    return ctx.node("Mul", [ctx.node("Sign", [cur]), ctx.node("Floor", [ctx.node("Abs", [cur])])])


def _isfinite(ctx, op):
    x = _x(ctx, op)
    bad = ctx.node("Or", [ctx.node("IsNaN", [x]), ctx.node("IsInf", [x])])
    ctx.node("Not", [bad], [ctx.out(op)])


def _scale(ctx, op):
    a = op.attrs
    x = _x(ctx, op)
    s, b = _scalar(ctx, op, a["scale"]), _scalar(ctx, op, a["bias"])
    if a["bias"] == 0.0:
        ctx.node("Mul", [x, s], [ctx.out(op)])
    elif a.get("bias_after_scale", True):
        ctx.node("Add", [ctx.node("Mul", [x, s]), b], [ctx.out(op)])
    else:
        ctx.node("Mul", [ctx.node("Add", [x, b]), s], [ctx.out(op)])


def _clip(ctx, op):
    a = op.attrs
    ctx.node("Clip", [_x(ctx, op), _scalar(ctx, op, a["min"]), _scalar(ctx, op, a["max"])], [ctx.out(op)])


def _cast(ctx, op):
    ctx.node("Cast", [_x(ctx, op)], [ctx.out(op)], to=onnx_dtype(op.attrs["dtype"]))


def _where(ctx, op):
    ctx.node("Where", ctx.ins(op, "condition") + ctx.ins(op, "x") + ctx.ins(op, "y"), [ctx.out(op)])


def _zeros_like(ctx, op):
    from onnx import helper
    shape = ctx.node("Shape", [_x(ctx, op)])
    ctx.node("ConstantOfShape", [shape], [ctx.out(op)],
             value=helper.make_tensor("zero", onnx_dtype(ctx.in_meta(op, "x")[1]), [1], [0]))


def _expand_as(ctx, op):
    ctx.node("Expand", [_x(ctx, op), ctx.node("Shape", [ctx.inp(op, "y")])], [ctx.out(op)])


def _constant(ctx, op):
    """Ops without inputs (full, assign_value, arange, ...): evaluated now and stored as an initializer."""
    value = REGISTRY[op.type].impl(**op.attrs)
    ctx.node("Identity", [ctx.const(value)], [ctx.out(op)])


# ---- reductions ------------------------------------------------------------------------------------------------

def _reduce(onnx_type, float_only=False, axes_input=True):
    def lower(ctx, op):
        a = op.attrs
        x = _x(ctx, op)
        xdt, odt = ctx.in_meta(op, "x")[1], ctx.out_meta(op)[1]
        if xdt is not odt and (float_only or a.get("dtype") or op.type == "sum"):
            x = ctx.cast(x, odt)
        axis = a.get("axis")
        keep = int(bool(a.get("keepdim", False)))
        if axis is None:
            ctx.node(onnx_type, [x], [ctx.out(op)], keepdims=keep)
        elif axes_input:
            ctx.node(onnx_type, [x, ctx.ints(list(axis))], [ctx.out(op)], keepdims=keep)
        else:
            ctx.node(onnx_type, [x], [ctx.out(op)], keepdims=keep, axes=list(axis))
    return lower


def _all_any(onnx_type):
    """all/any: a min/max reduction over the bools as int32."""
    def lower(ctx, op):
        a = op.attrs
        x = ctx.cast(_x(ctx, op), "int32")
        keep = int(bool(a["keepdim"]))
        axes = {} if a["axis"] is None else {"axes": list(a["axis"])}
        ctx.node("Cast", [ctx.node(onnx_type, [x], keepdims=keep, **axes)], [ctx.out(op)], to=onnx_dtype("bool"))
    return lower


def _nan_ignoring(onnx_type):
    """fmax/fmin: a NaN loses to a number."""
    def lower(ctx, op):
        x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
        m = ctx.node(onnx_type, [x, y])
        m = ctx.node("Where", [ctx.node("IsNaN", [x]), y, m])
        ctx.node("Where", [ctx.node("IsNaN", [y]), x, m], [ctx.out(op)])
    return lower


def _passthrough(ctx, op):
    """Run-time checks and prints (print, assert, assert_defined): ONNX has neither; the value passes through."""
    first = next(iter(op.inputs))
    ctx.node("Identity", [ctx.name(op.inputs[first][0])], [ctx.out(op, next(iter(op.outputs)))])


def _arg(onnx_type):
    def lower(ctx, op):
        a = op.attrs
        x = _x(ctx, op)
        keep = int(bool(a["keepdim"]))
        if a["axis"] is None:  # over the flattened tensor
            r = ctx.node(onnx_type, [ctx.node("Reshape", [x, ctx.ints([-1])])], axis=0, keepdims=0)
            r = ctx.node("Reshape", [r, ctx.ints([1] * len(ctx.in_meta(op, "x")[0]) if keep else [])])
        else:
            r = ctx.node(onnx_type, [x], axis=int(a["axis"][0]), keepdims=keep)
        ctx.node("Cast", [r], [ctx.out(op)], to=onnx_dtype(a["dtype"]))
    return lower


def _cumsum(ctx, op):
    a = op.attrs
    x = _x(ctx, op)
    axis = a["axis"]
    if axis is None:
        x, axis = ctx.node("Reshape", [x, ctx.ints([-1])]), 0
    ctx.node("CumSum", [x, ctx.const(np.asarray(axis, np.int64))], [ctx.out(op)], reverse=int(bool(a.get("reverse"))))


def _topk(ctx, op):
    a = op.attrs
    ctx.node("TopK", [_x(ctx, op), ctx.ints([a["k"]])], [ctx.out(op, "out"), ctx.out(op, "indices")],
             axis=int(a["axis"]), largest=int(bool(a["largest"])), sorted=1)


# ---- linear algebra ---------------------------------------------------------------------------------------------

def _transposed_last2(ctx, name, ndim):
    if ndim < 2:
        return name
    perm = list(range(ndim - 2)) + [ndim - 1, ndim - 2]
    return ctx.node("Transpose", [name], perm=perm)


def _matmul(ctx, op):
    a = op.attrs
    x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
    if a.get("transpose_x"):
        x = _transposed_last2(ctx, x, len(ctx.in_meta(op, "x")[0]))
    if a.get("transpose_y"):
        y = _transposed_last2(ctx, y, len(ctx.in_meta(op, "y")[0]))
    ctx.node("MatMul", [x, y], [ctx.out(op)])


def _einsum(ctx, op):
    if ctx.opset < 12:
        raise ctx.block_op_error(op, "einsum needs opset_version >= 12")
    ctx.node("Einsum", ctx.ins(op, "operands"), [ctx.out(op)], equation=op.attrs["equation"])


_LN2, _LN10 = math.log(2.0), math.log(10.0)

TABLE = {
    # binary elementwise (inputs already share one dtype: `binary` promotes before the op)
    "add": _binary("Add"), "subtract": _binary("Sub"), "multiply": _binary("Mul"), "divide": _divide,
    "floor_divide": _floor_divide, "remainder": _remainder, "elementwise_pow": _binary("Pow"),
    "maximum": _binary("Max"), "minimum": _binary("Min"),
    # comparisons and logic
    "equal": _binary("Equal"), "not_equal": _not_of("Equal"), "less_than": _binary("Less"),
    "less_equal": _binary("LessOrEqual"), "greater_than": _binary("Greater"),
    "greater_equal": _binary("GreaterOrEqual"), "logical_and": _binary("And"), "logical_or": _binary("Or"),
    "logical_xor": _binary("Xor"), "logical_not": _same("Not"),
    # unary elementwise
    "neg": _same("Neg"), "exp": _same("Exp"), "log": _same("Log"), "sqrt": _same("Sqrt"), "abs": _same("Abs"),
    "sign": _same("Sign"), "sin": _same("Sin"), "cos": _same("Cos"), "tan": _same("Tan"), "asin": _same("Asin"),
    "acos": _same("Acos"), "atan": _same("Atan"), "sinh": _same("Sinh"), "cosh": _same("Cosh"),
    "tanh": _same("Tanh"), "floor": _same("Floor"), "ceil": _same("Ceil"), "round": _round_half_away,
    "reciprocal": _same("Reciprocal"), "sigmoid": _same("Sigmoid"), "erf": _same("Erf"),
    "isnan": _same("IsNaN"), "isinf": _same("IsInf"), "isfinite": _isfinite,
    "expm1": _chain(("Exp",), _with("Sub", 1.0)), "log1p": _chain(_with("Add", 1.0), ("Log",)),
    "log2": _chain(("Log",), _with("Div", _LN2)), "log10": _chain(("Log",), _with("Div", _LN10)),
    "square": _chain(lambda ctx, cur, op: ctx.node("Mul", [cur, cur])), "trunc": _chain(_trunc),
    "rsqrt": _chain(("Sqrt",), ("Reciprocal",)),
    "scale": _scale, "clip": _clip, "cast": _cast, "where": _where, "assign": _same("Identity"),
    "zeros_like": _zeros_like, "expand_as": _expand_as,
    # constants
    "full": _constant, "assign_value": _constant, "arange": _constant, "linspace": _constant, "eye": _constant,
    # reductions and search
    "sum": _reduce("ReduceSum"), "mean": _reduce("ReduceMean", float_only=True, axes_input=False),
    "max": _reduce("ReduceMax", axes_input=False), "min": _reduce("ReduceMin", axes_input=False),
    "prod": _reduce("ReduceProd", axes_input=False),
    "logsumexp": _reduce("ReduceLogSumExp", axes_input=False), "cumsum": _cumsum,
    "all": _all_any("ReduceMin"), "any": _all_any("ReduceMax"),
    "fmax": _nan_ignoring("Max"), "fmin": _nan_ignoring("Min"),
    "print": _passthrough, "assert": _passthrough, "assert_defined": _passthrough,
    "argmax": _arg("ArgMax"), "argmin": _arg("ArgMin"), "topk": _topk,
    # linear algebra
    "matmul": _matmul, "einsum": _einsum,  # fused_linear: lower_fused.py
}

register(TABLE)
