"""Matrix-structured ops of Paddle's top level (not `paddle.linalg`): diag/diagflat/diagonal, tril/triu and their
index forms, trace, kron, tensordot, inner, mv, addmm, dist/cdist, renorm, vander.

Kernels are NumPy; diagonal and the triangles have gradient rules written with other ops, the rest are composed."""
import builtins

import numpy as np


from ..core import dtype as D
from .common import infer_same, norm_axis1, public_api, to_int_list
from .linalg import einsum, matmul
from .manipulation import reshape, transpose, unsqueeze, flatten
from .math import abs, cast, pow, where, zeros_like
from .reduction import max as _max, min as _min, sum as _sum
from ..kernels.linalg import (diag_embed as _diag_embed_impl, diagonal as _diagonal,
                              diagonal_grad as _diagonal_grad_impl, tri_indices as _tri_indices_impl, tril as _tril,
                              triu as _triu, fill_diagonal as _fill_diagonal)
from .registry import apply, defop

_NO_ONNX = "not lowered yet"  # the onnx_reason of this family's ops


# ---- triangles -------------------------------------------------------------------------------------------------


def _onnx_triangle(compare):
    """tril/triu at opset 13 (ONNX Trilu needs 14): ``Where(col - row <compare> diagonal, x, 0)`` with the row and
    column indices from Range over the run-time sizes of the last two dims (batch dims broadcast)."""
    def lower(ctx, op):
        x = ctx.inp(op, "x")
        shape = ctx.node("Shape", [x])
        zero, one = ctx.const(np.asarray(0, np.int64)), ctx.const(np.asarray(1, np.int64))
        rows = ctx.node("Range", [zero, ctx.node("Gather", [shape, ctx.const(np.asarray(-2, np.int64))]), one])
        cols = ctx.node("Range", [zero, ctx.node("Gather", [shape, ctx.const(np.asarray(-1, np.int64))]), one])
        offset = ctx.node("Sub", [ctx.node("Unsqueeze", [cols, ctx.ints([0])]),
                                  ctx.node("Unsqueeze", [rows, ctx.ints([1])])])
        keep = ctx.node(compare, [offset, ctx.const(np.asarray(op.attrs["diagonal"], np.int64))])
        ctx.node("Where", [keep, x, ctx.const(np.asarray(0, D.np_dtype(ctx.in_meta(op, "x")[1])))], [ctx.out(op)])
    return lower


TRIL = defop("tril", _tril,
             grad=lambda g, out, x, diagonal: tril(g, diagonal), infer=infer_same,
             onnx=_onnx_triangle("LessOrEqual"))
TRIU = defop("triu", _triu,
             grad=lambda g, out, x, diagonal: triu(g, diagonal), infer=infer_same,
             onnx=_onnx_triangle("GreaterOrEqual"))


FILL_DIAGONAL = defop("fill_diagonal", _fill_diagonal, infer=infer_same, onnx_reason=_NO_ONNX,
                     grad=lambda g, out, x, value, offset, wrap: apply(FILL_DIAGONAL, (g,), {
                         "value": 0.0, "offset": offset, "wrap": wrap}))


def _check_matrix(x, what):
    if x.ndim < 2:
        raise ValueError(f"{what}: the input must have at least 2 dims, got shape {x.shape}")


def tril(x, diagonal=0, name=None):
    """The lower triangle of the last two dims (entries above `diagonal` set to 0).

    Example:
        >>> oar.tril(oar.to_tensor([[1, 2], [3, 4]])).numpy().tolist()
        [[1, 0], [3, 4]]
    """
    _check_matrix(x, "tril")
    return apply(TRIL, (x,), {"diagonal": int(diagonal)})


