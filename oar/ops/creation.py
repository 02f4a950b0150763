"""Creation ops: constants, ranges and identity matrices (random creation lives in `random.py`)."""
import numpy as np

from ..core import dtype as D
from .common import public_api, to_int_list
from ..kernels.creation import (arange as _arange, arange_length as _arange_length, assign_value as _assign_value,
                                eye as _eye, full as _full, is_uniform as _is_uniform, linspace as _linspace)
from .onnx_rules import constant, same
from ..kernels.backend import copy_to as _copy_to
from .registry import apply, bounds_output, defop, lowerings


def _dtype_or_default(dtype):
    """`dtype`, or the default float dtype (Paddle 2.x: creation ops with dtype=None make float32)."""
    return D.convert_dtype(dtype) if dtype is not None else D.default_float()


def _full_infer(m, shape, value, dtype):
    return [(list(shape), D.convert_dtype(dtype))]


FULL = defop("full", _full, inputs=(),
             infer=_full_infer, differentiable=False)
ASSIGN_VALUE = defop("assign_value", _assign_value, inputs=(),
                     infer=lambda m, shape, values, dtype: [(list(shape), D.convert_dtype(dtype))],
                     differentiable=False)


def _static_const(value, dtype):
    a = np.asarray(value, dtype=D.np_dtype(dtype))
    if _is_uniform(a):
        v = a.flat[0].item() if a.size else 0
        return apply(FULL, (), {"shape": list(a.shape), "value": v, "dtype": D.convert_dtype(dtype).name})
    return apply(ASSIGN_VALUE, (), {"shape": list(a.shape), "values": a.reshape(-1).tolist(),
                                    "dtype": D.convert_dtype(dtype).name})


def full(shape, fill_value, dtype=None, name=None):
    """A tensor of `shape` filled with `fill_value`; `dtype` None means float32 (the default dtype), bool for a bool
    and complex128 for a complex value, as in Paddle.

    Example:
        >>> oar.full([2, 2], 7).numpy()
        array([[7., 7.],
               [7., 7.]], dtype=float32)
    """
    if hasattr(fill_value, "dtype"):
        from .math import cast
        return cast(fill_value, dtype or fill_value.dtype) + zeros(shape, dtype or fill_value.dtype)
    if hasattr(shape, "dtype") or (isinstance(shape, (list, tuple)) and any(hasattr(s, "block") for s in shape)):
        from .dynamic_shape import full_dynamic
        return full_dynamic(shape, fill_value, _dtype_or_default(dtype))
    if dtype is None and isinstance(fill_value, (bool, complex)):  # Paddle: a bool fills bool, a complex complex128
        dtype = D.bool_ if isinstance(fill_value, bool) else D.complex128
    dt = _dtype_or_default(dtype)
    return apply(FULL, (), {"shape": to_int_list(shape), "value": fill_value if not isinstance(
        fill_value, np.generic) else fill_value.item(), "dtype": dt.name})


def zeros(shape, dtype=None, name=None):
    """A tensor of zeros (default dtype float32).

    Example:
        >>> oar.zeros([2, 3]).shape, oar.zeros([2, 3]).dtype == oar.float32
        ([2, 3], True)
    """
    return full(shape, 0.0 if dtype is None else 0, dtype or D.default_float())


def ones(shape, dtype=None, name=None):
    """A tensor of ones (default dtype float32).

    Example:
        >>> oar.ones([2, 2], dtype='int64').numpy().tolist()
        [[1, 1], [1, 1]]
    """
    return full(shape, 1.0 if dtype is None else 1, dtype or D.default_float())


def empty(shape, dtype=None, name=None):
    """An uninitialised tensor; oar fills it with zeros so results never depend on garbage.

    Example:
        >>> oar.empty([2, 3]).shape
        [2, 3]
    """
    return zeros(shape, dtype)


def full_like(x, fill_value, dtype=None, name=None):
    """Like `x`'s shape, filled with `fill_value`.

    Example:
        >>> oar.full_like(oar.ones([2]), 7.5).numpy().tolist()
        [7.5, 7.5]
    """
    from .math import cast, zeros_like
    dt = D.convert_dtype(dtype) if dtype is not None else x.dtype
    if dt is D.bool_:  # bool stays bool: full_like(mask, 1) is all True (Paddle)
        return zeros_like(x, D.bool_) | bool(fill_value)
    out = zeros_like(x, dt) + (int(fill_value) if isinstance(fill_value, bool) else fill_value)
    return out if out.dtype is dt else cast(out, dt)  # the value takes the dtype: full_like(int, 2.7) is 2 (Paddle)


def empty_like(x, dtype=None, name=None):
    """Like `x`'s shape (and dtype unless given); filled with zeros, as `empty`.

    Example:
        >>> oar.empty_like(oar.ones([2, 3]), dtype='int64').shape
        [2, 3]
    """
    from .math import zeros_like
    return zeros_like(x, dtype)


def _arange_infer(m, start, end, step, dtype):
    return [([_arange_length(start, end, step)], D.convert_dtype(dtype))]


