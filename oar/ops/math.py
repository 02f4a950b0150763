"""Elementwise math, activations-as-math, casts, reductions and linear algebra: one `defop` block per op."""
import math as _math

import numpy as np

from ..framework import dtype as D
from .common import EMPTY, binary, broadcast_shapes, infer_broadcast, infer_same, norm_axis, operand
from .registry import apply, defop

# ---- gradient helpers (built from ops, so they work eagerly, statically and for higher orders) -------------


def unbroadcast(g, x):
    """Sums `g` down to `x`'s shape (the gradient of broadcasting)."""
    gs, xs = g.shape, x.shape
    if gs == xs and -1 not in xs:
        return g
    return apply(REDUCE_AS, (g, x))


def _reduce_as(g, x):
    nd = g.ndim - x.ndim
    if g.shape[nd:] == x.shape:  # only leading dims were added (a bias): one plain sum
        return np.add.reduce(g, axis=tuple(range(nd)))
    axes = tuple(range(nd)) + tuple(i + nd for i, (a, b) in enumerate(zip(x.shape, g.shape[nd:])) if a == 1 != b)
    r = g.sum(axis=axes, keepdims=True) if axes else g
    return r.reshape(x.shape)


REDUCE_AS = defop("reduce_as", _reduce_as, inputs=("x", "target"), nondiff=(1,),
                  infer=lambda m: [(m[1][0], m[0][1])],
                  grad=lambda g, out, x, target: (expand_as(g, x), None))


def _expand_as(x, y):
    if y.size > 4096:
        return np.broadcast_to(x, y.shape)  # a view: no copy of large results
    out = np.empty(y.shape, x.dtype)  # small: a copy is cheaper than broadcast_to's Python wrapper
    out[...] = x
    return out


EXPAND_AS = defop("expand_as", _expand_as, inputs=("x", "y"), nondiff=(1,),
                  infer=lambda m: [(m[1][0], m[0][1])],
                  grad=lambda g, out, x, y: (unbroadcast(g, x), None))


def expand_as(x, y, name=None):
    """Broadcasts `x` to the shape of `y`."""
    return apply(EXPAND_AS, (x, y))


# ---- cast ----------------------------------------------------------------------------------------------------

def _cast(x, dtype):
    return x.astype(D.np_dtype(dtype), copy=False)


CAST = defop("cast", _cast, infer=lambda m, dtype: [(m[0][0], D.convert_dtype(dtype))],
             grad=lambda g, out, x, dtype: cast(g, x.dtype) if x.dtype.kind in "fc" else None)


def cast(x, dtype):
    """Converts `x` to `dtype` ('float32', oar.int64, ...)."""
    dtype = D.convert_dtype(dtype)
    if x.dtype is dtype:
        return x
    return apply(CAST, (x,), {"dtype": dtype.name})


# ---- binary elementwise ----------------------------------------------------------------------------------------

def _bin(name, impl, grad, nondiff=()):
    return defop(name, impl, inputs=("x", "y"), infer=infer_broadcast, grad=grad, nondiff=nondiff)


# Gradient rules skip inputs with stop_gradient (constants, data): fewer ops on the eager hot path and in
# static backward programs alike.
ADD = _bin("add", np.add, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g, x), None if y.stop_gradient else unbroadcast(g, y)))
SUBTRACT = _bin("subtract", np.subtract, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g, x), None if y.stop_gradient else unbroadcast(-g, y)))
MULTIPLY = _bin("multiply", np.multiply, lambda g, out, x, y: (
    None if x.stop_gradient else unbroadcast(g * y, x), None if y.stop_gradient else unbroadcast(g * x, y)))


def _true_divide(x, y):
    if x.dtype.kind in "iub":  # Paddle: integer division of tensors gives a float result
        return np.true_divide(x, y, dtype=D.default_float().np)
    return np.true_divide(x, y)


