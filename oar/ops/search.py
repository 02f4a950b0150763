"""Searching and sorting: argmax/argmin, sort/argsort/topk, unique, nonzero, masked_select, searchsorted, and the
beam-search backtrack gather_tree."""
import math as _math

from ..core import dtype as D
from .common import broadcast_shapes, norm_axis1, operand
from .math import _infer_reduce, unbroadcast, zeros_like
from ..kernels.search import (argmax as _argmax, argmin as _argmin, gather_tree as _gather_tree,
                              masked_select as _masked_select, masked_select_grad as _masked_select_grad_impl,
                              nonzero as _nonzero, searchsorted as _searchsorted, sort as _sort, topk as _topk,
                              unique as _unique)
from .registry import apply, defop, lowerings


# ---- argmax / argmin ---------------------------------------------------------------------------------------

def _arg_infer(m, axis, keepdim, dtype):
    return [(_infer_reduce(m, axis, keepdim)[0][0], D.convert_dtype(dtype))]


ARGMAX = defop("argmax", _argmax, infer=_arg_infer, differentiable=False)
ARGMIN = defop("argmin", _argmin, infer=_arg_infer, differentiable=False)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the largest value along `axis` (of the flattened tensor when None).

    Example:
        >>> oar.argmax(oar.to_tensor([[1, 5], [7, 2]]), axis=1).numpy()
        array([1, 0])
    """
    return apply(ARGMAX, (x,), {"axis": None if axis is None else (norm_axis1(axis, x.ndim),),
                                "keepdim": bool(keepdim), "dtype": D.convert_dtype(dtype).name})


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the smallest value along `axis` (of the flattened tensor when None).

    Example:
        >>> oar.argmin(oar.to_tensor([[3.0, 1.0], [0.0, 2.0]]), axis=1).numpy().tolist()
        [1, 0]
    """
    return apply(ARGMIN, (x,), {"axis": None if axis is None else (norm_axis1(axis, x.ndim),),
                                "keepdim": bool(keepdim), "dtype": D.convert_dtype(dtype).name})


# ---- sort / argsort / topk -----------------------------------------------------------------------------------

def _scatter_back(g, idx, x, axis):
    """Gradient of ``take_along_axis(x, idx, axis)``: `g` added into zeros of x's shape at `idx`."""
    from .indexing import PUT_ALONG_AXIS
    return apply(PUT_ALONG_AXIS, (zeros_like(x), idx, g), {"axis": axis, "reduce": "add"})


SORT = defop("sort", _sort, outputs=("out", "indices"), nondiff_out=(1,),
             infer=lambda m, axis, descending: [m[0], (m[0][0], D.int64)],
             grad=lambda g, out, x, axis, descending: _scatter_back(g[0], out[1], x, axis) if x.ndim else g[0],
             onnx_reason="not lowered yet")


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """Sorted values along `axis` (ties keep their order).

    Example:
        >>> oar.sort(oar.to_tensor([3, 1, 2])).numpy()
        array([1, 2, 3])
    """
    return apply(SORT, (x,), {"axis": norm_axis1(axis, x.ndim), "descending": bool(descending)})[0]


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """Indices that sort `x` along `axis` (int64).

    Example:
        >>> oar.argsort(oar.to_tensor([3.0, 1.0, 2.0])).numpy().tolist()
        [1, 2, 0]
        >>> oar.argsort(oar.to_tensor([3.0, 1.0, 2.0]), descending=True).numpy().tolist()
        [0, 2, 1]
    """
    return apply(SORT, (x,), {"axis": norm_axis1(axis, x.ndim), "descending": bool(descending)})[1]


def _topk_infer(m, k, axis, largest, sorted):
    s = list(m[0][0])
    if s:
        s[axis] = k
    return [(s, m[0][1]), (s, D.int64)]


def _topk_check(x, k, axis, largest, sorted):
    n = x.shape[axis] if x.ndim else 1
    if not 0 <= k <= n and n >= 0:  # (-1: a static program's unknown size, checked when it runs)
        raise ValueError(f"topk: k={k} is out of range for axis {axis} of size {n} (input shape {list(x.shape)})")


