"""Elementwise math and activations-as-math, casts and the broadcasting helpers of gradient rules.

Reductions live in `reduction.py`, linear algebra in `linalg.py`; both are re-exported here."""
import math as _math

import numpy as np

from ..core import dtype as D
from .common import public_api, binary, broadcast_shapes, infer_broadcast, infer_same, operand
from . import registry as _registry
from .registry import apply, defop
from ..kernels.elementwise import (abs as _abs, acos as _acos, add as _add, asin as _asin, atan as _atan,
                                   atan2 as _atan2, cast as _cast, copysign as _copysign, ceil as _ceil,
                                   clip as _clip, cos as _cos,
                                   cosh as _cosh, erf as _erf, exp as _exp, expand_as as _expand_as,
                                   expm1 as _expm1, floor as _floor, floor_divide as _floor_divide, fmax as _fmax,
                                   fmin as _fmin, isfinite as _isfinite, isinf as _isinf, isnan as _isnan,
                                   log as _log, log1p as _log1p, log2 as _log2, log10 as _log10,
                                   maximum as _maximum, minimum as _minimum, multiply as _multiply,
                                   nan_to_num as _nan_to_num, negative as _neg, power as _power,
                                   reciprocal as _reciprocal, reduce_as as _reduce_as, remainder as _remainder,
                                   round_half_even as _round_half_even, rsqrt as _rsqrt, scale as _scale,
                                   sigmoid as _sigmoid, sign as _sign, sin as _sin, sinh as _sinh, sqrt as _sqrt,
                                   square as _square, subtract as _subtract, tan as _tan, tanh as _tanh,
                                   true_divide as _true_divide, trunc as _trunc, where as _where,
                                   zeros_like as _zeros_like)

# ---- gradient helpers (built from ops, so they work eagerly, statically and for higher orders) -------------


_OWN_SHAPE = [None]  # the eager Tensor's `shape` property (the Tensor class sits above the ops: bound on first use)


def unbroadcast(g, x):
    """Sums `g` down to `x`'s shape (the gradient of broadcasting)."""
    own = _OWN_SHAPE[0]  # eager tensors (not Variables, not pending lazy values): their arrays' shapes
    if own is None:
        own = _OWN_SHAPE[0] = _registry.Tensor.shape
    if type(g).shape is own and type(x).shape is own:  # (no lists made: every eager gradient rule comes here)
        if g._data.shape == x._data.shape:
            return g
        return apply(REDUCE_AS, (g, x))
    gs, xs = g.shape, x.shape
    if gs == xs and -1 not in xs:
        return g
    return apply(REDUCE_AS, (g, x))


REDUCE_AS = defop("reduce_as", _reduce_as, inputs=("x", "target"), nondiff=(1,),
                  infer=lambda m: [(m[1][0], m[0][1])],
                  grad=lambda g, out, x, target: (expand_as(g, x), None),
                  onnx_reason="training-only (reduces a gradient)")


EXPAND_AS = defop("expand_as", _expand_as, inputs=("x", "y"), nondiff=(1,),
                  infer=lambda m: [(m[1][0], m[0][1])],
                  grad=lambda g, out, x, y: (unbroadcast(g, x), None))


def expand_as(x, y, name=None):
    """Broadcasts `x` to the shape of `y`.

    Example:
        >>> oar.expand_as(oar.to_tensor([1.0, 2.0]), oar.zeros([3, 2])).numpy().tolist()
        [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]
    """
    return apply(EXPAND_AS, (x, y))


# ---- cast ----------------------------------------------------------------------------------------------------

CAST = defop("cast", _cast, infer=lambda m, dtype: [(m[0][0], D.convert_dtype(dtype))],
             grad=lambda g, out, x, dtype: cast(g, x.dtype) if x.dtype.kind in "fc" else None, amp="skip")
CAST.set(view=True)  # Paddle: a view of its input (shares memory)