DIVIDE = defop("divide", _true_divide, inputs=("x", "y"),
               infer=lambda m: [(broadcast_shapes(m[0][0], m[1][0]),
                                 m[0][1] if m[0][1].kind in "fc" else D.default_float())],
               grad=lambda g, out, x, y: (unbroadcast(g / y, x), unbroadcast(-g * out / y, y)))
FLOOR_DIVIDE = _bin("floor_divide", np.floor_divide, None)
REMAINDER = _bin("remainder", np.mod, lambda g, out, x, y: (unbroadcast(g, x), unbroadcast(-g * floor_divide(x, y), y)))


def _pow_grad(g, out, x, y):
    gx = g * y * pow(x, y - 1)
    gy = g * out * log(where(x > 0, x, ones_like(x))) if y.dtype.kind in "fc" else None
    return unbroadcast(gx, x), (unbroadcast(gy, y) if gy is not None else None)


POW = _bin("elementwise_pow", np.power, _pow_grad)
def _select_grad(g, x_wins, x, y):
    """Gradient of an elementwise choice between x and y: `g` goes where `x_wins` to x, elsewhere to y."""
    return (None if x.stop_gradient else unbroadcast(where(x_wins, g, 0.0), x)), \
        (None if y.stop_gradient else unbroadcast(where(x_wins, 0.0, g), y))


MAXIMUM = _bin("maximum", np.maximum, lambda g, out, x, y: _select_grad(g, x >= y, x, y))
MINIMUM = _bin("minimum", np.minimum, lambda g, out, x, y: _select_grad(g, x <= y, x, y))
FMAX = _bin("fmax", np.fmax, None)
FMIN = _bin("fmin", np.fmin, None)
ATAN2 = _bin("atan2", np.arctan2, lambda g, out, x, y: (
    unbroadcast(g * y / (x * x + y * y), x), unbroadcast(-g * x / (x * x + y * y), y)))


def add(x, y, name=None):
    """Elementwise ``x + y`` with broadcasting.

    Example:
        >>> oar.add(oar.to_tensor([1.0, 2.0]), 1.0).numpy()
        array([2., 3.], dtype=float32)
    """
    return binary(ADD, x, y)


def subtract(x, y, name=None):
    """Elementwise ``x - y`` with broadcasting."""
    return binary(SUBTRACT, x, y)


def multiply(x, y, name=None):
    """Elementwise ``x * y`` with broadcasting."""
    return binary(MULTIPLY, x, y)


def divide(x, y, name=None):
    """Elementwise true division ``x / y``."""
    return binary(DIVIDE, x, y)


def floor_divide(x, y, name=None):
    """Elementwise ``x // y``."""
    return binary(FLOOR_DIVIDE, x, y)


def remainder(x, y, name=None):
    """Elementwise ``x % y`` (sign of the divisor, as Python)."""
    return binary(REMAINDER, x, y)


mod = floor_mod = remainder


def pow(x, y, name=None):
    """Elementwise ``x ** y``; `y` may be a number or a tensor."""
    return binary(POW, x, y)


def maximum(x, y, name=None):
    """Elementwise maximum."""
    return binary(MAXIMUM, x, y)


def minimum(x, y, name=None):
    """Elementwise minimum."""
    return binary(MINIMUM, x, y)


def fmax(x, y, name=None):
    return binary(FMAX, x, y)


def fmin(x, y, name=None):
    return binary(FMIN, x, y)


def atan2(x, y, name=None):
    return binary(ATAN2, x, y)


# ---- unary elementwise -----------------------------------------------------------------------------------------

def _un(name, impl, grad, infer=infer_same):
    op = defop(name, impl, infer=infer, grad=grad)

    def fn(x, name=None):
        return apply(op, (operand(x),))
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}."
    return op, fn