def fill_diagonal(x, value, offset=0, wrap=False, name=None):
    """A copy of `x` with `value` on the diagonal shifted by `offset` (Paddle's ``Tensor.fill_diagonal_`` without
    the write); `wrap` restarts the diagonal below a tall matrix's square part. More than 2 dims need equal
    sizes and always wrap, as Paddle's. The filled entries get no gradient.

    Example:
        >>> x = oar.zeros([2, 3])
        >>> x.fill_diagonal_(1.0, offset=1).numpy().tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    _check_matrix(x, "fill_diagonal_")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise ValueError(f"fill_diagonal_: a tensor of more than 2 dims needs all dims equal, got shape {x.shape}")
    return apply(FILL_DIAGONAL, (x,), {"value": float(value), "offset": int(offset), "wrap": bool(wrap)})


def triu(x, diagonal=0, name=None):
    """The upper triangle of the last two dims (entries below `diagonal` set to 0).

    Example:
        >>> oar.triu(oar.to_tensor([[1, 2], [3, 4]])).numpy().tolist()
        [[1, 2], [0, 4]]
    """
    _check_matrix(x, "triu")
    return apply(TRIU, (x,), {"diagonal": int(diagonal)})


TRI_INDICES = defop("tri_indices", _tri_indices_impl, inputs=(), infer_reason="probed",
                    differentiable=False, onnx_reason=_NO_ONNX)


def _tri_indices(row, col, offset, dtype, lower):
    return apply(TRI_INDICES, (), {"row": int(row), "col": int(row if col is None else col), "offset": int(offset),
                                   "dtype": D.convert_dtype(dtype).name, "lower": lower})


def tril_indices(row, col, offset=0, dtype="int64"):
    """The [2, N] row/column indices of the lower triangle of a row x col matrix.

    Example:
        >>> oar.tril_indices(3, 3).numpy().tolist()
        [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    return _tri_indices(row, col, offset, dtype, True)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """The [2, N] row/column indices of the upper triangle of a row x col matrix.

    Example:
        >>> oar.triu_indices(3, 3, 1).numpy().tolist()
        [[0, 0, 1], [1, 2, 2]]
    """
    return _tri_indices(row, col, offset, dtype, False)


# ---- diagonals ---------------------------------------------------------------------------------------------------

DIAGONAL_GRAD = defop("diagonal_grad", _diagonal_grad_impl, inputs=("grad", "x"), nondiff=(1,),
                      infer=lambda m, offset, axis1, axis2: [(m[1][0], m[0][1])],
                      grad=lambda g, out, grad, x, offset, axis1, axis2: (
                          diagonal(g, offset, axis1, axis2), None))
def _diagonal_infer(m, offset, axis1, axis2):
    shape, dtype = m[0]
    a1, a2 = axis1 % len(shape), axis2 % len(shape)
    n1, n2 = shape[a1], shape[a2]
    n = -1 if n1 < 0 or n2 < 0 else builtins.max(0, builtins.min(n1, n2 - offset) if offset >= 0
                                                  else builtins.min(n1 + offset, n2))
    return [([d for i, d in enumerate(shape) if i not in (a1, a2)] + [n], dtype)]


DIAGONAL = defop("diagonal", _diagonal, infer=_diagonal_infer, grad=lambda g, out, x, offset, axis1, axis2: apply(
    DIAGONAL_GRAD, (g, x), {"offset": offset, "axis1": axis1, "axis2": axis2}), onnx_reason=_NO_ONNX)
DIAGONAL.set(view=True)  # Paddle: a view of its input (shares memory)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal of the (axis1, axis2) planes, moved to the last dim.

    Example:
        >>> oar.diagonal(oar.to_tensor([[1, 2], [3, 4]])).numpy().tolist()
        [1, 4]
        >>> oar.diagonal(oar.to_tensor([[1, 2], [3, 4]]), offset=1).numpy().tolist()
        [2]
    """
    _check_matrix(x, "diagonal")
    a1, a2 = norm_axis1(axis1, x.ndim), norm_axis1(axis2, x.ndim)
    if a1 == a2:
        raise ValueError(f"diagonal: axis1 and axis2 must differ, got {axis1} and {axis2}")
    return apply(DIAGONAL, (x,), {"offset": int(offset), "axis1": a1, "axis2": a2})


def _diag_embed_infer(m, offset, padding_value):
    shape, dtype = m[0]
    n = -1 if shape[-1] < 0 else shape[-1] + builtins.abs(offset)
    return [(list(shape[:-1]) + [n, n], dtype)]


DIAG_EMBED = defop("diag_embed_last", _diag_embed_impl, infer=_diag_embed_infer,
                   grad=lambda g, out, x, offset, padding_value: diagonal(g, offset, -2, -1),
                   onnx_reason=_NO_ONNX)


def diag(x, offset=0, padding_value=0, name=None):
    """A 1-D `x` becomes a square matrix with `x` on diagonal `offset` (other entries `padding_value`); a 2-D `x`
    gives its diagonal `offset`.

    Example:
        >>> oar.diag(oar.to_tensor([1, 2])).numpy().tolist()
        [[1, 0], [0, 2]]
        >>> oar.diag(oar.to_tensor([[1, 2], [3, 4]]), offset=1).numpy().tolist()
        [2]
    """
    if x.ndim == 0:
        x = reshape(x, [1])
    if x.ndim == 1:
        return apply(DIAG_EMBED, (x,), {"offset": int(offset), "padding_value": padding_value})
    if x.ndim == 2:
        return diagonal(x, offset)
    raise ValueError(f"diag: x must be 0-D, 1-D or 2-D, got shape {x.shape}")


def diagflat(x, offset=0, name=None):
    """`x` flattened onto the diagonal `offset` of a square matrix.

    Example:
        >>> oar.diagflat(oar.to_tensor([[1, 2]])).numpy().tolist()
        [[1, 0], [0, 2]]
    """
    return apply(DIAG_EMBED, (flatten(x) if x.ndim != 1 else x,), {"offset": int(offset), "padding_value": 0})


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Puts the last dim of `input` on diagonal `offset` of new (dim1, dim2) planes.

    Example:
        >>> oar.diag_embed(oar.to_tensor([[1, 2]])).numpy().tolist()
        [[[1, 0], [0, 2]]]
    """
    out = apply(DIAG_EMBED, (input,), {"offset": int(offset), "padding_value": 0})
    nd = out.ndim
    d1, d2 = norm_axis1(dim1, nd), norm_axis1(dim2, nd)
    if (d1, d2) == (nd - 2, nd - 1):
        return out
    perm = [i for i in range(nd - 2)]
    order = [None] * nd
    rest = iter(perm)
    order[d1], order[d2] = nd - 2, nd - 1
    for i in range(nd):
        if order[i] is None:
            order[i] = next(rest)
    return transpose(out, order)


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal `offset` of the (axis1, axis2) planes.

    Example:
        >>> oar.trace(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])).item()
        5.0
    """
    d = diagonal(x, offset, axis1, axis2)
    return _sum(d, axis=-1, dtype=d.dtype if d.dtype.kind in "iu" else None)  # Paddle: int32 stays int32


# ---- products --------------------------------------------------------------------------------------------------

def kron(x, y, name=None):
    """The Kronecker product.

    Example:
        >>> oar.kron(oar.to_tensor([1, 2]), oar.to_tensor([1, 10])).numpy().tolist()
        [1, 10, 2, 20]
    """
    nd = max(x.ndim, y.ndim)
    x = reshape(x, [1] * (nd - x.ndim) + x.shape) if x.ndim < nd else x
    y = reshape(y, [1] * (nd - y.ndim) + y.shape) if y.ndim < nd else y
    xe = reshape(x, [d for s in x.shape for d in (s, 1)])
    ye = reshape(y, [d for s in y.shape for d in (1, s)])
    return reshape(xe * ye, [a * b for a, b in zip(x.shape, y.shape)])


def tensordot(x, y, axes=2, name=None):
    """Sum of products over `axes`: an int n (last n of x with first n of y), one list of axes (the same for x and
    y) or a pair of axis lists.

    Example:
        >>> x, y = oar.ones([2, 3, 4]), oar.ones([3, 4, 5])
        >>> oar.tensordot(x, y).shape
        [2, 5]
        >>> oar.tensordot(x, y, axes=[[1], [0]]).shape
        [2, 4, 4, 5]
    """
    if hasattr(axes, "tolist"):
        axes = axes.tolist()
    if isinstance(axes, int):
        ax_x, ax_y = list(range(x.ndim - axes, x.ndim)), list(range(axes))
    elif all(isinstance(a, int) for a in axes):  # one list of axes: the same axes of x and y
        ax_x, ax_y = list(axes), list(axes)
    elif len(axes) == 1:
        ax_x = ax_y = to_int_list(axes[0])
    else:
        ax_x, ax_y = to_int_list(axes[0]), to_int_list(axes[1])
        n = max(len(ax_x), len(ax_y))  # Paddle completes the shorter list from the longer one
        ax_x, ax_y = ax_x + ax_y[len(ax_x):n], ax_y + ax_x[len(ax_y):n]
    ax_x, ax_y = [a % x.ndim for a in ax_x], [a % y.ndim for a in ax_y]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sx = [next(letters) for _ in range(x.ndim)]
    sy = [next(letters) for _ in range(y.ndim)]
    for a, b in zip(ax_x, ax_y):
        sy[b] = sx[a]
    out = [c for i, c in enumerate(sx) if i not in ax_x] + [c for i, c in enumerate(sy) if i not in ax_y]
    return einsum(f"{''.join(sx)},{''.join(sy)}->{''.join(out)}", x, y)


def inner(x, y, name=None):
    """Sum of products over the last dims of `x` and `y`.

    Example:
        >>> oar.inner(oar.to_tensor([[1.0, 2.0]]), oar.to_tensor([[3.0, 4.0], [1.0, 0.0]])).numpy().tolist()
        [[11.0, 1.0]]
    """
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return tensordot(x, y, axes=[[x.ndim - 1], [y.ndim - 1]])


def mv(x, vec, name=None):
    """Matrix-vector product.

    Example:
        >>> oar.mv(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]), oar.to_tensor([1.0, 1.0])).numpy().tolist()
        [3.0, 7.0]
    """
    if x.ndim != 2 or vec.ndim != 1:
        raise ValueError(f"mv: x must be 2-D and vec 1-D, got shapes {x.shape} and {vec.shape}")
    return matmul(x, vec)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """``beta * input + alpha * (x @ y)``.

    Example:
        >>> oar.addmm(oar.ones([2, 2]), oar.ones([2, 3]), oar.ones([3, 2]), beta=0.5, alpha=2.0).numpy().tolist()
        [[6.5, 6.5], [6.5, 6.5]]
    """
    return input * beta + matmul(x, y) * alpha


def dist(x, y, p=2, name=None):
    """The p-norm of ``x - y`` (broadcast), as a 0-D tensor; p may be 0, inf or -inf.

    Example:
        >>> oar.dist(oar.to_tensor([3.0, 0.0]), oar.to_tensor([0.0, 4.0])).item()
        5.0
    """
    d = abs(x - y)
    p = float(p)
    if p == 0:
        return _sum(cast(d != 0, d.dtype))
    if p == float("inf"):
        return _max(d)
    if p == float("-inf"):
        return _min(d)
    return pow(_sum(pow(d, p)), 1.0 / p)


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """Pairwise p-norm distances between the rows of `x` [..., P, M] and `y` [..., R, M]: [..., P, R].

    Example:
        >>> oar.cdist(oar.to_tensor([[0.0, 0.0]]), oar.to_tensor([[3.0, 4.0], [1.0, 0.0]])).numpy().tolist()
        [[5.0, 1.0]]
    """
    d = abs(unsqueeze(x, -2) - unsqueeze(y, -3))
    p = float(p)
    if p == 0:
        return _sum(cast(d != 0, d.dtype), axis=-1)
    if p == float("inf"):
        return _max(d, axis=-1)
    if p == 2.0:  # sqrt has an infinite slope at 0: give zero distances a zero gradient, as Paddle does
        sq = _sum(d * d, axis=-1)
        safe = where(sq == 0, sq + 1, sq)
        return where(sq == 0, zeros_like(sq), safe ** 0.5)
    return pow(_sum(pow(d, p), axis=-1), 1.0 / p)


def renorm(x, p, axis, max_norm, name=None):
    """Rescales each slice along `axis` whose p-norm exceeds `max_norm` down to norm `max_norm`.

    Example:
        >>> x = oar.to_tensor([[3.0, 4.0], [0.3, 0.4]], 'float64')
        >>> oar.renorm(x, p=2, axis=0, max_norm=1.0).numpy().round(4).tolist()
        [[0.6, 0.8], [0.3, 0.4]]
    """
    axis = norm_axis1(axis, x.ndim)
    others = [i for i in range(x.ndim) if i != axis]
    norms = pow(_sum(pow(abs(x), float(p)), axis=others, keepdim=True), 1.0 / p)
    factor = where(norms > max_norm, max_norm / (norms + 1e-7), zeros_like(norms) + 1.0)
    return x * factor


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of the 1-D `x`: columns are powers of `x` (decreasing unless `increasing`).

    Example:
        >>> oar.vander(oar.to_tensor([1.0, 2.0, 3.0]), n=3).numpy().tolist()
        [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [9.0, 3.0, 1.0]]
    """
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {x.shape}")
    n = x.shape[0] if n is None else int(n)
    powers = list(range(n)) if increasing else list(range(n - 1, -1, -1))
    from .manipulation import stack
    cols = [pow(x, float(k)) if k else zeros_like(x) + 1 for k in powers]
    return stack(cols, axis=1) if cols else reshape(x, [x.shape[0], 0])


__all__ = public_api(globals(), internal=("fill_diagonal",))  # Paddle has only Tensor.fill_diagonal_
