"""Paddle 3's NumPy/PyTorch-style names for what the core ops already do: matrix_transpose, ravel, msort, argwhere,
negative, positive, ger, vecdot, reduce_as, broadcast_shapes, cat/concatenate, clamp, mul, true_divide, permute,
swapaxes/swapdims, isin, narrow, take_along_dim. Each is composed from one or two core ops, so
gradients, static mode and export come from them."""
from ..core import dtype as D
from .common import broadcast_shapes as _broadcast, norm_axis1, operand, public_api, to_int_list
from .complex import conj
from .indexing import slice, take_along_axis
from .logic import _into, any, equal, logical_not
from .manipulation import concat, reshape, transpose, unsqueeze
from .math import REDUCE_AS, cast, clip, divide, multiply, neg, sum
from .linalg import outer
from .registry import apply
from .search import nonzero, sort


def matrix_transpose(x, name=None):
    """Swaps the last two dimensions of `x` (at least 2-D).

    Example:
        >>> oar.matrix_transpose(oar.ones([2, 3, 4])).shape
        [2, 4, 3]
    """
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, got shape {list(x.shape)}")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose(x, perm)


def ravel(input):
    """`input` flattened to 1-D (a 0-D tensor gives shape [1]).

    Example:
        >>> oar.ravel(oar.to_tensor([[3, 1], [2, 4]])).numpy().tolist()
        [3, 1, 2, 4]
    """
    return reshape(input, [-1])


def msort(input, *, out=None):
    """`input` sorted along its first axis (ascending); with `out` the result is written into that tensor.

    Example:
        >>> oar.msort(oar.to_tensor([[3, 1], [2, 4]])).numpy().tolist()
        [[2, 1], [3, 4]]
    """
    return _into(input if input.ndim == 0 else sort(input, axis=0), out, "msort")


def argwhere(input):
    """The coordinates of the non-zero elements of `input` (at least 1-D): int64 of shape [count, ndim].

    Example:
        >>> oar.argwhere(oar.to_tensor([[0, 1], [2, 0]])).numpy().tolist()
        [[0, 1], [1, 0]]
    """
    if input.ndim == 0:
        raise ValueError("argwhere: input must have at least one dimension, got a 0-D tensor")
    return nonzero(input)


def _no_bool(x, what):
    x = operand(x)
    if x.dtype.kind == "b":
        raise TypeError(f"{what} of a bool tensor is not defined (use logical_not)")
    return x


def negative(x, name=None):
    """``-x`` (refuses bool, as Paddle).

    Example:
        >>> oar.negative(oar.to_tensor([1, -2])).numpy().tolist()
        [-1, 2]
    """
    return neg(_no_bool(x, "negative"))


def positive(x, name=None):
    """``+x``: `x` itself (refuses bool, as Paddle).

    Example:
        >>> oar.positive(oar.to_tensor([1, -2])).numpy().tolist()
        [1, -2]
    """
    return _no_bool(x, "positive")


def ger(x, y, name=None, *, out=None):
    """The outer product of `x` and `y` (each flattened): `outer` under BLAS's name; with `out` the result is written
    into that tensor.

    Example:
        >>> oar.ger(oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0, 4.0, 5.0])).numpy().tolist()
        [[3.0, 4.0, 5.0], [6.0, 8.0, 10.0]]
    """
    return _into(outer(x, y), out, "ger")


def vecdot(x, y, axis=-1, name=None):
    """The dot product of `x` and `y` (broadcast together) along `axis`, conjugating `x`: ``sum(conj(x) * y, axis)``.

    Example:
        >>> oar.vecdot(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]), oar.to_tensor([1.0, 1.0])).numpy().tolist()
        [3.0, 7.0]
    """
    x, y = operand(x), operand(y)
    return sum((conj(x) if x.dtype.kind == "c" else x) * y, axis=axis)


def reduce_as(x, target, name=None):
    """`x` summed down to the shape of `target` (which must broadcast to `x`'s shape): the adjoint of broadcasting.
    A bool `x` is counted as int64, as `sum` does.

    Example:
        >>> oar.reduce_as(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([0, 0])).numpy().tolist()
        [4, 6]
    """
    shape, want = list(x.shape), list(target.shape)
    if -1 not in shape + want and (len(want) > len(shape) or _broadcast(shape, want) != shape):
        raise ValueError(f"reduce_as: the target shape {want} does not broadcast to x's shape {shape}")
    return apply(REDUCE_AS, (cast(x, D.int64) if x.dtype is D.bool_ else x, target))


def broadcast_shapes(*shapes):
    """The shape that tensors of all `shapes` broadcast to (``[]`` for none).

    Example:
        >>> oar.broadcast_shapes([2, 1], [3], [1, 1, 1])
        [1, 2, 3]
    """
    out = []
    for s in shapes:
        out = _broadcast(out, list(s))
    return out


def cat(x, axis=0, name=None, *, out=None):
    """`concat` under PyTorch's name: the tensors of `x` joined along `axis`; with `out` the result is written into
    that tensor.

    Example:
        >>> oar.cat([oar.to_tensor([1, 2]), oar.to_tensor([3])]).numpy().tolist()
        [1, 2, 3]
    """
    return _into(concat(x, axis), out, "cat")