def cast(x, dtype):
    """Converts `x` to `dtype` ('float32', oar.int64, ...).

    Example:
        >>> oar.cast(oar.to_tensor([1.7, -1.7]), 'int32').numpy().tolist()
        [1, -1]
    """
    dtype = D.convert_dtype(dtype)
    if x.dtype is dtype:
        return x
    return apply(CAST, (x,), {"dtype": dtype.name})


# ---- binary elementwise ----------------------------------------------------------------------------------------

def _bin(name, impl, grad, nondiff=(), **fields):
    return defop(name, impl, inputs=("x", "y"), infer=infer_broadcast, grad=grad, nondiff=nondiff, **fields)


# Gradient rules skip inputs with stop_gradient (constants, data): fewer ops on the eager hot path and in
# static backward programs alike.
ADD = _bin("add", _add, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g, x), None if y.stop_gradient else unbroadcast(g, y)),
    grad_reads=("x.shape", "y.shape"))
SUBTRACT = _bin("subtract", _subtract, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g, x), None if y.stop_gradient else unbroadcast(-g, y)),
    grad_reads=("x.shape", "y.shape"))
MULTIPLY = _bin("multiply", _multiply, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g * _conj_operand(y), x),
    None if y.stop_gradient else unbroadcast(g * _conj_operand(x), y)), grad_reads=("x", "y"))


def _conj_operand(t):
    """Complex operands enter gradient rules conjugated (Paddle's convention: the gradient of a real loss
    is dL/dRe + i dL/dIm); real operands pass through untouched."""
    if t.dtype.kind != "c":
        return t
    from .complex import conj
    return conj(t)


DIVIDE = defop("divide", _true_divide, inputs=("x", "y"),
               infer=lambda m: [(broadcast_shapes(m[0][0], m[1][0]),
                                 m[0][1] if m[0][1].kind in "fc" else D.default_float())],
               grad=lambda g, out, x, y: (None if x.stop_gradient else unbroadcast(g / _conj_operand(y), x),
                                          None if y.stop_gradient else unbroadcast(
                                              -g * _conj_operand(out / y), y)))
FLOOR_DIVIDE = _bin("floor_divide", _floor_divide, None, differentiable=False)
REMAINDER = _bin("remainder", _remainder,
                 lambda g, out, x, y: (unbroadcast(g, x), unbroadcast(-g * floor_divide(x, y), y)))


def _pow_grad(g, out, x, y):
    gx = g * y * pow(x, y - 1)
    gy = g * out * log(where(x > 0, x, ones_like(x))) if y.dtype.kind in "fc" else None
    return unbroadcast(gx, x), (unbroadcast(gy, y) if gy is not None else None)


POW = _bin("elementwise_pow", _power, _pow_grad, amp="black")


def _select_grad(g, x_wins, x, y):
    """Gradient of an elementwise choice between x and y: `g` goes where `x_wins` to x, elsewhere to y."""
    z = operand(0.0, g)  # (`where` written out: one zero for both, and the dtypes checked once)
    if z.dtype is not g.dtype:
        return (None if x.stop_gradient else unbroadcast(where(x_wins, g, 0.0), x)), \
            (None if y.stop_gradient else unbroadcast(where(x_wins, 0.0, g), y))
    return (None if x.stop_gradient else unbroadcast(apply(WHERE, (x_wins, g, z)), x)), \
        (None if y.stop_gradient else unbroadcast(apply(WHERE, (x_wins, z, g)), y))


MAXIMUM = _bin("maximum", _maximum, lambda g, out, x, y: _select_grad(g, x >= y, x, y), grad_reads=("x", "y"))
MINIMUM = _bin("minimum", _minimum, lambda g, out, x, y: _select_grad(g, x <= y, x, y), grad_reads=("x", "y"))
# fmax/fmin: the input equal to the result gets the gradient (a NaN never equals it, so the number wins)
FMAX = _bin("fmax", _fmax, lambda g, out, x, y: _select_grad(g, out == x, x, y))
FMIN = _bin("fmin", _fmin, lambda g, out, x, y: _select_grad(g, out == x, x, y))
ATAN2 = _bin("atan2", _atan2, lambda g, out, x, y: (
    unbroadcast(g * y / (x * x + y * y), x), unbroadcast(-g * x / (x * x + y * y), y)), onnx_reason="not lowered yet")
