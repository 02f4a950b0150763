"""Comparisons, logical and bitwise ops (no gradients: their outputs are bool or integer)."""

from ..core import dtype as D
from ..core.tensor_methods import TensorMethods
from .common import (public_api, binary, infer_broadcast, infer_broadcast_bool, infer_bool, norm_axis,
                     operand, infer_same)
from .math import _infer_reduce
from .onnx_rules import binary as onnx_binary, same as onnx_same
from .registry import apply, defop, lowerings
from ..kernels.logic import (all as _all, any as _any, bitwise_and as _bitwise_and,
                           bitwise_left_shift as _bitwise_left_shift, bitwise_not as _bitwise_not,
                           bitwise_or as _bitwise_or, bitwise_right_shift as _bitwise_right_shift,
                           bitwise_xor as _bitwise_xor, equal as _equal,
                           greater_equal as _greater_equal, greater_than as _greater_than, isclose as _isclose,
                           less_equal as _less_equal, less_than as _less_than, logical_and as _logical_and,
                           logical_not as _logical_not, logical_or as _logical_or, logical_xor as _logical_xor,
                           not_equal as _not_equal)

_NO_ONNX = "ONNX bitwise ops need opset 18 (oar builds opset 13)"  # the onnx_reason of this family's ops


# expected outputs of the docstring examples (run as doctests): x = [1, 2, 3] against 2; x = [True, True, False]
# against [True, False, False] for logical ops and [12, 10] against [10, 6] for bitwise ones
_CMP_EXAMPLES = {"equal": [False, True, False], "not_equal": [True, False, True], "less_than": [True, False, False],
                 "less_equal": [True, True, False], "greater_than": [False, False, True],
                 "greater_equal": [False, True, True]}
_LOGIC_EXAMPLES = {"logical_and": [True, False, False], "logical_or": [True, True, False],
                   "logical_xor": [False, True, False], "bitwise_and": [8, 2], "bitwise_or": [14, 14],
                   "bitwise_xor": [6, 12]}


def _cmp(name, impl):
    op = defop(name, impl, inputs=("x", "y"), infer=infer_broadcast_bool, differentiable=False)

    def fn(x, y, name=None):
        return binary(op, x, y)
    fn.__name__ = name
    out = _CMP_EXAMPLES[name]
    fn.__doc__ = (f"Elementwise `{name}` comparison with broadcasting; returns a bool tensor.\n\n    Example:\n"
                  f"        >>> oar.{name}(oar.to_tensor([1, 2, 3]), oar.to_tensor(2)).numpy().tolist()\n"
                  f"        {out}\n    ")
    return op, fn


EQUAL, equal = _cmp("equal", _equal)
NOT_EQUAL, not_equal = _cmp("not_equal", _not_equal)
LESS_THAN, less_than = _cmp("less_than", _less_than)
LESS_EQUAL, less_equal = _cmp("less_equal", _less_equal)
GREATER_THAN, greater_than = _cmp("greater_than", _greater_than)
GREATER_EQUAL, greater_equal = _cmp("greater_equal", _greater_equal)


def _short_cmp(name, full):
    """Paddle 3's short comparison names (``paddle.gt`` is `greater_than`), with a keyword-only `out`."""
    def fn(x, y, name=None, *, out=None):
        return _into(full(x, y), out, fn.__name__)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`{full.__name__}` under Paddle 3's short name; with `out` the result is written into that "
                  f"tensor, which is returned.\n\n    Example:\n"
                  f"        >>> oar.{name}(oar.to_tensor([1, 2, 3]), oar.to_tensor(2)).numpy().tolist()\n"
                  f"        {_CMP_EXAMPLES[full.__name__]}\n    ")
    return fn


eq, ne = _short_cmp("eq", equal), _short_cmp("ne", not_equal)
gt, greater = _short_cmp("gt", greater_than), _short_cmp("greater", greater_than)
ge = _short_cmp("ge", greater_equal)
lt, less = _short_cmp("lt", less_than), _short_cmp("less", less_than)
le = _short_cmp("le", less_equal)


def _into(result, out, what):
    """`result`, or `out` holding it (Paddle's ``out=``: the tensor written and returned)."""
    if out is None:
        return result
    if not hasattr(out, "_inplace") and not hasattr(out, "block"):
        raise TypeError(f"{what}: out must be a Tensor, got {type(out).__name__}")
    if list(out.shape) != list(result.shape) or out.dtype != result.dtype:
        raise ValueError(f"{what}: out is {out.dtype.name}{list(out.shape)} but the result is "
                         f"{result.dtype.name}{list(result.shape)}")
    from .creation import assign
    return assign(result, out)


