"""Reshaping, splitting and picking ops of Paddle's top level that compose from the core ones: tensor_split and
h/v/dsplit, atleast_1d/2d/3d and h/v/d/column/row_stack, unflatten, view/view_as, unfold (sliding windows),
meshgrid, broadcast_tensors, crop, multiplex, index_sample, index_put, take, shard_index, unique_consecutive,
logspace, rank, is_empty, cartesian_prod, combinations.

Composed ops get gradients, static mode and export from their parts; unique_consecutive is the one kernel here."""
import itertools
import math

import numpy as np

from ..core import dtype as D
from ..core.tensor_methods import TensorMethods
from .common import broadcast_shapes, norm_axis1, operand, public_api, to_int_list
from .creation import assign, full, linspace
from .indexing import gather, scatter_nd_add, take_along_axis
from .manipulation import broadcast_to, concat, flatten, moveaxis, reshape, stack
from .math import cast, pow, remainder, floor_divide, where
from ..kernels.indexing import strided_index as _strided_index, window_index as _window_index
from ..kernels.manipulation import view_dtype as _view_dtype
from ..kernels.search import unique_consecutive as _unique_consecutive
from .registry import apply, defop
from .subscript import tensor_getitem, setitem


def _take_range(x, axis, start, stop):
    return tensor_getitem(x, tuple([slice(None)] * axis + [slice(start, stop)]))