# d copysign(x, y)/dx = sign(x) sign(out) (0 at x = 0, as Paddle's); y only gives the sign: no gradient
COPYSIGN = _bin("copysign", _copysign, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g * sign(x) * sign(out), x), None), nondiff=(1,),
    onnx_reason="not lowered yet (ONNX has no signbit for -0.0)")


def add(x, y, name=None):
    """Elementwise ``x + y`` with broadcasting.

    Example:
        >>> oar.add(oar.to_tensor([1.0, 2.0]), 1.0).numpy()
        array([2., 3.], dtype=float32)
    """
    return binary(ADD, x, y)


def subtract(x, y, name=None):
    """Elementwise ``x - y`` with broadcasting.

    Example:
        >>> oar.subtract(oar.to_tensor([3.0, 4.0]), 1.0).numpy().tolist()
        [2.0, 3.0]
    """
    return binary(SUBTRACT, x, y)


def multiply(x, y, name=None):
    """Elementwise ``x * y`` with broadcasting.

    Example:
        >>> oar.multiply(oar.to_tensor([[1.0], [2.0]]), oar.to_tensor([1.0, 10.0])).numpy().tolist()
        [[1.0, 10.0], [2.0, 20.0]]
    """
    return binary(MULTIPLY, x, y)


def divide(x, y, name=None):
    """Elementwise true division ``x / y``.

    Example:
        >>> oar.divide(oar.to_tensor([3, 4]), oar.to_tensor([2, 2])).numpy().tolist()
        [1.5, 2.0]
    """
    return binary(DIVIDE, x, y)


def floor_divide(x, y, name=None):
    """Elementwise ``x // y``.

    Example:
        >>> oar.floor_divide(oar.to_tensor([7, -7]), oar.to_tensor([2, 2])).numpy().tolist()
        [3, -4]
    """
    return binary(FLOOR_DIVIDE, x, y)


def remainder(x, y, name=None):
    """Elementwise ``x % y`` (sign of the divisor, as Python).

    Example:
        >>> oar.remainder(oar.to_tensor([7, -7]), oar.to_tensor([3, 3])).numpy().tolist()
        [1, 2]
    """
    return binary(REMAINDER, x, y)


mod = floor_mod = remainder


def pow(x, y, name=None):
    """Elementwise ``x ** y``; `y` may be a number or a tensor.

    Example:
        >>> oar.pow(oar.to_tensor([2.0, 3.0]), 2).numpy().tolist()
        [4.0, 9.0]
    """
    return binary(POW, x, y)


def maximum(x, y, name=None):
    """Elementwise maximum.

    Example:
        >>> oar.maximum(oar.to_tensor([1.0, 4.0]), oar.to_tensor([3.0, 2.0])).numpy().tolist()
        [3.0, 4.0]
    """
    return binary(MAXIMUM, x, y)


def minimum(x, y, name=None):
    """Elementwise minimum.

    Example:
        >>> oar.minimum(oar.to_tensor([1.0, 4.0]), oar.to_tensor([3.0, 2.0])).numpy().tolist()
        [1.0, 2.0]
    """
    return binary(MINIMUM, x, y)


def fmax(x, y, name=None):
    """Elementwise maximum that ignores NaN (the other value wins).

    Example:
        >>> oar.fmax(oar.to_tensor([1.0, float('nan')]), oar.to_tensor([float('nan'), 2.0])).numpy().tolist()
        [1.0, 2.0]
    """
    return binary(FMAX, x, y)


def fmin(x, y, name=None):
    """Elementwise minimum that ignores NaN (the other value wins).

    Example:
        >>> oar.fmin(oar.to_tensor([1.0, float('nan')]), oar.to_tensor([float('nan'), 2.0])).numpy().tolist()
        [1.0, 2.0]
    """
    return binary(FMIN, x, y)


