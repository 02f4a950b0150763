"""The in-place `x_` forms of Paddle's ops: each is its out-of-place op followed by `Tensor._inplace`, which bumps
the tensor's version (so backward through a value changed after use raises) and keeps the tape consistent.

`INPLACE` maps each name to its function; `oar` exports them at the top level and `method_table` installs them as
Tensor methods."""
from . import (complex as _complex, indexing, logic, manipulation, math, matrix, rearrange, reduction, short_names,
               special)


# the arguments after `x` (and the input, where [[0.5, 0.25]] does not suit) of each in-place form's doc example
_INT = "oar.to_tensor([[6, 4]])"
_EXAMPLE_ARGS = {
    "divide": ", x", "multiply": ", x", "add": ", x", "subtract": ", x", "floor_divide": ", x", "remainder": ", x",
    "pow": ", 2.0", "equal": ", x", "not_equal": ", x", "greater_equal": ", x", "greater_than": ", x",
    "less_equal": ", x", "less_than": ", x", "logical_and": ", x", "logical_or": ", x", "logical_xor": ", x",
    "clip": ", 0.3, 0.4", "scale": ", 2.0", "cumsum": ", 1", "cumprod": ", 1", "reshape": ", [2, 1]",
    "squeeze": ", 0", "unsqueeze": ", 0", "transpose": ", [1, 0]",
    "scatter": ", oar.to_tensor([0]), oar.to_tensor([[1.0, 2.0]])",
    "index_add": ", oar.to_tensor([0]), 0, oar.to_tensor([[1.0, 2.0]])",
    "put_along_axis": ", oar.to_tensor([[0]]), 9.0, 1",
    "index_put": ", (oar.to_tensor([0]), oar.to_tensor([1])), oar.to_tensor(9.0)",
    "polygamma": ", 1", "lerp": ", x * 2, 0.5", "renorm": ", 2, 0, 0.1", "ldexp": ", oar.to_tensor([[1, 2]])",
    "addmm": ", oar.ones([1, 3]), oar.ones([3, 2])", "bitwise_and": ", x", "bitwise_or": ", x",
    "bitwise_xor": ", x", "gcd": ", x", "lcm": ", x", "bitwise_left_shift": ", x", "bitwise_right_shift": ", x",
    "hypot": ", x", "less": ", x", "clamp": ", 0.3, 0.4", "mul": ", x", "copysign": ", -x",
    "masked_fill": ", x > 0.3, 0.0",
    "index_fill": ", oar.to_tensor([0]), 1, 9.0", "masked_scatter": ", x > 0.3, oar.to_tensor([9.0])",
}
_EXAMPLE_INPUT = {"acosh": "oar.to_tensor([[1.5, 2.0]])", "bitwise_and": _INT, "bitwise_or": _INT,
                  "bitwise_xor": _INT, "bitwise_not": _INT, "gcd": _INT, "lcm": _INT,
                  "bitwise_left_shift": _INT, "bitwise_right_shift": _INT, "bitwise_invert": _INT}


def keeps_dtype(x, out):
    """Whether `x`, changed in place to `out`, keeps its dtype. As in Paddle, it takes the out-of-place result's
    dtype (``int.exp_()`` is float32, ``x.equal_(y)`` bool, ``float32.add_(float64)`` float64; a cast back would
    truncate silently), except that an integer result stays in `x`'s integer dtype (``cumsum_`` of int32 stays
    int32, as Paddle's)."""
    return out.dtype.kind == x.dtype.kind and x.dtype.kind in "iub"


def inplace(fn, name=None):
    """The in-place form of `fn`: computes ``fn(x, ...)`` and writes it into `x` (dtype: `keeps_dtype`). A
    broadcasting elementwise op (`_BROADCASTING`) whose result has another shape than `x` raises, as Paddle's."""
    def method(x, *args, **kwargs):
        out = fn(x, *args, **kwargs)
        if fn in _BROADCASTING and out.shape != x.shape:
            raise ValueError(f"{method.__name__}: the broadcast result has shape {out.shape}, the tensor written in "
                             f"place {x.shape}; an in-place op cannot change its tensor's shape (use {fn.__name__})")
        return x._inplace(out, keep_dtype=keeps_dtype(x, out))
    method.__name__ = name or fn.__name__ + "_"
    method.__qualname__ = method.__name__
    base = method.__name__[:-1]
    args = _EXAMPLE_ARGS.get(fn.__name__, _EXAMPLE_ARGS.get(base, ""))
    method.__doc__ = (
        f"In-place `{fn.__name__}`: writes the result into `x` (its version goes up) and returns `x`.\n\n"
        f"    Example:\n        >>> x = {_EXAMPLE_INPUT.get(fn.__name__, 'oar.to_tensor([[0.5, 0.25]])')}\n"
        f"        >>> y = oar.{fn.__name__}(x{args})\n"
        f"        >>> oar.{method.__name__}(x{args}) is x, bool((x == y.astype(x.dtype)).all())\n"
        f"        (True, True)\n    ")
    return method