def concatenate(x, axis=0, name=None, *, out=None):
    """`concat` under NumPy's name (see `cat`).

    Example:
        >>> oar.concatenate([oar.to_tensor([[1, 2]]), oar.to_tensor([[3, 4]])], axis=1).numpy().tolist()
        [[1, 2, 3, 4]]
    """
    return _into(concat(x, axis), out, "concatenate")


def clamp(x, min=None, max=None, name=None, *, out=None):
    """`clip` under PyTorch's name: `x` limited to ``[min, max]``; with `out` the result is written into that tensor.

    Example:
        >>> oar.clamp(oar.to_tensor([1.0, 5.0]), 2.0, 4.0).numpy().tolist()
        [2.0, 4.0]
    """
    return _into(clip(x, min, max), out, "clamp")


def mul(x, y, name=None, *, out=None):
    """`multiply` under PyTorch's name; with `out` the result is written into that tensor.

    Example:
        >>> oar.mul(oar.to_tensor([1, 2]), oar.to_tensor([3, 4])).numpy().tolist()
        [3, 8]
    """
    return _into(multiply(x, y), out, "mul")


def true_divide(input, other, *, out=None):
    """`divide` (true division: integers give the default float dtype) under NumPy's name.

    Example:
        >>> oar.true_divide(oar.to_tensor([7, -7]), oar.to_tensor([2, 2])).numpy().tolist()
        [3.5, -3.5]
    """
    return _into(divide(input, other), out, "true_divide")


def permute(input, *dims):
    """`input` with its dimensions reordered by `dims`, given as one list or as separate ints.

    Example:
        >>> oar.permute(oar.ones([2, 3, 4]), 2, 0, 1).shape
        [4, 2, 3]
    """
    perm = list(dims[0]) if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else list(dims)
    return transpose(input, perm)


def swapaxes(x, perm, axis1=None, name=None):
    """`x` with two axes exchanged (``swapaxes(x, 0, 2)``), or, as Paddle also accepts, reordered by a whole
    permutation (``swapaxes(x, [2, 0, 1])``, `transpose`).

    Example:
        >>> oar.swapaxes(oar.ones([2, 3, 4]), 0, 2).shape
        [4, 3, 2]
    """
    if axis1 is None:
        if not isinstance(perm, (list, tuple)):
            raise TypeError("swapaxes: give two axes, or one permutation list")
        return transpose(x, list(perm))
    order = list(range(x.ndim))
    a, b = order[perm], order[axis1]  # (IndexError for an axis out of range)
    order[a], order[b] = b, a
    return transpose(x, order)


def swapdims(x, perm, axis1=None, name=None):
    """`swapaxes` under PyTorch's name.

    Example:
        >>> oar.swapdims(oar.ones([2, 3]), 0, 1).shape
        [3, 2]
    """
    return swapaxes(x, perm, axis1)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Whether each element of `x` equals some element of `test_x`: a bool tensor of `x`'s shape (negated with
    `invert`). `assume_unique` is Paddle's speed hint that both hold unique elements; the answer is the same without
    it, so oar takes it and computes the same comparison.

    Example:
        >>> oar.isin(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([2, 4, 7])).numpy().tolist()
        [[False, True], [False, True]]
    """
    if not hasattr(x, "dtype") or not hasattr(test_x, "dtype"):
        raise TypeError(f"isin: x and test_x must be Tensors, got {type(x).__name__} and {type(test_x).__name__}")
    hit = any(equal(unsqueeze(x, -1), reshape(test_x, [-1])), axis=-1)
    return logical_not(hit) if invert else hit


def narrow(input, dim, start, length):
    """The `length` elements of `input` from `start` along `dim` (`start` may be negative, or, in eager mode, a
    one-element Tensor).

    Example:
        >>> oar.narrow(oar.to_tensor([[1, 2, 3], [4, 5, 6]]), 1, 1, 2).numpy().tolist()
        [[2, 3], [5, 6]]
    """
    if not -input.ndim <= dim < max(input.ndim, 1):
        raise IndexError(f"narrow: dim {dim} is out of range for a {input.ndim}-D tensor "
                         f"(expected in [{-input.ndim}, {input.ndim - 1}])")
    dim = norm_axis1(dim, input.ndim)
    size = input.shape[dim]
    if hasattr(start, "block"):
        raise TypeError("narrow: a Tensor start is read when the call runs, so a static program cannot take one; "
                        "pass a Python int")
    start = to_int_list(start, "start")[0] if hasattr(start, "dtype") else int(start)
    if length < 0:
        raise ValueError(f"narrow: length must be non-negative, got {length}")
    if not -size <= start <= size:
        raise IndexError(f"narrow: start {start} is out of range for dimension {dim} of size {size} "
                         f"(expected in [{-size}, {size}])")
    start = start + size if start < 0 else start
    if start + length > size:
        raise ValueError(f"narrow: start ({start}) + length ({length}) exceeds the size {size} of dimension {dim}")
    return slice(input, [dim], [start], [start + length])


def take_along_dim(arr, indices, axis, broadcast=True, *, out=None):
    """`take_along_axis` under PyTorch's name; with `out` the result is written into that tensor.

    Example:
        >>> oar.take_along_dim(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([[0], [1]]), 1).numpy().tolist()
        [[1], [4]]
    """
    return _into(take_along_axis(arr, indices, axis, broadcast), out, "take_along_dim")


__all__ = public_api(globals())
