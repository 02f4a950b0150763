"""Ops whose shape comes from a tensor at run time: `reshape_dynamic`, `full_dynamic`, `arange_dynamic`, and
`broadcast_dynamic` (`expand` / `broadcast_to` to a shape with run-time entries, composed from them).

`oar.reshape(x, [batch * 3])` with `batch` a static Variable (an unknown dim of an InputSpec) lands here; so do
`oar.full(shape_tensor, v)` and `oar.arange(n)` with a static bound. Known entries of the shape are kept in the
`static_shape` attribute (-1 for run-time ones) so shape inference stays as precise as it can.

Example:
    >>> y = oar.reshape(x, [oar.shape(x)[0] * 3])
"""
import numpy as np

from ..core import dtype as D
from ..core.state import STATE
from ..kernels.creation import (arange_dynamic as _arange_dyn, arange_dynamic_count as _arange_dynamic_count,
                                full_dynamic as _full_dynamic, full_dynamic_count as _full_dynamic_count)
from ..kernels.manipulation import reshape_dynamic as _reshape_dyn
from .registry import apply, bounds_output, defop



def _int64(ctx, op, slot):
    name, (_, dt) = ctx.inp(op, slot), ctx.in_meta(op, slot)
    return name if dt.name == "int64" else ctx.cast(name, "int64")


def _onnx_reshape_dynamic(ctx, op):
    # Paddle's 0 (copy the input dim) and one -1 (inferred) mean the same in ONNX Reshape (allowzero=0)
    ctx.node("Reshape", [ctx.inp(op, "x"), _int64(ctx, op, "shape")], [ctx.out(op)])


def _onnx_full_dynamic(ctx, op):
    dt = D.convert_dtype(op.attrs["dtype"])
    ctx.node("ConstantOfShape", [_int64(ctx, op, "shape")], [ctx.out(op)],
             value=ctx.tensor(D.np_dtype(dt).type(op.attrs["value"]).item(), dt))


def _onnx_arange_dynamic(ctx, op):
    """ONNX Range on 0-D bounds cast to the output dtype; bounds that are floats for an integer output are refused
    (NumPy steps them in floats before truncating, Range would truncate first)."""
    dt = D.convert_dtype(op.attrs["dtype"])
    bounds = []
    for slot in ("start", "end", "step"):
        name, (_, in_dt) = ctx.inp(op, slot), ctx.in_meta(op, slot)
        if dt.kind in "iu" and in_dt.kind == "f":
            raise ctx.block_op_error(op, "arange with float bounds and an integer dtype has no exact ONNX lowering")
        if in_dt.name != dt.name:
            name = ctx.cast(name, dt)
        bounds.append(ctx.node("Reshape", [name, ctx.ints([])]))
    ctx.node("Range", bounds, [ctx.out(op)])


def _shape_values(shape):
    """(one shape tensor, or a list of ints and tensors; the static shape with -1 for run-time entries, empty
    when even its length is unknown)."""
    if hasattr(shape, "dtype"):  # one shape tensor
        n = shape.shape[0] if shape.shape and shape.shape[0] >= 0 else 0
        return shape, [-1] * n
    items = list(shape)
    return items, [int(s) if not hasattr(s, "dtype") else -1 for s in items]


def shape_tensor(items):
    """One int64 shape tensor from a list of ints and (0-D or 1-element) tensors."""
    from .common import const
    from .manipulation import concat, reshape
    from .math import cast
    parts = []
    for s in items:
        if hasattr(s, "dtype"):
            s = cast(s, "int64") if s.dtype.name != "int64" else s
            parts.append(reshape(s, [1]) if s.ndim == 0 or s.shape != [1] else s)
        else:
            parts.append(const(np.asarray([int(s)], np.int64), D.int64))
    return concat(parts, 0) if len(parts) > 1 else parts[0]


def _eager_ints(items):
    return [int(np.asarray(s._data).reshape(-1)[0]) if hasattr(s, "_data") else int(s) for s in items]


def _reshape_dyn_infer(m, static_shape):
    ins = m[0][0]
    out = [ins[i] if s == 0 and i < len(ins) else s for i, s in enumerate(static_shape)]
    if len(static_shape) == 0:
        out = [-1] * (m[1][0][0] if m[1][0] and m[1][0][0] >= 0 else 1)
    return [(out, m[0][1])]


