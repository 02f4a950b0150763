"""Gather/scatter family: slice, strided_slice, gather, gather_nd, index_select, index_add, scatter, scatter_nd(_add),
take_along_axis, put_along_axis, one_hot, masked_fill.

Index inputs are never differentiable (`nondiff`). Each gather's gradient is the matching scatter-add, and each
scatter-add's gradient is the matching gather, so higher orders work too.
"""
import numpy as np

from ..core import dtype as D
from .common import broadcast_shapes, norm_axis1, operand, to_int_list
from ..core.tensor_methods import TensorMethods
from ..core.state import mode
from .manipulation import broadcast_to, reshape
from .math import cast, unbroadcast, zeros_like, where
from .reduction import cumsum
from ..kernels.indexing import (gather as _gather, gather_nd as _gather_nd, index_add as _index_add,
                                one_hot as _one_hot, put_along_axis as _put_along_axis, scatter as _scatter,
                                scatter_nd_add as _scatter_nd_add, take_along_axis as _take_along_axis)
from .registry import apply, bounds_output, defop, lowerings

_NO_ONNX = "ONNX scatter reductions need opset 16 (oar builds opset 13)"  # the onnx_reason of this family's ops


def _index_operand(index, op):
    index = operand(index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"{op}: index must be an integer tensor, got {index.dtype.name}")
    return index


# ---- slice / strided_slice (built on getitem, so they share its gradient and static form) ---------------------

def _slice_spec(ndim, axes, starts, ends, strides):
    spec = [["s", None, None, None] for _ in range(ndim)]
    for a, s, e, st in zip(axes, starts, ends, strides):
        spec[int(a) % ndim] = ["s", int(s), int(e), int(st)]
    return spec


def slice(input, axes, starts, ends):
    """``input[starts:ends]`` along each of `axes` (ends past the dim are clamped).

    Example:
        >>> oar.slice(oar.arange(10).reshape([2, 5]), axes=[1], starts=[1], ends=[3]).shape
        [2, 2]
    """
    from .subscript import getitem
    starts, ends = to_int_list(starts, "starts"), to_int_list(ends, "ends")
    return getitem(input, _slice_spec(input.ndim, axes, starts, ends, [1] * len(starts)), ())


def strided_slice(x, axes, starts, ends, strides, name=None):
    """``x[starts:ends:strides]`` along each of `axes`.

    Example:
        >>> x = oar.arange(10)
        >>> oar.strided_slice(x, axes=[0], starts=[1], ends=[8], strides=[3]).numpy().tolist()
        [1, 4, 7]
    """
    from .subscript import getitem
    starts, ends, strides = (to_int_list(v, n) for v, n in ((starts, "starts"), (ends, "ends"),
                                                            (strides, "strides")))
    return getitem(x, _slice_spec(x.ndim, axes, starts, ends, strides), ())


# ---- gather / index_select / index_add -----------------------------------------------------------------------

def _gather_infer(m, axis):
    xs, ishape = m[0][0], m[1][0]
    return [(list(xs[:axis]) + list(ishape) + list(xs[axis + 1:]), m[0][1])]


GATHER = defop("gather", _gather, inputs=("x", "index"), nondiff=(1,),
               infer=_gather_infer,
               grad=lambda g, out, x, index, axis: (apply(INDEX_ADD, (zeros_like(x), index, g), {"axis": axis}),
                                                    None))
INDEX_ADD = defop("index_add", _index_add, inputs=("x", "index", "value"), nondiff=(1,),
                  infer=lambda m, axis: [m[0]],
                  grad=lambda g, out, x, index, value, axis: (g, None, apply(GATHER, (g, index), {"axis": axis})),
                  onnx_reason=_NO_ONNX)


def gather(x, index, axis=None, name=None):
    """Rows (slices along `axis`, default 0) of `x` picked by the 1-D or 0-D integer `index`.

    Example:
        >>> oar.gather(oar.to_tensor([[1, 2], [3, 4], [5, 6]]), oar.to_tensor([2, 0])).numpy()
        array([[5, 6],
               [1, 2]])
    """
    index = _index_operand(index, "gather")
    a = norm_axis1(0 if axis is None else axis, x.ndim)
    return apply(GATHER, (x, index), {"axis": a})