def tensor_split(x, num_or_indices, axis=0, name=None):
    """Splits into `num_or_indices` nearly equal parts (the first ones one longer), or at the given indices.

    Example:
        >>> [p.shape for p in oar.tensor_split(oar.arange(7), 3)]
        [[3], [2], [2]]
        >>> [p.numpy().tolist() for p in oar.tensor_split(oar.arange(6), [1, 4])]
        [[0], [1, 2, 3], [4, 5]]
    """
    axis = norm_axis1(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(num_or_indices, (int, np.integer)):
        k = int(num_or_indices)
        if k <= 0:
            raise ValueError(f"tensor_split: the number of parts must be positive, got {k}")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        cuts = [0] + list(itertools.accumulate(sizes))
    else:
        # a negative index counts from the end, as in Python slicing: hsplit(x, [2, -1]) cuts at 2 and n - 1
        cuts = [0] + [c + n if c < 0 else c for c in to_int_list(num_or_indices, "indices")] + [n]
    # copies, as Paddle's tensor_split (unlike a subscript, which is a view)
    return [assign(_take_range(x, axis, a, max(a, b))) for a, b in zip(cuts[:-1], cuts[1:])]


def _split_along(x, num_or_indices, axis, what, min_ndim):
    if x.ndim < min_ndim:
        raise ValueError(f"{what}: the input needs at least {min_ndim} dims, got shape {x.shape}")
    return tensor_split(x, num_or_indices, axis)


def hsplit(x, num_or_indices, name=None):
    """`tensor_split` along dim 1 (dim 0 for 1-D tensors).

    Example:
        >>> [p.shape for p in oar.hsplit(oar.ones([2, 4]), 2)]
        [[2, 2], [2, 2]]
    """
    return _split_along(x, num_or_indices, 1 if x.ndim > 1 else 0, "hsplit", 1)


def _atleast(ndim, inputs):
    def one(x):
        x = x if hasattr(x, "ndim") else operand(x)
        if x.ndim >= ndim:
            return x
        if ndim == 3 and x.ndim >= 1:  # [n] -> [1, n, 1], [m, n] -> [m, n, 1] (NumPy's rule)
            return reshape(x, ([1] if x.ndim == 1 else []) + list(x.shape) + [1])
        return reshape(x, [1] * (ndim - x.ndim) + list(x.shape))
    outs = [one(x) for x in inputs]
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dim (a 0-D tensor becomes shape [1]); one input gives a tensor, several a list.

    Example:
        >>> oar.atleast_1d(oar.to_tensor(3.0)).shape
        [1]
    """
    return _atleast(1, inputs)


def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dims (shape [n] becomes [1, n]).

    Example:
        >>> oar.atleast_2d(oar.to_tensor([1.0, 2.0])).shape
        [1, 2]
    """
    return _atleast(2, inputs)


def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dims ([n] becomes [1, n, 1], [m, n] becomes [m, n, 1]).

    Example:
        >>> oar.atleast_3d(oar.ones([2, 3])).shape
        [2, 3, 1]
    """
    return _atleast(3, inputs)


def _as_list(x, what):
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{what}: x must be a non-empty list or tuple of tensors, got {type(x).__name__}")
    return [_atleast(1, (t,)) for t in x]


def hstack(x, name=None):
    """Concatenates along dim 1, or dim 0 when the inputs are 1-D (0-D inputs count as 1-D).

    Example:
        >>> oar.hstack([oar.to_tensor([1, 2]), oar.to_tensor([3])]).numpy().tolist()
        [1, 2, 3]
    """
    x = _as_list(x, "hstack")
    return concat(x, axis=0 if x[0].ndim == 1 else 1)


def vstack(x, name=None):
    """Concatenates along dim 0 after making every input at least 2-D (rows).

    Example:
        >>> oar.vstack([oar.to_tensor([1, 2]), oar.to_tensor([3, 4])]).numpy().tolist()
        [[1, 2], [3, 4]]
    """
    _as_list(x, "vstack")
    return concat([atleast_2d(t) for t in x], axis=0)


row_stack = vstack


def dstack(x, name=None):
    """Concatenates along dim 2 after making every input at least 3-D.

    Example:
        >>> oar.dstack([oar.ones([2]), oar.ones([2])]).shape
        [1, 2, 2]
    """
    _as_list(x, "dstack")
    return concat([atleast_3d(t) for t in x], axis=2)


def column_stack(x, name=None):
    """Stacks 1-D inputs as columns ([n] becomes [n, 1]) beside 2-D ones, along dim 1.

    Example:
        >>> oar.column_stack([oar.to_tensor([1, 2]), oar.to_tensor([3, 4])]).numpy().tolist()
        [[1, 3], [2, 4]]
    """
    cols = [reshape(t, [-1, 1]) if t.ndim == 1 else atleast_2d(t) for t in _as_list(x, "column_stack")]
    return concat(cols, axis=1)


def vsplit(x, num_or_indices, name=None):
    """`tensor_split` along dim 0 (needs 2 or more dims).

    Example:
        >>> [p.shape for p in oar.vsplit(oar.ones([4, 2]), 2)]
        [[2, 2], [2, 2]]
    """
    return _split_along(x, num_or_indices, 0, "vsplit", 2)


def dsplit(x, num_or_indices, name=None):
    """`tensor_split` along dim 2 (needs 3 or more dims).

    Example:
        >>> [p.shape for p in oar.dsplit(oar.ones([1, 2, 4]), [1])]
        [[1, 2, 1], [1, 2, 3]]
    """
    return _split_along(x, num_or_indices, 2, "dsplit", 3)


def unflatten(x, axis, shape, name=None):
    """Expands dim `axis` into `shape` (one entry may be -1).

    Example:
        >>> oar.unflatten(oar.ones([2, 6]), 1, [2, 3]).shape
        [2, 2, 3]
    """
    axis = norm_axis1(axis, x.ndim)
    shape = to_int_list(shape)
    return reshape(x, x.shape[:axis] + shape + x.shape[axis + 1:])


VIEW_DTYPE = defop("view_dtype", _view_dtype,
                   infer=lambda m, dtype: [(list(m[0][0][:-1]) + [m[0][0][-1] * m[0][1].np.itemsize //
                                            D.convert_dtype(dtype).np.itemsize], D.convert_dtype(dtype))],
                   differentiable=False, onnx_reason="bit reinterpretation: no ONNX operator")
VIEW_DTYPE.set(view=True)  # Paddle: a view of its input (shares memory)


def view(x, shape_or_dtype, name=None):
    """`x` with a new shape (a list) or its bytes read as another dtype.

    Example:
        >>> oar.view(oar.ones([2, 3]), [3, 2]).shape
        [3, 2]
        >>> oar.view(oar.ones([2], 'float32'), 'int32').numpy().tolist()
        [1065353216, 1065353216]
    """
    if isinstance(shape_or_dtype, (list, tuple)) or hasattr(shape_or_dtype, "ndim"):
        return reshape(x, shape_or_dtype)
    return apply(VIEW_DTYPE, (x,), {"dtype": D.convert_dtype(shape_or_dtype).name})


def view_as(x, other, name=None):
    """`x` reshaped to the shape of `other`.

    Example:
        >>> oar.view_as(oar.ones([6]), oar.zeros([2, 3])).shape
        [2, 3]
    """
    return reshape(x, other.shape)


def unfold(x, axis, size, step, name=None):
    """Sliding windows of `size` elements every `step` along `axis`; the window becomes a new last dim.

    Example:
        >>> oar.unfold(oar.arange(5.0), 0, 2, 2).numpy().tolist()
        [[0.0, 1.0], [2.0, 3.0]]
    """
    axis = norm_axis1(axis, x.ndim)
    n = x.shape[axis] if x.ndim else 1
    if size <= 0 or step <= 0 or size > n:
        raise ValueError(f"unfold: need 0 < size <= {n} and step > 0, got size={size}, step={step}")
    windows = (n - size) // step + 1
    picked = gather(x, operand(_window_index(windows, size, step)), axis=axis)
    shaped = reshape(picked, x.shape[:axis] + [windows, size] + x.shape[axis + 1:])
    return moveaxis(shaped, axis + 1, -1)


def as_strided(x, shape, stride, offset=0, name=None):
    """The elements of `x` (read in flat order) at ``offset + sum(i_k * stride[k])`` for each index i of `shape`;
    strides count elements. Unlike Paddle's, the result is a copy, not a view sharing memory with `x`.

    Example:
        >>> oar.as_strided(oar.arange(6.0), [2, 3], [1, 1]).numpy().tolist()
        [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]
    """
    shape, stride = to_int_list(shape), to_int_list(stride, "stride")
    if len(shape) != len(stride):
        raise ValueError(f"as_strided: shape {shape} and stride {stride} need the same length")
    n = math.prod(x.shape)
    idx = _strided_index(shape, stride, offset)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"as_strided: shape {shape}, stride {stride}, offset {offset} reach outside the {n} "
                         f"elements of x")
    flat = flatten(x) if x.ndim != 1 else x
    return reshape(gather(flat, operand(idx.reshape(-1))), shape)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors ('ij' indexing): the i-th output varies along dim i.

    Example:
        >>> a, b = oar.meshgrid(oar.to_tensor([1, 2]), oar.to_tensor([3, 4, 5]))
        >>> a.shape, b.numpy().tolist()
        ([2, 3], [[3, 4, 5], [3, 4, 5]])
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    shape = [t.shape[0] if t.ndim else 1 for t in args]
    out = []
    for i, t in enumerate(args):
        view_shape = [1] * len(args)
        view_shape[i] = -1  # not shape[i]: a 0 in reshape's shape means "keep this dim" (an empty input)
        out.append(broadcast_to(reshape(t, view_shape), shape))
    return out


def cartesian_prod(x, name=None):
    """The Cartesian product of a list of 1-D tensors of one dtype: one row per combination of their elements (the
    last varying fastest), shape ``[prod of sizes, len(x)]``; a list of one tensor gives that tensor.

    Example:
        >>> oar.cartesian_prod([oar.to_tensor([1, 2]), oar.to_tensor([3, 4, 5])]).numpy().tolist()
        [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    """
    if not isinstance(x, (list, tuple)) or not x:
        raise ValueError(f"cartesian_prod: x must be a non-empty list of 1-D tensors, got {type(x).__name__}"
                         + (" (put a single tensor in a list)" if isinstance(x, TensorMethods) else ""))
    tensors = list(x)
    for i, t in enumerate(tensors):
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod: every tensor must be 1-D, x[{i}] has shape {list(t.shape)}")
        if t.dtype is not tensors[0].dtype:
            raise TypeError(f"cartesian_prod: the tensors must have one dtype, x[0] is {tensors[0].dtype.name} "
                            f"and x[{i}] is {t.dtype.name}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(g) for g in meshgrid(tensors)], axis=1)


def combinations(x, r=2, with_replacement=False, name=None):
    """The length-`r` combinations of the elements of the 1-D tensor `x`, in lexicographic order of positions (as
    Python's `itertools.combinations`, or `combinations_with_replacement`): shape ``[count, r]``, ``[0, r]`` when
    there is none, ``[0]`` for ``r=0``.

    Example:
        >>> oar.combinations(oar.to_tensor([1, 2, 3])).numpy().tolist()
        [[1, 2], [1, 3], [2, 3]]
        >>> oar.combinations(oar.to_tensor([1, 2]), r=2, with_replacement=True).numpy().tolist()
        [[1, 1], [1, 2], [2, 2]]
    """
    if x.ndim != 1:
        raise TypeError(f"combinations: x must be a 1-D tensor, got shape {list(x.shape)}")
    if not isinstance(r, int) or isinstance(r, bool) or r < 0:
        raise ValueError(f"combinations: r must be a non-negative int, got {r!r}")
    n = x.shape[0]
    if n < 0:
        raise ValueError("combinations: the length of x must be known (it sets the output's shape)")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.asarray(list(pick(range(n), r)) if r else [], np.int64).reshape(-1)
    out = gather(x, operand(index))
    return out if r == 0 else reshape(out, [-1, r])


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to.

    Example:
        >>> oar.broadcast_shape([2, 1, 3], [4, 1])
        [2, 4, 3]
    """
    return broadcast_shapes(list(x_shape), list(y_shape))


def broadcast_tensors(input, name=None):
    """Broadcasts a list of tensors to their common shape.

    Example:
        >>> [t.shape for t in oar.broadcast_tensors([oar.ones([2, 1]), oar.ones([3])])]
        [[2, 3], [2, 3]]
    """
    shape = broadcast_shapes(*[t.shape for t in input])
    return [t if t.shape == shape else broadcast_to(t, shape) for t in input]


def crop(x, shape=None, offsets=None, name=None):
    """The block of `x` of size `shape` (-1: to the end) starting at `offsets` (default zeros).

    Example:
        >>> oar.crop(oar.arange(9).reshape([3, 3]), shape=[2, 2], offsets=[1, 1]).numpy().tolist()
        [[4, 5], [7, 8]]
    """
    shape = x.shape if shape is None else to_int_list(shape)
    offsets = [0] * x.ndim if offsets is None else to_int_list(offsets, "offsets")
    if len(shape) != x.ndim or len(offsets) != x.ndim:
        raise ValueError(f"crop: shape {shape} and offsets {offsets} need one entry per dim of x {x.shape}")
    return tensor_getitem(x, tuple(slice(o, None if s == -1 else o + s) for o, s in zip(offsets, shape)))


def multiplex(inputs, index, name=None):
    """Row i of the output is row i of ``inputs[index[i]]``.

    Example:
        >>> a, b = oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([[5, 6], [7, 8]])
        >>> oar.multiplex([a, b], oar.to_tensor([[1], [0]])).numpy().tolist()
        [[5, 6], [3, 4]]
    """
    stacked = stack(list(inputs), 0)
    rows = inputs[0].shape[0]
    idx = reshape(cast(index, "int64"), [1, rows] + [1] * (stacked.ndim - 2))
    return take_along_axis(stacked, idx, 0)[0]


def index_sample(x, index, name=None):
    """``out[i, j] = x[i, index[i, j]]`` for a 2-D `x` and `index`.

    Example:
        >>> oar.index_sample(oar.to_tensor([[1, 2, 3], [4, 5, 6]]), oar.to_tensor([[2, 0], [1, 1]])).numpy().tolist()
        [[3, 1], [5, 5]]
    """
    if x.ndim != 2 or index.ndim != 2:
        raise ValueError(f"index_sample: x and index must be 2-D, got shapes {x.shape} and {index.shape}")
    return take_along_axis(x, index, 1, broadcast=False)


def index_put(x, indices, value, accumulate=False, name=None):
    """A copy of `x` with ``x[indices] = value`` (or ``+= value`` when `accumulate`, summing repeated indices).

    Example:
        >>> x = oar.zeros([3])
        >>> oar.index_put(x, (oar.to_tensor([0, 0, 2]),), oar.to_tensor(1.0), accumulate=True).numpy().tolist()
        [2.0, 0.0, 1.0]
    """
    indices = tuple(indices)
    if not accumulate:
        return setitem(x, indices, value)
    if any(t.dtype.kind == "b" for t in indices):
        from .search import nonzero
        indices = tuple(p for t in indices for p in (nonzero(t, as_tuple=True) if t.dtype.kind == "b" else (t,)))
    idx = stack(broadcast_tensors([cast(t, "int64") for t in indices]), -1)
    value = cast(operand(value, x), x.dtype)
    shape = idx.shape[:-1] + x.shape[len(indices):]
    return scatter_nd_add(x, idx, broadcast_to(value, shape) if value.shape != shape else value)


def take(x, index, mode="raise", name=None):
    """Elements of the flattened `x` at `index` (shape of `index`); mode 'raise' checks bounds, 'wrap' wraps
    them around, 'clip' clamps them. Negative indices count from the end in 'raise' mode.

    Example:
        >>> oar.take(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([[0, 3], [-1, 1]])).numpy().tolist()
        [[1, 4], [4, 2]]
    """
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    flat = flatten(x) if x.ndim != 1 else x
    n = math.prod(x.shape) if -1 not in x.shape else -1
    idx = cast(index, "int64")
    if mode == "raise":
        data = getattr(idx, "_data", None)
        if data is not None and n >= 0 and data.size and (data.max() >= n or data.min() < -n):
            raise IndexError(f"take: index out of range for a tensor of {n} elements "
                             f"(indices from {data.min()} to {data.max()})")
        idx = where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = remainder(idx, operand(n, idx))
    else:
        idx = idx.clip(0, n - 1)
    return reshape(gather(flat, flatten(idx) if idx.ndim != 1 else idx), index.shape)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Maps global indices to indices within shard `shard_id` (others become `ignore_value`).

    Example:
        >>> oar.shard_index(oar.to_tensor([[1], [6], [12]]), 20, 2, 0).numpy().tolist()
        [[1], [6], [-1]]
    """
    size = (index_num + nshards - 1) // nshards
    if not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index: shard_id must be in [0, {nshards}), got {shard_id}")
    inside = floor_divide(input, operand(size, input)) == shard_id
    return where(inside, remainder(input, operand(size, input)), full(input.shape, ignore_value, input.dtype))


def _unique_consecutive_infer(m, return_inverse, return_counts, axis, dtype):
    shape, dt = m[0]
    out = [([-1] if axis is None else [-1 if i == axis else d for i, d in enumerate(shape)], dt)]
    if return_inverse:
        out.append(([math.prod(shape) if -1 not in shape else -1] if axis is None else [shape[axis]],
                    D.convert_dtype(dtype)))
    if return_counts:
        out.append(([-1], D.convert_dtype(dtype)))
    return out


UNIQUE_CONSECUTIVE = defop("unique_consecutive", _unique_consecutive, outputs=("out*",),
                           infer=_unique_consecutive_infer,
                           differentiable=False, onnx_reason="data-dependent output size")


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """Collapses runs of equal consecutive elements (or slices along `axis`), with optional inverse and counts.

    Example:
        >>> out, counts = oar.unique_consecutive(oar.to_tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
        >>> out.numpy().tolist(), counts.numpy().tolist()
        ([1, 2, 3, 1], [2, 2, 1, 1])
    """
    axis = None if axis is None else norm_axis1(axis, x.ndim)
    outs = apply(UNIQUE_CONSECUTIVE, (x,), {"return_inverse": bool(return_inverse),
                                            "return_counts": bool(return_counts), "axis": axis,
                                            "dtype": D.convert_dtype(dtype).name})
    return outs[0] if len(outs) == 1 else tuple(outs)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """`num` numbers ``base ** v`` for v evenly spaced from `start` to `stop`.

    Example:
        >>> oar.logspace(0, 2, 3).numpy().tolist()
        [1.0, 10.0, 100.0]
    """
    exps = linspace(start, stop, num, dtype="float64")
    out = pow(operand(float(base), exps), exps)
    return cast(out, D.default_float() if dtype is None else dtype)


def rank(input):
    """The number of dims of `input`, as a 0-D int32 tensor.

    Example:
        >>> oar.rank(oar.ones([2, 3])).item()
        2
    """
    return full([], input.ndim, "int32")


def is_empty(x, name=None):
    """Whether `x` has no elements, as a 0-D bool tensor.

    Example:
        >>> oar.is_empty(oar.ones([0, 3])).item(), oar.is_empty(oar.ones([1])).item()
        (True, False)
    """
    if -1 in x.shape:
        from .manipulation import numel
        return numel(x) == 0
    return full([], math.prod(x.shape) == 0, "bool")


def tolist(x):
    """The values of `x` as nested Python lists.

    Example:
        >>> oar.tolist(oar.to_tensor([[1, 2]]))
        [[1, 2]]
    """
    return x.tolist()


__all__ = public_api(globals())