RESHAPE_DYNAMIC = defop("reshape_dynamic", _reshape_dyn, inputs=("x", "shape"), nondiff=(1,),
                        infer=_reshape_dyn_infer, grad=lambda g, out, x, shape, static_shape: (_reshape_as(g, x), None),
                        onnx=_onnx_reshape_dynamic)
RESHAPE_DYNAMIC.set(view=True)  # Paddle: a view of its input (shares memory)


def _reshape_as(g, x):
    from .manipulation import reshape_as
    return reshape_as(g, x)


def reshape_dynamic(x, shape):
    """`reshape` with run-time entries (tensors) in `shape`."""
    items, static = _shape_values(shape)
    if not STATE.static and not hasattr(items, "dtype"):
        from .manipulation import reshape
        return reshape(x, _eager_ints(items))
    st = items if hasattr(items, "dtype") else shape_tensor(items)
    return apply(RESHAPE_DYNAMIC, (x, st), {"static_shape": static})


FULL_DYNAMIC = defop("full_dynamic", _full_dynamic, inputs=("shape",),
    infer=lambda m, value, dtype, static_shape: [(list(static_shape) if static_shape else
                                                  [-1] * max(m[0][0][0], 0), D.convert_dtype(dtype))],
                     differentiable=False, onnx=_onnx_full_dynamic)


def full_dynamic(shape, fill_value, dtype):
    """`full` with run-time entries in `shape`."""
    items, static = _shape_values(shape)
    dt = D.convert_dtype(dtype)
    if not STATE.static and not hasattr(items, "dtype"):
        from .creation import full
        return full(_eager_ints(items), fill_value, dt)
    st = items if hasattr(items, "dtype") else shape_tensor(items)
    return apply(FULL_DYNAMIC, (st,), {"value": fill_value, "dtype": dt.name, "static_shape": static})


ARANGE_DYNAMIC = defop("arange_dynamic", _arange_dyn, inputs=("start", "end", "step"),
                       infer=lambda m, dtype: [([-1], D.convert_dtype(dtype))],
                       differentiable=False, onnx=_onnx_arange_dynamic)
bounds_output(FULL_DYNAMIC, elements=_full_dynamic_count)
bounds_output(ARANGE_DYNAMIC, elements=_arange_dynamic_count)


def arange_dynamic(start, end, step, dtype=None):
    """`arange` with run-time bounds."""
    from .common import operand
    if dtype is None:
        dtype = D.int64 if all(not hasattr(v, "dtype") and isinstance(v, (int, np.integer)) or
                               hasattr(v, "dtype") and v.dtype.kind in "iu" for v in (start, end, step)) \
            else D.default_float()
    dt = D.convert_dtype(dtype)
    vals = [operand(v) if not hasattr(v, "dtype") else v for v in (start, end, step)]
    if not STATE.static:
        from .creation import arange
        return arange(*[np.asarray(v._data).reshape(()).item() for v in vals], dtype=dt)
    return apply(ARANGE_DYNAMIC, tuple(vals), {"dtype": dt.name})


def broadcast_dynamic(x, shape):
    """`broadcast_to(x, shape)` in a program, `shape` a list holding run-time entries (tensors; -1 keeps x's
    dim): `x` plus zeros of that shape, so the gradient is add's (summed back to x's shape)."""
    from .manipulation import shape as shape_of
    from .math import add, cast
    items = list(shape)
    lead = len(items) - x.ndim
    if lead < 0:
        raise ValueError(f"broadcast_to: the target shape has {len(items)} dims, fewer than x's {x.ndim}")
    for i, s in enumerate(items):
        if not hasattr(s, "dtype") and int(s) == -1:
            if i < lead:
                raise ValueError(f"broadcast_to: -1 at dim {i} of the target shape, which x does not have")
            d = x.shape[i - lead]
            items[i] = d if d >= 0 else shape_of(x)[i - lead]
    dt = x.dtype if x.dtype.kind != "b" else D.int32
    out = add(x if dt is x.dtype else cast(x, dt), full_dynamic(items, 0, dt))
    return out if dt is x.dtype else cast(out, x.dtype)
