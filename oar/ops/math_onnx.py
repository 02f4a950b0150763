"""ONNX lowerings of the ops of `oar/ops/math.py` (binary and unary elementwise, scale, clip, cast, where), kept in
this sibling module because math.py is near the file-size budget; math.py imports it at its end, so the
lowerings register with the ops. Builders: `oar.ops.onnx_rules`."""
import math

import numpy as np

from ..core import dtype as D
from .onnx_rules import binary, chain, same, scalar, with_scalar
from .registry import lowerings


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
        zero = scalar(ctx, op, 0)
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


def _nan_ignoring(onnx_type):
    """fmax/fmin: a NaN loses to a number."""
    def lower(ctx, op):
        x, y = ctx.inp(op, "x"), ctx.inp(op, "y")
        m = ctx.node(onnx_type, [x, y])
        m = ctx.node("Where", [ctx.node("IsNaN", [x]), y, m])
        ctx.node("Where", [ctx.node("IsNaN", [y]), x, m], [ctx.out(op)])
    return lower


def _trunc(ctx, cur, op):
    return ctx.node("Mul", [ctx.node("Sign", [cur]), ctx.node("Floor", [ctx.node("Abs", [cur])])])


def _isfinite(ctx, op):
    x = ctx.inp(op, "x")
    ctx.node("Not", [ctx.node("Or", [ctx.node("IsNaN", [x]), ctx.node("IsInf", [x])])], [ctx.out(op)])


def _scale(ctx, op):
    a = op.attrs
    x = ctx.inp(op, "x")
    s, b = scalar(ctx, op, a["scale"]), scalar(ctx, op, a["bias"])
    if a["bias"] == 0.0:
        ctx.node("Mul", [x, s], [ctx.out(op)])
    elif a.get("bias_after_scale", True):
        ctx.node("Add", [ctx.node("Mul", [x, s]), b], [ctx.out(op)])
    else:
        ctx.node("Mul", [ctx.node("Add", [x, b]), s], [ctx.out(op)])


def _clip(ctx, op):
    a = op.attrs
    ctx.node("Clip", [ctx.inp(op, "x"), scalar(ctx, op, a["min"]), scalar(ctx, op, a["max"])], [ctx.out(op)])


def _zeros_like(ctx, op):
    shape = ctx.node("Shape", [ctx.inp(op, "x")])
    ctx.node("ConstantOfShape", [shape], [ctx.out(op)], value=ctx.tensor(0, ctx.in_meta(op, "x")[1]))


def _nan_to_num(ctx, op):
    """NaN -> `nan`, +inf -> `posinf`, -inf -> `neginf` (None: the dtype's largest / lowest finite value)."""
    a, x = op.attrs, ctx.inp(op, "x")
    big = np.finfo(D.np_dtype(ctx.in_meta(op, "x")[1]))
    pos = scalar(ctx, op, big.max if a["posinf"] is None else a["posinf"])
    neg = scalar(ctx, op, big.min if a["neginf"] is None else a["neginf"])
    y = ctx.node("Where", [ctx.node("IsInf", [x], detect_positive=0), neg, x])
    y = ctx.node("Where", [ctx.node("IsInf", [x], detect_negative=0), pos, y])
    ctx.node("Where", [ctx.node("IsNaN", [x]), scalar(ctx, op, a["nan"]), y], [ctx.out(op)])


_LN2, _LN10 = math.log(2.0), math.log(10.0)

lowerings({
    # binary (inputs already share one dtype: `binary` promotes before the op)
    "add": binary("Add"), "subtract": binary("Sub"), "multiply": binary("Mul"), "divide": _divide,
    "floor_divide": _floor_divide, "remainder": _remainder, "elementwise_pow": binary("Pow"),
    "maximum": binary("Max"), "minimum": binary("Min"), "fmax": _nan_ignoring("Max"), "fmin": _nan_ignoring("Min"),
    # unary
    "neg": same("Neg"), "exp": same("Exp"), "log": same("Log"), "sqrt": same("Sqrt"), "abs": same("Abs"),
    "sign": same("Sign"), "sin": same("Sin"), "cos": same("Cos"), "tan": same("Tan"), "asin": same("Asin"),
    "acos": same("Acos"), "atan": same("Atan"), "sinh": same("Sinh"), "cosh": same("Cosh"),
    "tanh": same("Tanh"), "floor": same("Floor"), "ceil": same("Ceil"), "round": same("Round"),
    "reciprocal": same("Reciprocal"), "erf": same("Erf"),
    # the kernel's 1 / (1 + exp(-x)): ONNX Runtime's Sigmoid keeps only about 6e-8 of absolute precision in
    # float32, which YOLOv3's IoU-aware scores (sigmoid ** 0.4, then a log) turn into differences of 10 on logits
    "sigmoid": chain(("Neg",), ("Exp",), with_scalar("Add", 1.0), ("Reciprocal",)),
    "isnan": same("IsNaN"), "isinf": same("IsInf"), "isfinite": _isfinite,
    "expm1": chain(("Exp",), with_scalar("Sub", 1.0)), "log1p": chain(with_scalar("Add", 1.0), ("Log",)),
    "log2": chain(("Log",), with_scalar("Div", _LN2)), "log10": chain(("Log",), with_scalar("Div", _LN10)),
    "square": chain(lambda ctx, cur, op: ctx.node("Mul", [cur, cur])), "trunc": chain(_trunc),
    "rsqrt": chain(("Sqrt",), ("Reciprocal",)),
    # the rest of the family
    "scale": _scale, "clip": _clip, "zeros_like": _zeros_like, "nan_to_num": _nan_to_num,
    "cast": lambda ctx, op: ctx.cast(ctx.inp(op, "x"), op.attrs["dtype"], [ctx.out(op)]),
    "where": lambda ctx, op: ctx.node("Where", ctx.ins(op, "condition") + ctx.ins(op, "x") + ctx.ins(op, "y"),
                                      [ctx.out(op)]),
    "expand_as": lambda ctx, op: ctx.node("Expand", [ctx.inp(op, "x"), ctx.node("Shape", [ctx.inp(op, "y")])],
                                          [ctx.out(op)]),
})