def atan2(x, y, name=None):
    """Elementwise arctangent of ``x / y`` in the right quadrant.

    Example:
        >>> out = oar.atan2(oar.to_tensor([1.0, -1.0]), oar.to_tensor([-1.0, -1.0]))
        >>> [round(v, 4) for v in out.numpy().tolist()]
        [2.3562, -2.3562]
    """
    return binary(ATAN2, x, y)


def copysign(x, y, name=None):
    """|x| with the sign of y, elementwise with broadcasting (``-0.0`` counts as negative for floats).

    Example:
        >>> oar.copysign(oar.to_tensor([1.0, -2.0, 3.0]), oar.to_tensor([-1.0, 1.0, -0.0])).numpy().tolist()
        [-1.0, 2.0, -3.0]
    """
    return binary(COPYSIGN, x, y)


# ---- unary elementwise -----------------------------------------------------------------------------------------

# name: (input, output rounded to 4 places) of each unary op's docstring example (run as a doctest)
_UNARY_EXAMPLES = {
    "neg": ("[1.0, -2.0]", "[-1.0, 2.0]"), "exp": ("[0.0, 1.0]", "[1.0, 2.7183]"),
    "expm1": ("[0.0, 1.0]", "[0.0, 1.7183]"), "log": ("[1.0, 2.718281828]", "[0.0, 1.0]"),
    "log2": ("[1.0, 8.0]", "[0.0, 3.0]"), "log10": ("[1.0, 100.0]", "[0.0, 2.0]"),
    "log1p": ("[0.0, 1.0]", "[0.0, 0.6931]"), "sqrt": ("[4.0, 9.0]", "[2.0, 3.0]"),
    "rsqrt": ("[4.0, 0.25]", "[0.5, 2.0]"), "square": ("[2.0, -3.0]", "[4.0, 9.0]"),
    "abs": ("[-1.5, 2.0]", "[1.5, 2.0]"), "sign": ("[-2.0, 0.0, 3.0]", "[-1.0, 0.0, 1.0]"),
    "sin": ("[0.0, 1.5707964]", "[0.0, 1.0]"), "cos": ("[0.0, 3.1415927]", "[1.0, -1.0]"),
    "tan": ("[0.0, 0.7853982]", "[0.0, 1.0]"), "asin": ("[0.0, 1.0]", "[0.0, 1.5708]"),
    "acos": ("[1.0, 0.0]", "[0.0, 1.5708]"), "atan": ("[0.0, 1.0]", "[0.0, 0.7854]"),
    "sinh": ("[0.0, 1.0]", "[0.0, 1.1752]"), "cosh": ("[0.0, 1.0]", "[1.0, 1.5431]"),
    "tanh": ("[0.0, 1.0]", "[0.0, 0.7616]"), "sigmoid": ("[0.0, 2.0]", "[0.5, 0.8808]"),
    "erf": ("[0.0, 1.0]", "[0.0, 0.8427]"), "floor": ("[1.5, -1.5]", "[1.0, -2.0]"),
    "ceil": ("[1.5, -1.5]", "[2.0, -1.0]"), "round": ("[0.5, 1.4, -2.5]", "[0.0, 1.0, -2.0]"),
    "trunc": ("[1.5, -1.5]", "[1.0, -1.0]"), "reciprocal": ("[2.0, 0.25]", "[0.5, 4.0]"),
    "isnan": ("[1.0, float('nan')]", "[False, True]"), "isinf": ("[1.0, float('inf')]", "[False, True]"),
    "isfinite": ("[1.0, float('inf')]", "[True, False]"),
}


def _float_operand(x, name):
    """Paddle's rule for float math on integers: int32/int64 inputs compute in float32 (the default float, not
    NumPy's float64); bool inputs have no kernel and raise."""
    x = operand(x)
    kind = x.dtype.kind
    if kind in "iu":
        return cast(x, D.default_float())
    if kind == "b":
        raise TypeError(f"oar.{name}: a bool tensor has no {name}; cast it to a float dtype first (Paddle has no "
                        f"bool kernel for it either)")
    return x