def _logic(name, impl, bitwise=False, **fields):
    op = defop(name, impl, inputs=("x", "y"), infer=infer_broadcast if bitwise else infer_broadcast_bool,
               differentiable=False, **fields)

    def fn(x, y, out=None, name=None):
        return _into(binary(op, x, y), out, op.name)
    fn.__name__ = name
    x, y = ("[12, 10]", "[10, 6]") if bitwise else ("[True, True, False]", "[True, False, False]")
    fn.__doc__ = (f"Elementwise `{name}`; with `out` the result is written into that tensor, which is "
                  f"returned.\n\n    Example:\n"
                  f"        >>> oar.{name}(oar.to_tensor({x}), oar.to_tensor({y})).numpy().tolist()\n"
                  f"        {_LOGIC_EXAMPLES[name]}\n    ")
    return op, fn


LOGICAL_AND, logical_and = _logic("logical_and", _logical_and)
LOGICAL_OR, logical_or = _logic("logical_or", _logical_or)
LOGICAL_XOR, logical_xor = _logic("logical_xor", _logical_xor)
BITWISE_AND, bitwise_and = _logic("bitwise_and", _bitwise_and, True,
                                  onnx_reason=_NO_ONNX)
BITWISE_OR, bitwise_or = _logic("bitwise_or", _bitwise_or, True,
                                onnx_reason=_NO_ONNX)
BITWISE_XOR, bitwise_xor = _logic("bitwise_xor", _bitwise_xor, True,
                                  onnx_reason=_NO_ONNX)
LOGICAL_NOT = defop("logical_not", _logical_not, infer=infer_bool, differentiable=False)
BITWISE_NOT = defop("bitwise_not", _bitwise_not, infer=infer_same,
                    differentiable=False, onnx_reason=_NO_ONNX)


def logical_not(x, out=None, name=None):
    """Elementwise logical not; returns bool.

    Example:
        >>> oar.logical_not(oar.to_tensor([True, False])).numpy().tolist()
        [False, True]
    """
    return _into(apply(LOGICAL_NOT, (operand(x),)), out, "logical_not")


def bitwise_not(x, out=None, name=None):
    """Elementwise bitwise not (logical not for bool).

    Example:
        >>> oar.bitwise_not(oar.to_tensor([0, 5])).numpy().tolist()
        [-1, -6]
    """
    return _into(apply(BITWISE_NOT, (operand(x),)), out, "bitwise_not")


_SHIFT_ONNX = "ONNX BitShift takes unsigned integers only and leaves counts past the bit width undefined"
BITWISE_LEFT_SHIFT = defop("bitwise_left_shift", _bitwise_left_shift, inputs=("x", "y"), infer=infer_broadcast,
                           differentiable=False, onnx_reason=_SHIFT_ONNX)
BITWISE_RIGHT_SHIFT = defop("bitwise_right_shift", _bitwise_right_shift, inputs=("x", "y"), infer=infer_broadcast,
                            differentiable=False, onnx_reason=_SHIFT_ONNX)


def _shift(op, x, y, is_arithmetic, out):
    """A shift of integer tensors of one dtype (Paddle promotes none; a Python int takes the tensor's dtype)."""
    x = operand(x, y if isinstance(y, TensorMethods) else None)
    y = operand(y, x)
    for v in (x, y):
        if v.dtype.kind not in "iu":
            raise TypeError(f"{op.name}: x and y must be integer tensors (uint8, int8, int16, int32, int64), got "
                            f"{v.dtype.name}")
    if x.dtype is not y.dtype:
        raise TypeError(f"{op.name}: x is {x.dtype.name} but y is {y.dtype.name}; cast one to the other's dtype")
    attrs = {"is_arithmetic": bool(is_arithmetic)} if op is BITWISE_RIGHT_SHIFT else {}  # one left shift for both
    return _into(apply(op, (x, y), attrs), out, op.name)


def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """Elementwise ``x << y`` of integer tensors of one dtype, with broadcasting; bits shifted past the top are
    lost, and a count `y` that is negative or not below the bit width gives 0 (as Paddle defines it).
    `is_arithmetic` makes no difference to a left shift. With `out` the result is written into that tensor.

    Example:
        >>> oar.bitwise_left_shift(oar.to_tensor([1, -3, 5]), oar.to_tensor([2, 1, 64])).numpy().tolist()
        [4, -6, 0]
    """
    return _shift(BITWISE_LEFT_SHIFT, x, y, is_arithmetic, out)