def _erf(x):
    if x.dtype == np.float64 or x.dtype.kind != "f":  # exact, elementwise
        from math import erf as _e
        return np.vectorize(_e, otypes=[x.dtype])(x) if x.size else x.copy()
    # float32/16: Abramowitz & Stegun 7.1.26 (abs error < 1.5e-7, about float32's resolution), vectorized
    a = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (np.sign(x) * (1.0 - poly * np.exp(-a * a))).astype(x.dtype)


NEG, neg = _un("neg", np.negative, lambda g, out, x: -g)
EXP, exp = _un("exp", np.exp, lambda g, out, x: g * out)
EXPM1, expm1 = _un("expm1", np.expm1, lambda g, out, x: g * (out + 1))
LOG, log = _un("log", np.log, lambda g, out, x: g / x)
LOG2, log2 = _un("log2", np.log2, lambda g, out, x: g / (x * _math.log(2.0)))
LOG10, log10 = _un("log10", np.log10, lambda g, out, x: g / (x * _math.log(10.0)))
LOG1P, log1p = _un("log1p", np.log1p, lambda g, out, x: g / (x + 1))
SQRT, sqrt = _un("sqrt", np.sqrt, lambda g, out, x: g * 0.5 / out)
RSQRT, rsqrt = _un("rsqrt", lambda x: 1 / np.sqrt(x), lambda g, out, x: g * -0.5 * out / x)
SQUARE, square = _un("square", np.square, lambda g, out, x: g * 2 * x)
ABS, abs = _un("abs", np.abs, lambda g, out, x: g * sign(x))
SIGN, sign = _un("sign", np.sign, lambda g, out, x: zeros_like(g))
SIN, sin = _un("sin", np.sin, lambda g, out, x: g * cos(x))
COS, cos = _un("cos", np.cos, lambda g, out, x: -g * sin(x))
TAN, tan = _un("tan", np.tan, lambda g, out, x: g * (1 + out * out))
ASIN, asin = _un("asin", np.arcsin, lambda g, out, x: g * rsqrt(1 - x * x))
ACOS, acos = _un("acos", np.arccos, lambda g, out, x: -g * rsqrt(1 - x * x))
ATAN, atan = _un("atan", np.arctan, lambda g, out, x: g / (1 + x * x))
SINH, sinh = _un("sinh", np.sinh, lambda g, out, x: g * cosh(x))
COSH, cosh = _un("cosh", np.cosh, lambda g, out, x: g * sinh(x))
TANH, tanh = _un("tanh", np.tanh, lambda g, out, x: g * (1 - out * out))
SIGMOID, sigmoid = _un("sigmoid", lambda x: (np.tanh(x * 0.5) + 1) * 0.5 if x.dtype.kind == "f"
                       else 1 / (1 + np.exp(-x)), lambda g, out, x: g * out * (1 - out))
ERF, erf = _un("erf", _erf, lambda g, out, x: g * (2 / _math.sqrt(_math.pi)) * exp(-x * x))
FLOOR, floor = _un("floor", np.floor, lambda g, out, x: zeros_like(g))
CEIL, ceil = _un("ceil", np.ceil, lambda g, out, x: zeros_like(g))
ROUND, round = _un("round", np.round, lambda g, out, x: zeros_like(g))
TRUNC, trunc = _un("trunc", np.trunc, lambda g, out, x: zeros_like(g))
RECIPROCAL, reciprocal = _un("reciprocal", np.reciprocal, lambda g, out, x: -g * out * out)
ISNAN, isnan = _un("isnan", np.isnan, None, infer=lambda m: [(m[0][0], D.bool_)])
ISINF, isinf = _un("isinf", np.isinf, None, infer=lambda m: [(m[0][0], D.bool_)])
ISFINITE, isfinite = _un("isfinite", np.isfinite, None, infer=lambda m: [(m[0][0], D.bool_)])


def _scale(x, scale, bias, bias_after_scale):
    if bias == 0.0:
        return x * scale
    return x * scale + bias if bias_after_scale else (x + bias) * scale


