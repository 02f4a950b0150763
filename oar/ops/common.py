"""Helpers shared by the op families: operand conversion, type promotion, axis handling, shape rules."""
import builtins

import numpy as np

from ..core import dtype as D
from ..core.devices import place_array
from ..core.state import STATE, mode
from ..kernels.reduction import axis_tuple  # noqa: F401  (re-exported for the op families)
from ..core.tensor_methods import TensorMethods
from . import registry
from .registry import apply

EMPTY = {}


def public_api(namespace, internal=()):
    """The `__all__` of an op family module: its lowercase functions that are public API (what `import oar`
    exposes as ``oar.<name>``); op definitions, imported helpers and the names in `internal` stay out."""
    mod = namespace["__name__"]
    return sorted(n for n, v in namespace.items()
                  if n[:1].islower() and callable(v) and getattr(v, "__module__", None) == mod and n not in internal)


def not_differentiable_again(op_name, what, hint=""):
    """The gradient rule of a gradient op whose kernel cannot be differentiated again: it raises, naming the op,
    so a second-order gradient through it fails clearly instead of coming out zero (or "not used")."""
    def rule(*args, **attrs):
        raise NotImplementedError(f"second-order gradients are not supported through op {op_name!r} ({what})"
                                  + (f": {hint}" if hint else ""))
    return rule


def is_tensorlike(x):
    return isinstance(x, TensorMethods)


def const(value, dtype):
    """A constant operand: a 0-D/array Tensor in eager mode (an array on the current device, `oar.set_device`; a
    0-D value stays on the host and joins its op's device), a `full`/`assign_value` op in static mode."""
    if mode().static:
        from .creation import _static_const
        return _static_const(value, dtype)
    a = np.asarray(value, dtype=D.np_dtype(dtype))
    if a.ndim and STATE.device != "cpu":
        a = place_array(a, STATE.device)
    return registry._wrap(a)


def operand(v, like=None):
    """Turns a Python scalar, list or array into a tensor operand; `like` decides a scalar's dtype."""
    if isinstance(v, TensorMethods):
        return v
    if isinstance(v, (bool, int, float, complex, np.number, np.bool_)) and like is not None:
        if isinstance(v, (np.number, np.bool_)):
            v = v.item()
        return const(v, D.scalar_dtype(v, like.dtype))
    if isinstance(v, np.ndarray) or isinstance(v, (list, tuple, bool, int, float, np.number)):
        a = np.asarray(v)
        if a.dtype == np.float64 and not isinstance(v, np.ndarray):
            a = a.astype(D.default_float().np)
        return const(a, D.convert_dtype(a.dtype))
    raise TypeError(f"expected a Tensor or a number, got {type(v).__name__}")


def binary(op, x, y, attrs=EMPTY):
    """Applies a broadcasting binary op after converting scalars and promoting dtypes."""
    if not isinstance(x, TensorMethods):
        x = operand(x, y if isinstance(y, TensorMethods) else None)
    if not isinstance(y, TensorMethods):
        y = operand(y, x)
    dx, dy = x.dtype, y.dtype
    if dx is not dy and _weak(x) != _weak(y):  # a value that stands for a Python number takes the other's dtype
        if _weak(x):
            x, dx = _as_scalar_of(x, y)
        else:
            y, dy = _as_scalar_of(y, x)
    if dx is not dy and not (mode().amp is not None and dx.kind == "f" and dy.kind == "f"):  # amp decides floats
        t = D.promote(dx, dy)
        if dx is not t:
            x = cast(x, t)
        if dy is not t:
            y = cast(y, t)
    return apply(op, (x, y), attrs)


_SAMPLE = {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}


def _weak(v):
    """True for a static value that stands for a Python number (a loop counter over `range(tensor)`, the result of
    `int(x)` or `x.item()` in a program): in arithmetic it behaves like the number would (Paddle's scalar rules)."""
    attrs = getattr(v, "attrs", None)
    return bool(attrs and attrs.get("weak"))


def _as_scalar_of(weak, other):
    t = D.scalar_dtype(_SAMPLE[weak.dtype.kind], other.dtype)
    return (weak if weak.dtype is t else cast(weak, t)), t


def cast(x, dtype):
    from .math import cast as _cast
    return _cast(x, dtype)


def norm_axis(axis, ndim):
    """Axis argument (None, int, list, tuple, 0-D tensor) to a sorted tuple of non-negative ints, or None."""
    if axis is None:
        return None
    if isinstance(axis, TensorMethods):
        axis = axis.tolist() if isinstance(axis, registry.Tensor) else axis
    if isinstance(axis, (list, tuple)):
        if len(axis) == 0:
            return None
        out = tuple(sorted(norm_axis1(a, ndim) for a in axis))
    else:
        out = (norm_axis1(axis, ndim),)
    return None if ndim == 0 else out  # a 0-D tensor's only "axis" (0 or -1) is all of it, as Paddle's


def norm_axis1(axis, ndim):
    """One axis as a non-negative int (0 for a 0-D tensor, whose axis may be given as 0 or -1)."""
    a = int(axis)
    if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1):
        raise ValueError(f"axis {a} is out of range for a tensor with {ndim} dims")
    return a % ndim if ndim else 0


def to_int_list(v, what="shape"):
    """A list of ints from a list/tuple of ints and one-element tensors (eager), or a 1-D int tensor."""
    if isinstance(v, registry.Tensor):
        return [int(a) for a in v.numpy().reshape(-1)]  # numpy(): a trace records the value it baked in
    if isinstance(v, (list, tuple)):
        return [int(a) for a in v]
    if isinstance(v, (int, np.integer)):
        return [int(v)]
    raise TypeError(f"{what} must be a list of ints or a Tensor, got {type(v).__name__}")


# ---- shape rules (infer_meta) ---------------------------------------------------------------------------------
def infer_same(metas, **attrs):
    """Output has the first input's shape and dtype."""
    return [metas[0]]


def infer_bool(metas, **attrs):
    return [(metas[0][0], D.bool_)]


def broadcast_shapes(*shapes):
    """Broadcasts shapes with -1 for unknown dims (an unknown dim against 1 stays unknown)."""
    nd = max(len(s) for s in shapes)
    out = []
    for i in range(nd):
        dims = [s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0]
        known = {d for d in dims if d != 1 and d != -1}
        if len(known) > 1:
            raise ValueError(f"shapes {[list(s) for s in shapes]} cannot be broadcast together")
        if known:
            out.append(known.pop())
        elif -1 in dims:
            out.append(-1)
        else:
            out.append(1)
    return out


def infer_broadcast(metas, **attrs):
    return [(broadcast_shapes(*[m[0] for m in metas]), metas[0][1])]


def infer_broadcast_bool(metas, **attrs):
    return [(broadcast_shapes(*[m[0] for m in metas]), D.bool_)]