def index_select(x, index, axis=0, name=None):
    """Slices of `x` along `axis` picked by the 1-D integer `index`.

    Example:
        >>> x = oar.to_tensor([[1, 2], [3, 4], [5, 6]])
        >>> oar.index_select(x, oar.to_tensor([2, 0])).numpy().tolist()
        [[5, 6], [1, 2]]
    """
    index = _index_operand(index, "index_select")
    if index.ndim != 1:
        raise ValueError(f"index_select: index must be 1-D, got shape {index.shape}")
    return gather(x, index, axis)


def index_add(x, index, axis, value, name=None):
    """Adds the slices of `value` into `x` at positions `index` along `axis` (repeated indices accumulate).

    Example:
        >>> oar.index_add(oar.zeros([3, 2]), oar.to_tensor([0, 2, 0]), 0, oar.ones([3, 2])).numpy().tolist()
        [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    """
    index = _index_operand(index, "index_add")
    value = operand(value, x)
    return apply(INDEX_ADD, (x, index, cast(value, x.dtype)), {"axis": norm_axis1(axis, x.ndim)})


# ---- gather_nd / scatter_nd_add ----------------------------------------------------------------------------------

def _gather_nd_infer(m):
    xs, ishape = m[0][0], m[1][0]
    k = ishape[-1]
    if k == -1:
        return [([-1] * (len(ishape) - 1 + len(xs) - 1), m[0][1])]
    return [(list(ishape[:-1]) + list(xs[k:]), m[0][1])]


GATHER_ND = defop("gather_nd", _gather_nd, inputs=("x", "index"), nondiff=(1,), infer=_gather_nd_infer,
                  grad=lambda g, out, x, index: (apply(SCATTER_ND_ADD, (zeros_like(x), index, g)), None))
SCATTER_ND_ADD = defop("scatter_nd_add", _scatter_nd_add, inputs=("x", "index", "updates"), nondiff=(1,),
                       infer=lambda m: [m[0]],
                       grad=lambda g, out, x, index, updates: (g, None, apply(GATHER_ND, (g, index))),
                       onnx_reason=_NO_ONNX)


def gather_nd(x, index, name=None):
    """Picks slices of `x` by the last dim of `index` (each row of `index` is a partial coordinate).

    Example:
        >>> oar.gather_nd(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([[1, 0]])).numpy()
        array([3])
    """
    index = _index_operand(index, "gather_nd")
    if index.ndim == 0 or index.shape[-1] > x.ndim:
        raise ValueError(f"gather_nd: index shape {index.shape} needs a last dim of at most x.ndim = {x.ndim} "
                         f"(x shape {x.shape})")
    return apply(GATHER_ND, (x, index))


def scatter_nd_add(x, index, updates, name=None):
    """Adds `updates` into `x` at the coordinates in the last dim of `index` (repeats accumulate).

    Example:
        >>> x = oar.zeros([2, 2])
        >>> oar.scatter_nd_add(x, oar.to_tensor([[0, 1], [0, 1]]), oar.to_tensor([1.0, 2.0])).numpy().tolist()
        [[0.0, 3.0], [0.0, 0.0]]
    """
    index = _index_operand(index, "scatter_nd_add")
    updates = cast(operand(updates, x), x.dtype)
    expected = list(index.shape[:-1]) + list(x.shape[index.shape[-1]:])
    if -1 not in expected and updates.shape != expected:
        raise ValueError(f"scatter_nd_add: updates must have shape {expected} for x shape {x.shape} and index "
                         f"shape {index.shape}, got {updates.shape}")
    return apply(SCATTER_ND_ADD, (x, index, updates))