def _un(name, impl, grad, infer=infer_same, float_math=False, **fields):
    """One unary op; `float_math` ops take int inputs as float32 (`_float_operand`)."""
    op = defop(name, impl, infer=infer, grad=grad, **fields)

    def fn(x, name=None):
        return apply(op, (_float_operand(x, op.name) if float_math else operand(x),))
    fn.__name__ = name
    x, out = _UNARY_EXAMPLES[name]
    call = f"oar.{name}(oar.to_tensor({x})).numpy().tolist()"
    show = call if name.startswith("is") else f"[round(v, 4) for v in {call}]"
    fn.__doc__ = f"Elementwise {name}.\n\n    Example:\n        >>> {show}\n        {out}\n    "
    return op, fn


NEG, neg = _un("neg", _neg, lambda g, out, x: -g, grad_reads=())
EXP, exp = _un("exp", _exp, lambda g, out, x: g * out, amp="black", float_math=True, grad_reads=("out",))
EXPM1, expm1 = _un("expm1", _expm1, lambda g, out, x: g * (out + 1), amp="black", float_math=True, grad_reads=("out",))
LOG, log = _un("log", _log, lambda g, out, x: g / x, amp="black", float_math=True)
LOG2, log2 = _un("log2", _log2, lambda g, out, x: g / (x * _math.log(2.0)), amp="black", float_math=True)
LOG10, log10 = _un("log10", _log10, lambda g, out, x: g / (x * _math.log(10.0)), amp="black", float_math=True)
LOG1P, log1p = _un("log1p", _log1p, lambda g, out, x: g / (x + 1), amp="black", float_math=True)
SQRT, sqrt = _un("sqrt", _sqrt, lambda g, out, x: g * 0.5 / out, float_math=True, grad_reads=("out",))
RSQRT, rsqrt = _un("rsqrt", _rsqrt, lambda g, out, x: g * -0.5 * out / x, amp="black", float_math=True)
SQUARE, square = _un("square", _square, lambda g, out, x: g * 2 * x, amp="black")
ABS, abs = _un("abs", _abs, lambda g, out, x: g * sign(x) if x.dtype.kind != "c" else g * (x / out),
               infer=lambda m: [(m[0][0], {D.complex64: D.float32, D.complex128: D.float64}.get(m[0][1], m[0][1]))])
SIGN, sign = _un("sign", _sign, lambda g, out, x: zeros_like(g))
SIN, sin = _un("sin", _sin, lambda g, out, x: g * cos(x), float_math=True)
COS, cos = _un("cos", _cos, lambda g, out, x: -g * sin(x), float_math=True)
TAN, tan = _un("tan", _tan, lambda g, out, x: g * (1 + out * out), float_math=True)
ASIN, asin = _un("asin", _asin, lambda g, out, x: g * rsqrt(1 - x * x), float_math=True)
ACOS, acos = _un("acos", _acos, lambda g, out, x: -g * rsqrt(1 - x * x), float_math=True)
ATAN, atan = _un("atan", _atan, lambda g, out, x: g / (1 + x * x), float_math=True)
SINH, sinh = _un("sinh", _sinh, lambda g, out, x: g * cosh(x), float_math=True)
COSH, cosh = _un("cosh", _cosh, lambda g, out, x: g * sinh(x), float_math=True)
TANH, tanh = _un("tanh", _tanh, lambda g, out, x: g * (1 - out * out), float_math=True, grad_reads=("out",))
SIGMOID, sigmoid = _un("sigmoid", _sigmoid, lambda g, out, x: g * out * (1 - out), float_math=True, grad_reads=("out",))
ERF, erf = _un("erf", _erf, lambda g, out, x: g * (2 / _math.sqrt(_math.pi)) * exp(-x * x), amp="black",
               float_math=True)
FLOOR, floor = _un("floor", _floor, lambda g, out, x: zeros_like(g))
CEIL, ceil = _un("ceil", _ceil, lambda g, out, x: zeros_like(g))
ROUND, _round = _un("round", _round_half_even, lambda g, out, x: zeros_like(g))