SCALE = defop("scale", lambda x, scale, bias, bias_after_scale: _scale(x, scale, bias, bias_after_scale).astype(
    x.dtype, copy=False), grad=lambda g, out, x, scale, bias, bias_after_scale: scale_(g, scale))


def scale_(x, scale):
    return apply(SCALE, (x,), {"scale": float(scale), "bias": 0.0, "bias_after_scale": True})


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``x * scale + bias`` (or ``(x + bias) * scale``)."""
    return apply(SCALE, (x,), {"scale": float(scale), "bias": float(bias), "bias_after_scale": bias_after_scale})


def _clip(x, min, max):
    return np.clip(x, min, max).astype(x.dtype, copy=False)


CLIP = defop("clip", _clip, grad=lambda g, out, x, min, max: g * cast((x >= min) & (x <= max), g.dtype))


def clip(x, min=None, max=None, name=None):
    """Clamps values into ``[min, max]`` (either bound may be None)."""
    lo = -np.inf if min is None else float(min)
    hi = np.inf if max is None else float(max)
    if x.dtype.kind in "iu":
        lo, hi = (np.iinfo(x.dtype.np).min if min is None else int(min)), (
            np.iinfo(x.dtype.np).max if max is None else int(max))
    return apply(CLIP, (x,), {"min": lo, "max": hi})


def _nan_to_num(x, nan, posinf, neginf):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


NAN_TO_NUM = defop("nan_to_num", _nan_to_num,
                   grad=lambda g, out, x, nan, posinf, neginf: g * cast(isfinite(x), g.dtype))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replaces NaN and infinities with finite numbers."""
    return apply(NAN_TO_NUM, (x,), {"nan": float(nan), "posinf": posinf, "neginf": neginf})


def _where(c, x, y):
    return np.where(c, x, y)


WHERE = defop("where", _where, inputs=("condition", "x", "y"), nondiff=(0,),
              infer=lambda m: [(broadcast_shapes(m[0][0], m[1][0], m[2][0]), m[1][1])],
              grad=lambda g, out, c, x, y: (None, unbroadcast(where(c, g, zeros_like(g)), x),
                                            unbroadcast(where(c, zeros_like(g), g), y)))


def where(condition, x=None, y=None, name=None):
    """Picks from `x` where `condition` holds, else from `y`. With one argument, like ``nonzero``."""
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

def _zeros_like(x):
    return np.zeros_like(x)


ZEROS_LIKE = defop("zeros_like", _zeros_like)


def zeros_like(x, dtype=None, name=None):
    """Zeros with the shape (and dtype, unless given) of `x`."""
    out = apply(ZEROS_LIKE, (x,))
    return out if dtype is None else cast(out, dtype)


def ones_like(x, dtype=None, name=None):
    """Ones with the shape (and dtype, unless given) of `x`."""
    return zeros_like(x, dtype) + 1


# ---- reductions ------------------------------------------------------------------------------------------------

def _keep(g, x, axis, keepdim):
    """Broadcasts a reduced gradient back to `x`'s shape."""
    if not keepdim and axis is not None and g.ndim != x.ndim:
        from .manipulation import unsqueeze
        g = unsqueeze(g, list(axis))
    return expand_as(g, x)


def _infer_reduce(m, axis, keepdim, **kw):
    shape, dt = m[0]
    dt = D.convert_dtype(kw["dtype"]) if kw.get("dtype") else dt
    if axis is None:
        return [([1] * len(shape) if keepdim else [], dt)]
    return [([1 if i in axis else d for i, d in enumerate(shape)] if keepdim else
             [d for i, d in enumerate(shape) if i not in axis], dt)]


def _tup(axis):
    """Axis attrs are lists once a Program went through JSON; NumPy reductions want a tuple."""
    return tuple(axis) if type(axis) is list else axis