def scatter_nd(index, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at the coordinates in `index`.

    Example:
        >>> oar.scatter_nd(oar.to_tensor([[1], [3], [1]]), oar.to_tensor([1.0, 2.0, 3.0]), [4]).numpy().tolist()
        [0.0, 4.0, 0.0, 2.0]
    """
    from .creation import zeros
    return scatter_nd_add(zeros(shape, updates.dtype), index, updates)


# ---- scatter (rows along axis 0) ---------------------------------------------------------------------------------

def _scatter_grad(g, out, x, index, updates, overwrite):
    gx = apply(SCATTER, (g, index, zeros_like(updates)), {"overwrite": True})
    return gx, None, apply(GATHER, (g, index), {"axis": 0})


SCATTER = defop("scatter", _scatter, inputs=("x", "index", "updates"), nondiff=(1,), infer=lambda m, overwrite: [m[0]],
                grad=_scatter_grad, onnx_reason=_NO_ONNX)


def scatter(x, index, updates, overwrite=True, name=None):
    """Writes the rows of `updates` into rows `index` of `x`; with ``overwrite=False`` repeated indices add up
    (the original rows are replaced, not added to).

    Example:
        >>> oar.scatter(oar.zeros([3, 2]), oar.to_tensor([2]), oar.ones([1, 2])).numpy()[2]
        array([1., 1.], dtype=float32)
    """
    index = _index_operand(index, "scatter")
    updates = cast(operand(updates, x), x.dtype)
    return apply(SCATTER, (x, index, updates), {"overwrite": bool(overwrite)})


# ---- take_along_axis / put_along_axis --------------------------------------------------------------------------

def _put_grad(g, out, arr, indices, values, axis, reduce, include_self=True):
    if reduce not in ("assign", "add"):
        raise NotImplementedError(f"put_along_axis: no gradient for reduce={reduce!r}")
    ga = g if reduce == "add" and include_self else apply(PUT_ALONG_AXIS, (g, indices, zeros_like(indices, g.dtype)),
                                         {"axis": axis, "reduce": "assign"})
    gv = apply(TAKE_ALONG_AXIS, (g, indices), {"axis": axis})
    return ga, None, unbroadcast(gv, values)


TAKE_ALONG_AXIS = defop(
    "take_along_axis", _take_along_axis, inputs=("arr", "indices"),
    nondiff=(1,), infer=lambda m, axis: [(m[1][0], m[0][1])],
    grad=lambda g, out, arr, indices, axis: (apply(PUT_ALONG_AXIS, (zeros_like(arr), indices, g),
                                                   {"axis": axis, "reduce": "add"}), None))
PUT_ALONG_AXIS = defop("put_along_axis", _put_along_axis, inputs=("arr", "indices", "values"), nondiff=(1,),
                       infer=lambda m, axis, reduce, include_self=True: [m[0]], grad=_put_grad,
                       onnx_reason=_NO_ONNX)


def _broadcast_along(arr, indices, axis):
    """Paddle broadcasts `arr` and `indices` against each other in every dim but `axis`."""
    from .manipulation import broadcast_to
    if arr.ndim != indices.ndim:
        raise ValueError(f"take/put_along_axis: arr (shape {arr.shape}) and indices (shape {indices.shape}) "
                         "must have the same number of dims")
    a, i = list(arr.shape), list(indices.shape)
    a2, i2 = a[:axis] + a[axis + 1:], i[:axis] + i[axis + 1:]
    if a2 == i2 and -1 not in a2:
        return arr, indices
    if -1 in a2 or -1 in i2:  # sizes known at run time: broadcast by adding zeros shaped like the other's slice
        from .subscript import getitem
        first = [["s", None, None, None]] * axis + [["s", 0, 1, None]]
        za, zi = zeros_like(getitem(arr, first, ()), indices.dtype), zeros_like(getitem(indices, first, ()), arr.dtype)
        return arr + zi, indices + za
    b = broadcast_shapes(a2, i2)
    arr = broadcast_to(arr, b[:axis] + [a[axis]] + b[axis:]) if a2 != b else arr
    indices = broadcast_to(indices, b[:axis] + [i[axis]] + b[axis:]) if i2 != b else indices
    return arr, indices


def take_along_axis(arr, indices, axis, broadcast=True):
    """Picks ``arr[..., indices[...], ...]`` along `axis` (as `numpy.take_along_axis`).

    Example:
        >>> x = oar.to_tensor([[4.0, 1.0], [2.0, 3.0]])
        >>> oar.take_along_axis(x, x.argmax(axis=1, keepdim=True), axis=1).numpy()
        array([[4.],
               [3.]], dtype=float32)
    """
    indices = _index_operand(indices, "take_along_axis")
    axis = norm_axis1(axis, arr.ndim)
    if broadcast:
        arr, indices = _broadcast_along(arr, indices, axis)
    return apply(TAKE_ALONG_AXIS, (arr, indices), {"axis": axis})


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """Writes `values` into a copy of `arr` at `indices` along `axis`; `reduce` is 'assign', 'add', 'mul' (or
    'multiply'), 'mean', 'amax' or 'amin', combining the values sent to one place together with the value already
    there, or without it when `include_self` is False.

    Example:
        >>> x = oar.zeros([2, 3])
        >>> oar.put_along_axis(x, oar.to_tensor([[1], [2]]), 5.0, axis=1).numpy().tolist()
        [[0.0, 5.0, 0.0], [0.0, 0.0, 5.0]]
        >>> x = oar.ones([1, 3])
        >>> oar.put_along_axis(x, oar.to_tensor([[0, 0]]), 2.0, 1, 'add', include_self=False).numpy().tolist()
        [[4.0, 1.0, 1.0]]
    """
    indices = _index_operand(indices, "put_along_axis")
    axis = norm_axis1(axis, arr.ndim)
    reduce = {"multiply": "mul"}.get(reduce, reduce)
    if reduce not in ("assign", "add", "mul", "mean", "amax", "amin"):
        raise ValueError(f"put_along_axis: reduce must be 'assign', 'add', 'mul', 'mean', 'amax' or 'amin', got "
                         f"{reduce!r}")
    if broadcast:
        arr, indices = _broadcast_along(arr, indices, axis)
    values = cast(operand(values, arr), arr.dtype)
    return apply(PUT_ALONG_AXIS, (arr, indices, values), {"axis": axis, "reduce": reduce,
                                                          "include_self": bool(include_self)})


# ---- one_hot / masked_fill ---------------------------------------------------------------------------------------

ONE_HOT = defop("one_hot", _one_hot, infer=lambda m, num_classes: [(list(m[0][0]) + [num_classes], D.float32)],
                differentiable=False)
bounds_output(ONE_HOT)


def one_hot(x, num_classes, name=None):
    """float32 one-hot encoding of integer labels, with a new last dim of size `num_classes`.

    Example:
        >>> oar.one_hot(oar.to_tensor([0, 2]), num_classes=3).numpy().tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    x = _index_operand(x, "one_hot")
    return apply(ONE_HOT, (x,), {"num_classes": int(num_classes)})


def masked_fill(x, mask, value, name=None):
    """`x` with `value` wherever the bool `mask` (broadcast against x) is True. The result keeps `x`'s dtype, as
    Paddle's: a Python number is converted to it (2.7 fills an integer tensor with 2), a tensor `value` must have it.

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> oar.masked_fill(x, x > 2.0, 0.0).numpy().tolist()
        [[1.0, 2.0], [0.0, 0.0]]
    """
    if isinstance(value, TensorMethods) and value.dtype is not x.dtype:
        raise TypeError(f"masked_fill: value has dtype {value.dtype.name}, x has {x.dtype.name}; cast the value first")
    value = operand(value, x)
    return where(operand(mask), value if value.dtype is x.dtype else cast(value, x.dtype), x)


def index_fill(x, index, axis, value, name=None):
    """`x` with every slice along `axis` that `index` picks set to `value` (a Python number, converted to `x`'s
    dtype, or a 0-D tensor of that dtype). `index` is an integer tensor (flattened; negative values count from the
    end); a value out of range raises IndexError (Paddle 3.3.1 reads past its buffer).

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> oar.index_fill(x, oar.to_tensor([0, -1]), 0, -1.0).numpy().tolist()
        [[-1.0, -1.0], [3.0, 4.0], [-1.0, -1.0]]
    """
    index = reshape(_index_operand(index, "index_fill"), [-1])
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"index_fill: axis must be in [-{x.ndim}, {x.ndim}) for x of shape {list(x.shape)}, "
                         f"got {axis}" if x.ndim else "index_fill: x must have at least one dimension, got 0-D")
    if isinstance(value, TensorMethods) and (value.ndim != 0 or value.dtype is not x.dtype):
        raise ValueError(f"index_fill: value must be a number or a 0-D {x.dtype.name} tensor, got "
                         f"{value.dtype.name}{list(value.shape)}")
    axis = norm_axis1(axis, x.ndim)
    n = x.shape[axis]
    if not mode().static and n >= 0 and index.shape[0]:
        picked = index.numpy()
        if picked.min() < -n or picked.max() >= n:
            raise IndexError(f"index_fill: index values must be in [{-n}, {n}) for axis {axis} of x of shape "
                             f"{list(x.shape)}, got min {picked.min()} max {picked.max()}")
    # the picked slices as a mask of x's shape: ones added at `index` into zeros (gather checks the range)
    zeros = cast(zeros_like(x), D.int32)
    hits = apply(INDEX_ADD, (zeros, index, gather(zeros, index, axis) + 1), {"axis": axis})
    value = operand(value, x)
    return where(hits > 0, value if value.dtype is x.dtype else cast(value, x.dtype), x)