def round(x, decimals=0, name=None):
    """Elementwise rounding to `decimals` places, halves to even (as Paddle 3 and NumPy): ``x * 10**decimals`` is
    rounded in `x`'s dtype and divided back (a negative `decimals` rounds to tens, hundreds, ...).

    Example:
        >>> oar.round(oar.to_tensor([0.5, 1.5, -2.5])).numpy().tolist()
        [0.0, 2.0, -2.0]
        >>> oar.round(oar.to_tensor([1.25, 15.0], dtype='float64'), decimals=1).numpy().tolist()
        [1.2, 15.0]
        >>> oar.round(oar.to_tensor([15, 25, 14]), decimals=-1).numpy().tolist()
        [20, 20, 10]
    """
    x, d = operand(x), int(decimals)
    if d == 0 or (d > 0 and x.dtype.kind in "iub"):
        return _round(x)
    if x.dtype.kind in "iu":  # to tens, hundreds, ...: in float64, back to the integer dtype
        return cast(round(cast(x, D.float64), d), x.dtype)
    p = 10.0 ** (d if d > 0 else -d)
    return _round(x * p) / p if d > 0 else _round(x / p) * p
TRUNC, trunc = _un("trunc", _trunc, lambda g, out, x: zeros_like(g))
RECIPROCAL, reciprocal = _un("reciprocal", _reciprocal, lambda g, out, x: -g * out * out, amp="black", float_math=True,
                             grad_reads=("out",))
ISNAN, isnan = _un("isnan", _isnan, None, infer=lambda m: [(m[0][0], D.bool_)], differentiable=False)
ISINF, isinf = _un("isinf", _isinf, None, infer=lambda m: [(m[0][0], D.bool_)], differentiable=False)
ISFINITE, isfinite = _un("isfinite", _isfinite, None, infer=lambda m: [(m[0][0], D.bool_)], differentiable=False)


SCALE = defop("scale", _scale, grad=lambda g, out, x, scale, bias, bias_after_scale: scale_(g, scale), infer=infer_same)


def scale_(x, scale):
    """``x * scale`` (a helper of gradient rules; the Tensor method ``scale_`` is the in-place `scale`)."""
    return apply(SCALE, (x,), {"scale": float(scale), "bias": 0.0, "bias_after_scale": True})


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``x * scale + bias`` (or ``(x + bias) * scale``).

    Args:
        scale, bias: the multiplier and the offset.
        bias_after_scale: True gives ``x * scale + bias``, False ``(x + bias) * scale``.
        act: the name of an activation applied to the result ('relu', 'sigmoid', 'tanh', ... as
            ``oar.nn.functional`` names them), or None.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> oar.scale(x, scale=2.0, bias=1.0).numpy().tolist()
        [3.0, 5.0]
        >>> oar.scale(x, scale=2.0, bias=1.0, bias_after_scale=False).numpy().tolist()
        [4.0, 6.0]
        >>> oar.scale(x, scale=-1.0, act='relu').numpy().tolist()
        [0.0, 0.0]
    """
    out = apply(SCALE, (x,), {"scale": float(scale), "bias": float(bias), "bias_after_scale": bias_after_scale})
    if act is None:
        return out
    from .nn import activation  # relu, gelu, ... (tanh, sigmoid, exp are in this module)
    fn = (getattr(activation, act, None) or globals().get(act)) if isinstance(act, str) else None
    if fn is None or act.startswith("_"):
        raise ValueError(f"scale: act must be None or the name of an activation (as oar.nn.functional names it), "
                         f"got {act!r}")
    return fn(out)


CLIP = defop("clip", _clip, grad=lambda g, out, x, min, max: g * cast((x >= min) & (x <= max), g.dtype),
             infer=infer_same)


def clip(x, min=None, max=None, name=None):
    """Clamps values into ``[min, max]`` (either bound may be None).

    Example:
        >>> oar.clip(oar.to_tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0).numpy().tolist()
        [0.0, 0.5, 1.0]
    """
    if x.dtype.kind in "iu" and any(isinstance(b, (float, np.floating)) for b in (min, max)):
        x = cast(x, D.default_float())  # Paddle: an integer tensor clipped by float bounds gives float32
    lo = -np.inf if min is None else float(min)
    hi = np.inf if max is None else float(max)
    if x.dtype.kind in "iu":
        lo, hi = (np.iinfo(x.dtype.np).min if min is None else int(min)), (
            np.iinfo(x.dtype.np).max if max is None else int(max))
    if not lo <= hi:  # NumPy would give `max` everywhere (NaN for a NaN bound); Paddle refuses
        raise ValueError(f"clip: min ({min}) must not be greater than max ({max}), nor NaN")
    return apply(CLIP, (x,), {"min": lo, "max": hi})


NAN_TO_NUM = defop("nan_to_num", _nan_to_num,
                   grad=lambda g, out, x, nan, posinf, neginf: g * cast(isfinite(x), g.dtype), infer=infer_same)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replaces NaN and infinities with finite numbers.

    Example:
        >>> oar.nan_to_num(oar.to_tensor([float('nan'), 1.0, float('inf')]), posinf=9.0).numpy().tolist()
        [0.0, 1.0, 9.0]
    """
    return apply(NAN_TO_NUM, (x,), {"nan": float(nan), "posinf": posinf, "neginf": neginf})