def _sum(x, axis, keepdim, dtype):
    axis = _tup(axis)
    r = np.sum(x, axis=axis, keepdims=keepdim, dtype=D.np_dtype(dtype) if dtype else None)
    if dtype is None and x.dtype.kind in "bi" and x.dtype != np.int64:
        r = r.astype(np.int64)  # Paddle sums bool/int32 into int64
    return np.asarray(r)


def _sum_infer(m, axis, keepdim, dtype):
    out = _infer_reduce(m, axis, keepdim, dtype=dtype)
    if dtype is None and m[0][1].kind in "bi":
        out = [(out[0][0], D.int64)]
    return out


SUM = defop("sum", _sum, infer=_sum_infer,
            grad=lambda g, out, x, axis, keepdim, dtype: cast(_keep(g, x, axis, keepdim), x.dtype))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over `axis` (all axes when None)."""
    axis = norm_axis(axis, x.ndim)
    return apply(SUM, (x,), {"axis": axis, "keepdim": bool(keepdim), "dtype": D.convert_dtype(dtype).name if dtype
                             else None})


def _mean(x, axis, keepdim):
    if x.dtype.kind not in "fc":
        x = x.astype(np.float32)
    n = x.size if axis is None else _math.prod([x.shape[a] for a in axis])
    s = np.add.reduce(x, axis=_tup(axis), keepdims=keepdim)  # np.mean's Python wrapper costs more than the sum
    return np.asarray(np.true_divide(s, n, dtype=x.dtype) if n else s * np.nan)


def _mean_grad(g, x, axis, keepdim):
    # g * (1/n) broadcast back to x's shape, as one kernel: the gradient of every `loss.mean()`
    if not keepdim and axis is not None and g.ndim != x.ndim:
        g = np.expand_dims(g, _tup(axis))
    r = g.size / x.size if x.size else 0.0
    out = np.empty(x.shape, g.dtype)
    out[...] = g * r
    return out


MEAN_GRAD = defop("mean_grad", _mean_grad, inputs=("out_grad", "x"), nondiff=(1,),
                  infer=lambda m, axis, keepdim: [(m[1][0], m[0][1])],
                  grad=lambda gg, out, g, x, axis, keepdim: (mean(gg, axis, keepdim), None))
MEAN = defop("mean", _mean, infer=_infer_reduce,
             grad=lambda g, out, x, axis, keepdim: apply(MEAN_GRAD, (g, x), {"axis": axis, "keepdim": keepdim}))


def mean(x, axis=None, keepdim=False, name=None):
    """Mean over `axis` (all axes when None)."""
    return apply(MEAN, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def _extreme_grad(g, out, x, axis, keepdim):
    o = _keep(out, x, axis, keepdim)
    mask = cast(x == o, g.dtype)
    count = _keep(sum(mask, axis=list(axis) if axis else None, keepdim=True), x, tuple(range(x.ndim)), True)
    return _keep(g, x, axis, keepdim) * mask / count


MAX = defop("max", lambda x, axis, keepdim: np.asarray(np.max(x, axis=_tup(axis), keepdims=keepdim)),
            infer=_infer_reduce, grad=_extreme_grad)
MIN = defop("min", lambda x, axis, keepdim: np.asarray(np.min(x, axis=_tup(axis), keepdims=keepdim)),
            infer=_infer_reduce, grad=_extreme_grad)
AMAX, AMIN = MAX, MIN


def max(x, axis=None, keepdim=False, name=None):
    """Maximum over `axis`; the gradient is shared evenly between tied maxima."""
    return apply(MAX, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def min(x, axis=None, keepdim=False, name=None):
    """Minimum over `axis`."""
    return apply(MIN, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


amax, amin = max, min


PROD = defop("prod", lambda x, axis, keepdim: np.asarray(np.prod(x, axis=_tup(axis), keepdims=keepdim)),
             infer=_infer_reduce,
             grad=lambda g, out, x, axis, keepdim: _keep(g * out, x, axis, keepdim) / x)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over `axis` (the gradient assumes no zeros in `x`)."""
    if dtype is not None:
        x = cast(x, dtype)
    return apply(PROD, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def _logsumexp(x, axis, keepdim):
    axis = _tup(axis)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return np.asarray(r if keepdim else (np.squeeze(r, axis=axis) if axis is not None else r.reshape(())))


LOGSUMEXP = defop("logsumexp", _logsumexp, infer=_infer_reduce,
                  grad=lambda g, out, x, axis, keepdim: _keep(g, x, axis, keepdim) * exp(x - _keep(out, x, axis,
                                                                                                      keepdim)))


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``log(sum(exp(x)))`` over `axis`, computed stably."""
    return apply(LOGSUMEXP, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Variance over `axis` (``unbiased`` divides by N-1)."""
    ax = norm_axis(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in ax])) if ax is not None else x.size
    d = x - mean(x, axis=list(ax) if ax else None, keepdim=True)
    s = sum(d * d, axis=list(ax) if ax else None, keepdim=keepdim)
    return s / builtins_max(n - (1 if unbiased else 0), 1)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation over `axis`."""
    return sqrt(var(x, axis, unbiased, keepdim))


def builtins_max(a, b):
    return a if a > b else b


def _cum(name, impl, grad):
    return defop(name, impl, grad=grad)


def _cumsum(x, axis, reverse=False):
    if axis is None:
        x, axis = x.reshape(-1), 0
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)
    return np.cumsum(x, axis=axis)


CUMSUM = defop("cumsum", _cumsum, infer=None,
               grad=lambda g, out, x, axis, reverse=False: _cumsum_grad(g, x, axis, reverse))


def _cumsum_grad(g, x, axis, reverse):
    gx = apply(CUMSUM, (g,), {"axis": axis if axis is not None else 0, "reverse": not reverse})
    if axis is None:
        from .manipulation import reshape
        gx = reshape(gx, x.shape)
    return gx


def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along `axis` (flattened when None)."""
    if dtype is not None:
        x = cast(x, dtype)
    return apply(CUMSUM, (x,), {"axis": None if axis is None else int(axis) % builtins_max(x.ndim, 1),
                                "reverse": False})