def masked_scatter(x, mask, value, name=None):
    """`x` (broadcast with the bool `mask`) with the elements where `mask` is True replaced, in row-major order, by
    the first elements of `value` (a tensor of `x`'s dtype, read flattened). Too few elements in `value` raise
    ValueError (Paddle 3.3.1 reads past its buffer).

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> oar.masked_scatter(x, x > 1.5, oar.to_tensor([10.0, 20.0, 30.0, 40.0])).numpy().tolist()
        [[1.0, 10.0], [20.0, 30.0]]
    """
    mask = operand(mask)
    if mask.dtype is not D.bool_:
        raise TypeError(f"masked_scatter: mask must be a bool tensor, got {mask.dtype.name}")
    if not isinstance(value, TensorMethods) or value.dtype is not x.dtype:
        got = value.dtype.name if isinstance(value, TensorMethods) else type(value).__name__
        raise TypeError(f"masked_scatter: value must be a tensor of x's dtype {x.dtype.name}, got {got}")
    shape = broadcast_shapes(x.shape, mask.shape)
    if list(x.shape) != list(shape):  # (only then: a broadcast view of x would pin it for masked_scatter_)
        x = broadcast_to(x, shape)
    mask = broadcast_to(mask, shape)
    value = reshape(value, [-1])
    flat = reshape(cast(mask, D.int64), [-1])
    if not mode().static:
        need, have = int(flat.numpy().sum()), value.shape[0]
        if need > have:
            raise ValueError(f"masked_scatter: mask selects {need} elements but value has only {have}")
        if have == 0:  # nothing selected, nothing to read
            return where(mask, x, x)
    # the k-th True element of the mask takes value[k]; the other positions read value[0], which `where` drops
    taken = reshape(gather(value, (cumsum(flat) - 1) * flat), shape)
    return where(mask, taken, x)


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_one_hot(ctx, op):
    depth = ctx.const(np.asarray(op.attrs["num_classes"], np.int64))
    ctx.node("OneHot", [ctx.inp(op, "x"), depth, ctx.const(np.asarray([0, 1], np.float32))], [ctx.out(op)], axis=-1)


lowerings({
    "gather": lambda ctx, op: ctx.node("Gather", [ctx.inp(op, "x"), ctx.inp(op, "index")], [ctx.out(op)],
                                       axis=int(op.attrs["axis"])),
    "gather_nd": lambda ctx, op: ctx.node("GatherND", [ctx.inp(op, "x"), ctx.inp(op, "index")], [ctx.out(op)]),
    "take_along_axis": lambda ctx, op: ctx.node("GatherElements", [ctx.inp(op, "arr"), ctx.inp(op, "indices")],
                                                [ctx.out(op)], axis=int(op.attrs["axis"])),
    "one_hot": _onnx_one_hot,
})


__all__ = ["slice", "strided_slice", "gather", "index_select", "index_add", "gather_nd", "scatter_nd_add",
           "scatter_nd", "scatter", "take_along_axis", "put_along_axis", "one_hot", "masked_fill", "index_fill",
           "masked_scatter"]