WHERE = defop("where", _where, inputs=("condition", "x", "y"), nondiff=(0,),
              infer=lambda m: [(broadcast_shapes(m[0][0], m[1][0], m[2][0]), m[1][1])],
              grad=lambda g, out, c, x, y: (None, unbroadcast(where(c, g, zeros_like(g)), x),
                                            unbroadcast(where(c, zeros_like(g), g), y)))


def where(condition, x=None, y=None, name=None):
    """Picks from `x` where `condition` holds, else from `y`. With one argument, like ``nonzero``.

    Example:
        >>> x = oar.to_tensor([1.0, -2.0, 3.0])
        >>> oar.where(x > 0, x, oar.zeros_like(x)).numpy().tolist()
        [1.0, 0.0, 3.0]
        >>> [i.numpy().tolist() for i in oar.where(x > 0)]
        [[0, 2]]
    """
    if x is None and y is None:
        from .search import nonzero
        return nonzero(condition, as_tuple=True)
    if not hasattr(x, "dtype"):
        x = operand(x, y if hasattr(y, "dtype") else None)
    y = operand(y, x)
    if x.dtype is not y.dtype:
        t = D.promote(x.dtype, y.dtype)
        x, y = cast(x, t), cast(y, t)
    return apply(WHERE, (operand(condition), x, y))


# ---- constants used by gradient rules (defined here to avoid a cycle with creation.py) ----------------------


ZEROS_LIKE = defop("zeros_like", _zeros_like, amp="skip", infer=infer_same, differentiable=False)


def zeros_like(x, dtype=None, name=None):
    """Zeros with the shape (and dtype, unless given) of `x`.

    Example:
        >>> oar.zeros_like(oar.ones([2, 2]), dtype='int32').numpy().tolist()
        [[0, 0], [0, 0]]
    """
    out = apply(ZEROS_LIKE, (x,))
    return out if dtype is None else cast(out, dtype)


def ones_like(x, dtype=None, name=None):
    """Ones with the shape (and dtype, unless given) of `x`.

    Example:
        >>> oar.ones_like(oar.to_tensor([1, 2])).numpy().tolist()
        [1, 1]
    """
    out = zeros_like(x, dtype)
    return out | True if out.dtype is D.bool_ else out + 1  # a bool tensor's ones stay bool (Paddle)


# Re-exported so `oar.ops.math.sum(...)` keeps working for the families that use math as their toolbox.
from .reduction import (_infer_reduce, amax, amin, cumprod, cumsum, logsumexp, max, mean, min,  # noqa: E402,F401
                        prod, std, sum, var)
from .linalg import add_n, bmm, dot, einsum, increment, inverse, matmul, mm, outer, t  # noqa: E402,F401
from . import math_onnx  # noqa: E402,F401  (the family's ONNX lowerings)

__all__ = public_api(globals(), internal=('unbroadcast', 'scale_'))