CUMPROD = defop("cumprod", lambda x, dim: np.cumprod(x, axis=dim),
                grad=lambda g, out, x, dim: apply(CUMSUM, (g * out,), {"axis": dim, "reverse": True}) / x)


def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along `dim` (gradient assumes no zeros)."""
    if dtype is not None:
        x = cast(x, dtype)
    if dim is None:
        from .manipulation import flatten
        x, dim = flatten(x), 0
    return apply(CUMPROD, (x,), {"dim": int(dim) % builtins_max(x.ndim, 1)})


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """Vector/matrix norm: 'fro', or a number p (inf, -inf, 0, 1, 2, ...) over `axis`."""
    ax = list(norm_axis(axis, x.ndim)) if axis is not None else None
    if p == "fro" or p == 2 or p == 2.0:
        return sqrt(sum(x * x, axis=ax, keepdim=keepdim))
    if p in (np.inf, "inf"):
        return max(abs(x), axis=ax, keepdim=keepdim)
    if p in (-np.inf, "-inf"):
        return min(abs(x), axis=ax, keepdim=keepdim)
    if p == 0:
        return sum(cast(x != 0, x.dtype), axis=ax, keepdim=keepdim)
    if p == 1:
        return sum(abs(x), axis=ax, keepdim=keepdim)
    p = float(p)
    return pow(sum(pow(abs(x), p), axis=ax, keepdim=keepdim), 1.0 / p)


# ---- linear algebra --------------------------------------------------------------------------------------------

def _matmul(x, y, transpose_x, transpose_y):
    a = np.swapaxes(x, -1, -2) if transpose_x and x.ndim >= 2 else x
    b = np.swapaxes(y, -1, -2) if transpose_y and y.ndim >= 2 else y
    try:
        return np.matmul(a, b)
    except ValueError:  # explain in the user's terms; checking only on failure keeps the hot path lean
        _matmul_check(x, y, transpose_x, transpose_y)
        raise


def _matmul_check(x, y, transpose_x, transpose_y):
    xs, ys = list(x.shape), list(y.shape)
    if not xs or not ys:
        raise ValueError(f"matmul needs inputs with at least 1 dim, got shapes {xs} and {ys}")
    k1 = xs[-2] if transpose_x and len(xs) >= 2 else xs[-1]
    k2 = ys[-1] if transpose_y and len(ys) >= 2 else (ys[-2] if len(ys) >= 2 else ys[0])
    if k1 != k2 and k1 != -1 and k2 != -1:
        raise ValueError(f"matmul: the inner dimensions of x (shape {xs}{', transposed' if transpose_x else ''}) "
                         f"and y (shape {ys}{', transposed' if transpose_y else ''}) differ: {k1} vs {k2}")


def _matmul_infer(m, transpose_x, transpose_y):
    xs, ys = list(m[0][0]), list(m[1][0])
    _matmul_check(type("M", (), {"shape": xs}), type("M", (), {"shape": ys}), transpose_x, transpose_y)
    if transpose_x and len(xs) >= 2:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if transpose_y and len(ys) >= 2:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    xv, yv = len(xs) == 1, len(ys) == 1
    if xv:
        xs = [1] + xs
    if yv:
        ys = ys + [1]
    batch = broadcast_shapes(xs[:-2], ys[:-2]) if (len(xs) > 2 or len(ys) > 2) else []
    out = batch + ([] if xv else [xs[-2]]) + ([] if yv else [ys[-1]])
    return [(out, m[0][1])]


def _mm(a, b, ta, tb):
    return apply(MATMUL, (a, b), {"transpose_x": ta, "transpose_y": tb})


def _matmul_grad(g, out, x, y, transpose_x, transpose_y):
    x2, y2, g2 = x, y, g
    if x.ndim == 1 or y.ndim == 1:  # vectors: compute as matrices, then reshape back
        from .manipulation import unsqueeze, reshape
        if x.ndim == 1:
            x2, g2 = unsqueeze(x, [0]), unsqueeze(g2, [-2 if y.ndim > 1 else 0])
        if y.ndim == 1:
            y2, g2 = unsqueeze(y, [1]), unsqueeze(g2, [-1])
    mm = _mm
    gx = gy = None
    if not x.stop_gradient:
        gx = unbroadcast(mm(y2, g2, transpose_y, True) if transpose_x else mm(g2, y2, False, not transpose_y), x2)
        gx = reshape(gx, x.shape) if x.ndim == 1 else gx
    if not y.stop_gradient:
        gy = unbroadcast(mm(g2, x2, True, transpose_x) if transpose_y else mm(x2, g2, not transpose_x, False), y2)
        gy = reshape(gy, y.shape) if y.ndim == 1 else gy
    return gx, gy


MATMUL = defop("matmul", _matmul, inputs=("x", "y"), infer=_matmul_infer, grad=_matmul_grad)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with NumPy broadcasting of batch dims; 1-D inputs are vectors.

    Example:
        >>> oar.matmul(oar.ones([2, 3]), oar.ones([3, 4])).shape
        [2, 4]
    """
    x, y = operand(x), operand(y)
    if x.dtype is not y.dtype:
        t = D.promote(x.dtype, y.dtype)
        x, y = cast(x, t), cast(y, t)
    return apply(MATMUL, (x, y), {"transpose_x": bool(transpose_x), "transpose_y": bool(transpose_y)})