def where_(condition, x=None, y=None, name=None):
    """In-place `where`: writes ``where(condition, x, y)`` into `x` and returns `x`.

    Example:
        >>> x = oar.to_tensor([1.0, -2.0])
        >>> oar.where_(x > 0, x, oar.zeros_like(x)).numpy().tolist()
        [1.0, 0.0]
    """
    out = math.where(condition, x, y)
    return x._inplace(out, keep_dtype=keeps_dtype(x, out))


def cast_(x, dtype):
    """In-place `cast`: `x` takes the new dtype.

    Example:
        >>> x = oar.to_tensor([1.5])
        >>> oar.cast_(x, 'float64').dtype == oar.float64
        True
    """
    return x._inplace(math.cast(x, dtype), keep_dtype=False)


def _uniform_like(x):
    from .random import uniform
    return uniform(x.shape, x.dtype, 1e-7, 1.0)


def exponential_(x, lam=1.0, name=None):
    """Fills `x` in place with samples of the exponential distribution of rate `lam`.

    Example:
        >>> x = oar.zeros([1000])
        >>> _ = x.exponential_(2.0)
        >>> bool((x > 0).all()), abs(x.mean().item() - 0.5) < 0.1
        (True, True)
    """
    return x._inplace(-math.log(_uniform_like(x)) / lam)


def cauchy_(x, loc=0.0, scale=1.0, name=None):
    """Fills `x` in place with samples of the Cauchy distribution.

    Example:
        >>> x = oar.zeros([2001])
        >>> abs(x.cauchy_(loc=3.0).median().item() - 3.0) < 0.3
        True
    """
    import math as _m
    return x._inplace(math.tan((_uniform_like(x) - 0.5) * _m.pi) * scale + loc)


def geometric_(x, probs, name=None):
    """Fills `x` in place with geometric samples: the number of Bernoulli(`probs`) trials up to the first success.

    Example:
        >>> x = oar.zeros([1000])
        >>> _ = x.geometric_(0.5)
        >>> bool((x >= 1).all()), abs(x.mean().item() - 2.0) < 0.3
        (True, True)
    """
    from .common import operand
    p = operand(probs, x)
    return x._inplace(math.maximum(math.ceil(math.log(_uniform_like(x)) / math.log1p(-p)), math.ones_like(x)))


_SOURCES = [
    math.abs, math.acos, math.asin, math.atan, math.ceil, math.cos, math.cosh, math.exp, math.expm1, math.floor,
    math.log, math.log2, math.log10, math.log1p, math.neg, math.pow, math.reciprocal, math.round, math.rsqrt,
    math.sin, math.sinh, math.sqrt, math.square, math.tan, math.tanh, math.trunc, math.sigmoid, math.erf,
    math.divide, math.multiply, math.add, math.subtract, math.floor_divide, math.remainder, math.clip, math.scale,
    math.nan_to_num,
    reduction.cumsum, reduction.cumprod,
    logic.equal, logic.not_equal, logic.greater_equal, logic.greater_than, logic.less_equal, logic.less_than,
    logic.logical_and, logic.logical_or, logic.logical_xor, logic.logical_not, logic.bitwise_and, logic.bitwise_or,
    logic.bitwise_xor, logic.bitwise_not, logic.bitwise_left_shift, logic.bitwise_right_shift, logic.less,
    logic.bitwise_invert, math.copysign, indexing.masked_fill, special.sinc,
    manipulation.reshape, manipulation.squeeze, manipulation.unsqueeze, manipulation.flatten,
    manipulation.transpose,
    indexing.scatter, indexing.index_add, indexing.put_along_axis, indexing.index_fill, indexing.masked_scatter,
    special.digamma, special.lgamma, special.polygamma, special.erfinv, special.i0, special.logit, special.frac,
    special.gcd, special.lcm, special.hypot, special.gammaln,
    special.ldexp, special.lerp, special.asinh, special.acosh, special.atanh,
    matrix.tril, matrix.triu, matrix.renorm, matrix.addmm,
    rearrange.index_put, short_names.clamp, short_names.mul,
]

_BROADCASTING = frozenset([
    math.divide, math.multiply, math.add, math.subtract, math.floor_divide, math.remainder, math.pow, math.copysign,
    logic.equal, logic.not_equal, logic.greater_equal, logic.greater_than, logic.less_equal, logic.less_than,
    logic.less, logic.logical_and, logic.logical_or, logic.logical_xor, logic.bitwise_and, logic.bitwise_or,
    logic.bitwise_xor, logic.bitwise_left_shift, logic.bitwise_right_shift, special.gcd, special.lcm, special.hypot,
    special.ldexp, special.lerp, short_names.mul])
INPLACE = {fn.__name__ + "_": inplace(fn) for fn in _SOURCES}
INPLACE.update(mod_=inplace(math.remainder, "mod_"), floor_mod_=inplace(math.remainder, "floor_mod_"),
               t_=inplace(math.t, "t_"), where_=where_, cast_=cast_)
RANDOM_FILLS = {"exponential_": exponential_, "cauchy_": cauchy_, "geometric_": geometric_}  # Tensor methods only
del _complex

globals().update(INPLACE)
__all__ = sorted(INPLACE)