ARANGE = defop("arange", _arange,
               inputs=(), infer=_arange_infer, differentiable=False)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values from `start` to `end` (exclusive) by `step`; a single argument is `end`.

    Example:
        >>> oar.arange(5).numpy().tolist()
        [0, 1, 2, 3, 4]
        >>> oar.arange(1.0, 2.0, 0.25).numpy().tolist()
        [1.0, 1.25, 1.5, 1.75]
    """
    if end is None:
        start, end = 0, start
    vals = [v.item() if hasattr(v, "item") and not hasattr(v, "block") else v for v in (start, end, step)]
    if any(hasattr(v, "block") for v in vals):
        from .dynamic_shape import arange_dynamic
        return arange_dynamic(*vals, dtype=dtype)
    start, end, step = vals
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) else D.default_float()
    if step == 0:
        raise ValueError("arange: step must not be 0")
    return apply(ARANGE, (), {"start": start, "end": end, "step": step, "dtype": D.convert_dtype(dtype).name})


LINSPACE = defop("linspace", _linspace,
                 inputs=(), infer=lambda m, start, stop, num, dtype: [([num], D.convert_dtype(dtype))],
                 differentiable=False)


def linspace(start, stop, num, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """`num` evenly spaced values from `start` to `stop` inclusive; Paddle 3's `out` receives the result,
    `device` must be the CPU, `requires_grad` sets ``stop_gradient = not requires_grad``.

    Example:
        >>> oar.linspace(0.0, 1.0, 5).numpy().tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
        >>> oar.linspace(0, 1, 3, device='cpu', requires_grad=True).stop_gradient
        False
    """
    _check_cpu(device, "linspace")
    res = apply(LINSPACE, (), {"start": float(start), "stop": float(stop), "num": int(num),
                               "dtype": _dtype_or_default(dtype).name})
    if requires_grad:
        res.stop_gradient = False
    return assign(res, out) if out is not None else res


def _check_cpu(device, fn):
    """Paddle 3's `device=` argument: oar computes on the CPU only."""
    name = device if isinstance(device, str) else type(device).__name__ if device is not None else "cpu"
    if not (name.lower().startswith("cpu") or name == "Place" and "cpu" in str(device).lower()):
        raise ValueError(f"{fn}: device={device!r}: oar computes on the CPU only (device='cpu' or None)")


EYE = defop("eye", _eye,
            inputs=(), infer=lambda m, num_rows, num_columns, dtype: [([num_rows, num_columns],
                                                                         D.convert_dtype(dtype))],
            differentiable=False)
bounds_output(FULL, ARANGE, LINSPACE, EYE)  # a model file's attributes must not allocate without limit


def eye(num_rows, num_columns=None, dtype=None, name=None):
    """Identity matrix of `num_rows` x `num_columns`.

    Example:
        >>> oar.eye(2, 3).numpy().tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    return apply(EYE, (), {"num_rows": int(num_rows), "num_columns": int(num_columns or num_rows),
                           "dtype": _dtype_or_default(dtype).name})


MEMCPY = defop("memcpy", _copy_to, infer=lambda m, place: [m[0]],
               grad=lambda g, out, x, place: memcpy(g, x.place.name()), amp="skip",
               onnx_reason="moves a tensor between host and GPU; an exported model has no placement")


def memcpy(x, place):
    """`x` copied to `place` ('cpu' or 'gpu:N'), on the gradient path (`Tensor.cuda()`, `.cpu()`, `.to()`).

    Example:
        >>> from oar.ops.creation import memcpy
        >>> memcpy(oar.ones([2]), 'cpu').place
        Place(cpu)
    """
    return apply(MEMCPY, (x,), {"place": place})


ASSIGN = defop("assign", lambda x: x.copy(), infer=lambda m: [m[0]], grad=lambda g, out, x: g, amp="skip")


def assign(x, output=None):
    """Copies `x` (a Tensor, array or list) into a new tensor, or into `output`, which takes x's dtype and shape
    (as Paddle's).

    Example:
        >>> oar.assign(np.array([1, 2], dtype='int32')).numpy().tolist()
        [1, 2]
        >>> out = oar.zeros([3], dtype='float32')
        >>> _ = oar.assign(np.array([[1, 2]], dtype='int64'), out)
        >>> out.dtype, out.shape
        (paddle.int64, [1, 2])
    """
    from .common import operand
    if isinstance(x, (list, tuple, float)) and not any(hasattr(v, "_data") or hasattr(v, "block") for v in
                                                       (x if isinstance(x, (list, tuple)) else [x])):
        x = np.asarray(x)  # Paddle: Python floats become float64 here (to_tensor would make them float32)
    out = apply(ASSIGN, (operand(x),))
    if output is not None:
        output._inplace(out, keep_dtype=False) if not hasattr(output, "block") else output._assign_from(out)
        return output
    return out


def clone(x, name=None):
    """A copy of `x` that stays on the gradient path (``x.clone()``).

    Example:
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y = oar.clone(x)
        >>> y.stop_gradient, y.numpy().tolist()
        (False, [1.0, 2.0])
    """
    return assign(x)


lowerings({"full": constant, "assign_value": constant, "arange": constant, "linspace": constant, "eye": constant,
           "assign": same("Identity")})


__all__ = public_api(globals())