TOPK = defop("topk", _topk, outputs=("out", "indices"), nondiff_out=(1,), infer=_topk_infer, check=_topk_check,
             grad=lambda g, out, x, k, axis, largest, sorted: _scatter_back(g[0], out[1], x, axis) if x.ndim
             else g[0])


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """The `k` largest (or smallest) values along `axis` (last when None) and their int64 indices.

    Example:
        >>> values, indices = oar.topk(oar.to_tensor([1.0, 4.0, 2.0]), k=2)
    """
    k = int(k.item()) if hasattr(k, "item") else int(k)
    return apply(TOPK, (x,), {"k": k, "axis": norm_axis1(-1 if axis is None else axis, x.ndim),
                              "largest": bool(largest), "sorted": bool(sorted)})


def kthvalue(x, k, axis=-1, keepdim=False, name=None):
    """The k-th smallest value (1-based) along `axis` and its index.

    Example:
        >>> values, indices = oar.kthvalue(oar.to_tensor([5.0, 1.0, 3.0]), k=2)
        >>> values.item(), indices.item()
        (3.0, 2)
    """
    from .manipulation import squeeze
    values, indices = topk(x, k, axis=axis, largest=False)
    a = norm_axis1(axis, x.ndim)
    from .indexing import slice as _slice
    v, i = _slice(values, [a], [k - 1], [k]), _slice(indices, [a], [k - 1], [k])
    return (v, i) if keepdim else (squeeze(v, a), squeeze(i, a))


# ---- unique / nonzero / masked_select (data-dependent output sizes: -1 in infer) ------------------------------

def _unique_infer(m, return_index, return_inverse, return_counts, axis, dtype):
    s, dt = m[0]
    it = D.convert_dtype(dtype)
    out = [([-1], dt) if axis is None else ([-1 if i == axis else d for i, d in enumerate(s)], dt)]
    if return_index:
        out.append(([-1], it))
    if return_inverse:
        n = _math.prod(s) if axis is None and -1 not in s else (s[axis] if axis is not None else -1)
        out.append(([n], it))
    if return_counts:
        out.append(([-1], it))
    return out


UNIQUE = defop("unique", _unique, outputs=("out*",), infer=_unique_infer,
               differentiable=False, onnx_reason="data-dependent output size")


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """Sorted unique values (of the flattened tensor, or slices along `axis`), optionally with the index of first
    occurrence, the inverse mapping and the counts.

    Example:
        >>> out, counts = oar.unique(oar.to_tensor([2, 3, 3, 1]), return_counts=True)
    """
    outs = apply(UNIQUE, (x,), {"return_index": bool(return_index), "return_inverse": bool(return_inverse),
                                "return_counts": bool(return_counts),
                                "axis": None if axis is None else norm_axis1(axis, x.ndim),
                                "dtype": D.convert_dtype(dtype).name})
    return outs[0] if len(outs) == 1 else tuple(outs)


NONZERO = defop("nonzero", _nonzero,
                infer=lambda m: [([-1, len(m[0][0])], D.int64)], differentiable=False,
                onnx=lambda ctx, op: ctx.node("Transpose", [ctx.node("NonZero", [ctx.inp(op, "x")])], [ctx.out(op)],
                                              perm=[1, 0]))  # ONNX gives [ndim, z]


def nonzero(x, as_tuple=False, name=None):
    """Coordinates of the non-zero elements: int64 of shape [z, ndim], or a tuple of ndim 1-D [z] tensors (Paddle
    3's form; Paddle 2.6 gave [z, 1]).

    Example:
        >>> x = oar.to_tensor([[1.0, 0.0], [0.0, 2.0]])
        >>> oar.nonzero(x).numpy().tolist()
        [[0, 0], [1, 1]]
        >>> [i.numpy().tolist() for i in oar.nonzero(x, as_tuple=True)]
        [[0, 1], [0, 1]]
    """
    x = operand(x)
    if x.ndim == 0:  # Paddle refuses; NumPy deprecated it (a True scalar has no coordinates to give)
        raise ValueError("nonzero: x must have at least 1 dimension; reshape a 0-D tensor to [1] first")
    out = apply(NONZERO, (x,))
    if not as_tuple:
        return out
    from .indexing import slice as _slice
    from .manipulation import reshape
    return tuple(reshape(_slice(out, [1], [i], [i + 1]), [-1]) for i in range(max(x.ndim, 1)))


def _masked_select_grad(g, out, x, mask):
    return unbroadcast(apply(MASKED_SELECT_GRAD, (x, mask, g)), x), None


MASKED_SELECT = defop("masked_select", _masked_select, inputs=("x", "mask"), nondiff=(1,),
                      infer=lambda m: [([-1], m[0][1])], grad=_masked_select_grad,
                      onnx_reason="data-dependent output size")