def mm(input, mat2, name=None):
    """Matrix product of two matrices."""
    return matmul(input, mat2)


def bmm(x, y, name=None):
    """Batched matrix product of [B, N, K] and [B, K, M]."""
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"bmm expects 3-D inputs, got shapes {x.shape} and {y.shape}")
    return matmul(x, y)


def dot(x, y, name=None):
    """Inner product of 1-D tensors (row-wise for 2-D)."""
    return sum(x * y, axis=-1)


def outer(x, y, name=None):
    """Outer product of two vectors."""
    from .manipulation import reshape
    return reshape(x, [-1, 1]) * reshape(y, [1, -1])


def t(input, name=None):
    """Transpose of a matrix of at most 2 dims."""
    if input.ndim > 2:
        raise ValueError(f"t() expects a tensor with at most 2 dims, got shape {input.shape}")
    from .manipulation import transpose
    return input if input.ndim < 2 else transpose(input, [1, 0])


def _inverse(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        raise ValueError(f"inverse: the matrix is singular ({e})") from None


INVERSE = defop("inverse", _inverse, infer=infer_same,
                grad=lambda g, out, x: -matmul(matmul(out, g, transpose_x=True), out, transpose_y=True))


def inverse(x, name=None):
    """Inverse of square matrices (batched over leading dims)."""
    return apply(INVERSE, (x,))


def _einsum(*xs, equation):
    return np.asarray(np.einsum(equation, *xs, optimize=len(xs) > 2))


def _einsum_grad(g, out, *xs, equation):
    lhs, rhs = equation.replace(" ", "").split("->")
    terms = lhs.split(",")
    grads = []
    for i, x in enumerate(xs):
        others = [t for j, t in enumerate(terms) if j != i]
        eq = ",".join([rhs] + others) + "->" + terms[i]
        if len(set(terms[i])) != len(terms[i]) or any(c not in rhs + "".join(others) for c in terms[i]):
            # repeated or summed-out-alone index: contract to the kept letters, then broadcast back
            kept = "".join(c for c in dict.fromkeys(terms[i]) if c in rhs + "".join(others))
            eq2 = ",".join([rhs] + others) + "->" + kept
            gi = apply(EINSUM, (g,) + tuple(xs[j] for j in range(len(xs)) if j != i), {"equation": eq2})
            gi = _einsum_broadcast(gi, kept, terms[i], x)
        else:
            gi = apply(EINSUM, (g,) + tuple(xs[j] for j in range(len(xs)) if j != i), {"equation": eq})
        grads.append(gi)
    return tuple(grads)


def _einsum_broadcast(gi, kept, term, x):
    from .manipulation import unsqueeze
    if len(set(term)) != len(term):
        raise NotImplementedError("einsum gradient with a repeated index in one operand (a diagonal)")
    pos = [term.index(c) for c in kept]
    order = sorted(range(len(kept)), key=lambda k: pos[k])
    from .manipulation import transpose
    gi = transpose(gi, order) if order != list(range(len(kept))) else gi
    missing = [i for i, c in enumerate(term) if c not in kept]
    return expand_as(unsqueeze(gi, missing), x)


EINSUM = defop("einsum", _einsum, inputs=("operands",), variadic=True, grad=_einsum_grad)


def einsum(equation, *operands):
    """Einstein summation, e.g. ``oar.einsum('ij,jk->ik', a, b)``."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    if "->" not in eq:
        letters = eq.replace(",", "")
        eq = eq + "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if "." in eq:
        raise NotImplementedError("einsum with '...' is not supported yet; write the dims out")
    return apply(EINSUM, tuple(operands), {"equation": eq})


def add_n(inputs, name=None):
    """Sum of a list of tensors of the same shape."""
    if not isinstance(inputs, (list, tuple)):
        return inputs
    out = inputs[0]
    for x in inputs[1:]:
        out = add(out, x)
    return out


def increment(x, value=1.0, name=None):
    return add(x, value)