def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """Elementwise ``x >> y`` of integer tensors of one dtype, with broadcasting. Arithmetic (default): the sign
    bit fills in, and a count `y` that is negative or not below the bit width gives -1 for negative `x`, else 0.
    Logical (``is_arithmetic=False``): zeros fill in, as for the unsigned integer of the same bits, and such a
    count gives 0. With `out` the result is written into that tensor.

    Example:
        >>> x = oar.to_tensor([-8, 8], 'int8')
        >>> oar.bitwise_right_shift(x, oar.to_tensor([1, 1], 'int8')).numpy().tolist()
        [-4, 4]
        >>> oar.bitwise_right_shift(x, oar.to_tensor([1, 1], 'int8'), is_arithmetic=False).numpy().tolist()
        [124, 4]
    """
    return _shift(BITWISE_RIGHT_SHIFT, x, y, is_arithmetic, out)


def bitwise_invert(x, out=None, name=None):
    """`bitwise_not` under the Python array API's name (logical not for bool).

    Example:
        >>> oar.bitwise_invert(oar.to_tensor([0, 5])).numpy().tolist()
        [-1, -6]
    """
    return bitwise_not(x, out)


def _infer_all(m, axis, keepdim):
    return [(_infer_reduce(m, axis, keepdim)[0][0], D.bool_)]


ALL = defop("all", _all,
            infer=_infer_all, differentiable=False)
ANY = defop("any", _any,
            infer=_infer_all, differentiable=False)


def all(x, axis=None, keepdim=False, name=None):
    """True where every element along `axis` is true.

    Example:
        >>> oar.all(oar.to_tensor([[True, False], [True, True]]), axis=1).numpy().tolist()
        [False, True]
    """
    return apply(ALL, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def any(x, axis=None, keepdim=False, name=None):
    """True where some element along `axis` is true.

    Example:
        >>> oar.any(oar.to_tensor([[True, False], [False, False]]), axis=1).numpy().tolist()
        [True, False]
    """
    return apply(ANY, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


ISCLOSE = defop("isclose", _isclose,
                inputs=("x", "y"), infer=infer_broadcast_bool, differentiable=False, onnx_reason="not lowered yet")


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Elementwise |x - y| <= atol + rtol * |y|.

    Example:
        >>> oar.isclose(oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 2.1])).numpy().tolist()
        [True, False]
    """
    return binary(ISCLOSE, x, y, {"rtol": float(rtol), "atol": float(atol), "equal_nan": bool(equal_nan)})


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A 0-D bool tensor: whether every element is close.

    Example:
        >>> bool(oar.allclose(oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 2.0 + 1e-9])))
        True
    """
    return all(isclose(x, y, rtol, atol, equal_nan))


def equal_all(x, y, name=None):
    """A 0-D bool tensor: same shape and all elements equal.

    Example:
        >>> bool(oar.equal_all(oar.to_tensor([1, 2]), oar.to_tensor([1, 2])))
        True
    """
    if x.shape != y.shape:
        from .creation import full
        return full([], False, "bool")
    return all(equal(x, y))


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_not_of(onnx_type):
    return lambda ctx, op: ctx.node("Not", [ctx.node(onnx_type, [ctx.inp(op, "x"), ctx.inp(op, "y")])],
                                    [ctx.out(op)])


def _onnx_all_any(onnx_type):
    """all/any: a min/max reduction over the bools as int32."""
    def lower(ctx, op):
        a = op.attrs
        x = ctx.cast(ctx.inp(op, "x"), "int32")
        axes = {} if a["axis"] is None else {"axes": list(a["axis"])}
        ctx.cast(ctx.node(onnx_type, [x], keepdims=int(bool(a["keepdim"])), **axes), "bool", [ctx.out(op)])
    return lower


lowerings({
    "equal": onnx_binary("Equal"), "not_equal": _onnx_not_of("Equal"), "less_than": onnx_binary("Less"),
    "less_equal": onnx_binary("LessOrEqual"), "greater_than": onnx_binary("Greater"),
    "greater_equal": onnx_binary("GreaterOrEqual"),
    "logical_and": onnx_binary("And"), "logical_or": onnx_binary("Or"), "logical_xor": onnx_binary("Xor"),
    "logical_not": onnx_same("Not"), "all": _onnx_all_any("ReduceMin"), "any": _onnx_all_any("ReduceMax"),
})


__all__ = public_api(globals())