MASKED_SELECT_GRAD = defop(
    "masked_select_grad", _masked_select_grad_impl, inputs=("x", "mask", "grad"), nondiff=(0, 1),
    infer=lambda m: [(broadcast_shapes(m[0][0], m[1][0]), m[2][1])],
    grad=lambda gg, out, x, mask, g: (None, None, apply(MASKED_SELECT, (gg, mask))))


def masked_select(x, mask, name=None):
    """The elements of `x` where the bool `mask` (broadcast against x) is True, as a 1-D tensor.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0, 3.0])
        >>> oar.masked_select(x, x > 1.5).numpy()
        array([2., 3.], dtype=float32)
    """
    mask = operand(mask)
    if mask.dtype.kind != "b":
        raise TypeError(f"masked_select: mask must be bool, got {mask.dtype.name}")
    return apply(MASKED_SELECT, (x, mask))


SEARCHSORTED = defop("searchsorted", _searchsorted, inputs=("sorted_sequence", "values"),
                     infer=lambda m, out_int32, right: [(m[1][0], D.int32 if out_int32 else D.int64)],
                     differentiable=False, onnx_reason="no ONNX operator")


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Insertion indices of `values` into the innermost dim of `sorted_sequence`.

    Example:
        >>> seq = oar.to_tensor([1.0, 3.0, 5.0])
        >>> oar.searchsorted(seq, oar.to_tensor([3.0, 6.0])).numpy().tolist()
        [1, 3]
        >>> oar.searchsorted(seq, oar.to_tensor([3.0, 6.0]), right=True).numpy().tolist()
        [2, 3]
    """
    return apply(SEARCHSORTED, (sorted_sequence, operand(values)), {"out_int32": bool(out_int32),
                                                                     "right": bool(right)})


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_arg(onnx_type):
    def lower(ctx, op):
        a = op.attrs
        x = ctx.inp(op, "x")
        keep = int(bool(a["keepdim"]))
        if a["axis"] is None:  # over the flattened tensor
            r = ctx.node(onnx_type, [ctx.node("Reshape", [x, ctx.ints([-1])])], axis=0, keepdims=0)
            r = ctx.node("Reshape", [r, ctx.ints([1] * len(ctx.in_meta(op, "x")[0]) if keep else [])])
        else:
            r = ctx.node(onnx_type, [x], axis=int(a["axis"][0]), keepdims=keep)
        ctx.cast(r, a["dtype"], [ctx.out(op)])
    return lower


def _onnx_topk(ctx, op):
    a = op.attrs
    ctx.node("TopK", [ctx.inp(op, "x"), ctx.ints([a["k"]])], [ctx.out(op, "out"), ctx.out(op, "indices")],
             axis=int(a["axis"]), largest=int(bool(a["largest"])), sorted=1)


lowerings({"argmax": _onnx_arg("ArgMax"), "argmin": _onnx_arg("ArgMin"), "topk": _onnx_topk})


__all__ = ["argmax", "argmin", "sort", "argsort", "topk", "kthvalue", "unique", "nonzero", "masked_select",
           "searchsorted"]


GATHER_TREE = defop("gather_tree", _gather_tree, inputs=("ids", "parents"), infer=lambda m: [m[0]],
                    differentiable=False, onnx_reason="no ONNX operator (a data-dependent walk over the steps)")


def gather_tree(ids, parents):
    """Full beam-search sequences from the per-step ids and parent beams (both ``[max_time, batch, beam]``, int32
    or int64 alike): walking back from the last step, each step's id is taken at the beam the later step came
    from. A parent outside [0, beam) that the walk reaches raises ValueError, as Paddle's kernel does.

    Example:
        >>> ids = oar.to_tensor([[[2, 2]], [[6, 1]]])
        >>> parents = oar.to_tensor([[[0, 0]], [[1, 0]]])
        >>> oar.nn.functional.gather_tree(ids, parents).numpy().tolist()
        [[[2, 2]], [[6, 1]]]
    """
    if ids.ndim != 3 or list(ids.shape) != list(parents.shape):
        raise ValueError(f"gather_tree: ids and parents must be [max_time, batch, beam] of one shape, got "
                         f"{ids.shape} and {parents.shape}")
    if ids.dtype.name not in ("int32", "int64") or parents.dtype.name != ids.dtype.name:
        raise TypeError(f"gather_tree: ids and parents must be int32 or int64 alike, got {ids.dtype.name} and "
                        f"{parents.dtype.name}")
    return apply(GATHER_TREE, (ids, parents))
