"""Sparse ops of `paddle.sparse`: value-wise unary functions, coalesce, cast, transpose, reshape, sum, elementwise
binary ops, matmul / mv / masked_matmul / addmm. Index patterns are NumPy; values go through dense oar ops, so
gradients reach the inputs' values (and dense operands) through the ordinary tape."""
import math

from ..kernels import sparse as K
from ..ops import math as M
from ..ops.creation import zeros
from ..ops.indexing import gather, index_add
from ..ops.linalg import matmul as dense_matmul
from ..ops.manipulation import reshape as dense_reshape, transpose as dense_transpose, unsqueeze
from ..ops.reduction import sum as dense_sum
from ..eager.tensor import Tensor
from .tensor import SparseTensor, SparseCooTensor, SparseCsrTensor, coo_to_csr, csr_to_coo, to_sparse_coo, _eager


def _coo(x, what):
    _eager(what)
    if isinstance(x, SparseCsrTensor):
        return csr_to_coo(x)
    if isinstance(x, SparseCooTensor):
        return x
    raise TypeError(f"{what} expects a sparse tensor (COO or CSR), got {type(x).__name__}")


def _back(like, coo):
    """The result in the input's format (CSR in, CSR out)."""
    return coo_to_csr(coo) if isinstance(like, SparseCsrTensor) and coo.ndim in (2, 3) else coo


def _index(a):
    return Tensor._wrap(K.index_array(a))


def _lin(coo):
    return K.linear_index(coo._indices, coo.shape[:coo.sparse_dim()], coo.nnz())


def _segment_sum(values, seg, n):
    """Sums rows of `values` that share a segment id (differentiable in `values`)."""
    return index_add(zeros([n] + values.shape[1:], values.dtype), _index(seg), 0, values)


# ---- structure -------------------------------------------------------------------------------------------------------
def coalesce(x, name=None):
    """Sorts a COO tensor's indices (row-major) and sums the values of duplicate indices.

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 3.0], [2])
        >>> y = oar.sparse.coalesce(x)
        >>> y.indices().numpy().tolist(), y.values().numpy().tolist()
        ([[0, 1]], [2.0, 4.0])
    """
    x = _coo(x, "coalesce")
    if x._coalesced:
        return x
    lin = _lin(x)
    if K.is_sorted_unique(lin):
        return SparseCooTensor(x._indices, x._values, x.shape, coalesced=True)
    uniq, inverse = K.unique_inverse(lin)
    idx = K.unravel_index(uniq, x.shape[:x.sparse_dim()])
    return SparseCooTensor(idx, _segment_sum(x._values, inverse, uniq.size), x.shape, coalesced=True)


def is_same_shape(x, y):
    """Whether two (sparse or dense) tensors have the same shape.

    Example:
        >>> oar.sparse.is_same_shape(oar.ones([2, 3]).to_sparse_coo(2), oar.ones([2, 3]))
        True
    """
    return list(x.shape) == list(y.shape)


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """Casts the indices (an integer dtype) and/or the values of a sparse tensor.

    Example:
        >>> y = oar.sparse.cast(oar.ones([2]).to_sparse_coo(1), index_dtype='int32', value_dtype='float64')
        >>> y.indices().dtype, y.dtype
        (paddle.int32, paddle.float64)
    """
    if not isinstance(x, SparseTensor):
        raise TypeError(f"cast expects a sparse tensor, got {type(x).__name__}")
    out = x._with_values(M.cast(x._values, value_dtype) if value_dtype is not None else x._values)
    if index_dtype is not None:
        from ..core import dtype as D
        dt = D.convert_dtype(index_dtype)
        if dt.kind not in "iu":
            raise TypeError(f"index_dtype must be an integer dtype, got {index_dtype}")
        out._index_dtype = dt.np
    return out


def transpose(x, perm, name=None):
    """Permutes the dims of a sparse tensor (sparse dims among themselves, dense dims among themselves).

    Example:
        >>> x = oar.to_tensor([[0.0, 1.0], [2.0, 0.0], [0.0, 3.0]]).to_sparse_coo(2)
        >>> oar.sparse.transpose(x, [1, 0]).to_dense().numpy().tolist()
        [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]]
    """
    c = _coo(x, "transpose")
    perm = [int(p) % c.ndim for p in perm]
    sd = c.sparse_dim()
    if sorted(perm[:sd]) != list(range(sd)):
        raise ValueError(f"transpose: perm {perm} moves dims between the sparse part (first {sd}) and the dense part")
    values = c._values
    if perm[sd:] != list(range(sd, c.ndim)):
        values = dense_transpose(values, [0] + [p - sd + 1 for p in perm[sd:]])
    out = coalesce(SparseCooTensor(c._indices[perm[:sd]], values, [c.shape[p] for p in perm]))
    return _back(x, out)


def reshape(x, shape, name=None):
    """Reshapes the sparse dims of a sparse tensor (the dense dims stay as they are; one -1 is inferred).

    Example:
        >>> x = oar.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]).to_sparse_coo(2)
        >>> oar.sparse.reshape(x, [3, 2]).to_dense().numpy().tolist()
        [[0.0, 1.0], [0.0, 2.0], [0.0, 0.0]]
    """
    c = _coo(x, "reshape")
    sd = c.sparse_dim()
    # a 0 keeps the input's dim at that position (Paddle's reshape rule)
    shape = [c.shape[i] if int(d) == 0 and i < len(c.shape) else int(d) for i, d in enumerate(shape)]
    dense = c.shape[sd:]
    n_sparse = math.prod(c.shape[:sd])
    new_sparse = shape[:len(shape) - len(dense)] if dense else shape
    if dense and shape[len(shape) - len(dense):] != dense:
        raise ValueError(f"reshape: the dense dims {dense} must stay at the end of the new shape {shape}")
    if new_sparse.count(-1) == 1:
        known = math.prod(d for d in new_sparse if d != -1)
        new_sparse[new_sparse.index(-1)] = n_sparse // max(known, 1)
    if math.prod(new_sparse) != n_sparse:
        raise ValueError(f"reshape: cannot reshape sparse dims {c.shape[:sd]} into {new_sparse}")
    idx = K.unravel_index(_lin(c), new_sparse)
    return _back(x, SparseCooTensor(idx, c._values, new_sparse + dense, c._coalesced))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over `axis` as a sparse tensor (all elements when None: a one-element tensor). As in Paddle, a sum
    over every sparse dim keeps one sparse dim of size 1.

    Example:
        >>> x = oar.to_tensor([[-2.0, 0.0], [1.0, 2.0]]).to_sparse_coo(1)
        >>> oar.sparse.sum(x).values().numpy().tolist(), oar.sparse.sum(x, axis=-1).to_dense().numpy().tolist()
        ([1.0], [-2.0, 3.0])
        >>> y = oar.sparse.sum(x, axis=0)
        >>> y.shape, y.values().numpy().tolist()
        ([1, 2], [[-1.0, 2.0]])
    """
    c = _coo(x, "sum")
    v = c._values if dtype is None else M.cast(c._values, dtype)
    if v.dtype.kind in "bi" and v.dtype.name != "int64":
        v = M.cast(v, "int64")
    if axis is None:
        total = dense_reshape(dense_sum(v), [1])
        return SparseCooTensor(K.zero_index(1, 1), total, [1], coalesced=True)
    out = dense_sum(c._with_values(v).to_dense(), axis=axis, keepdim=keepdim)
    axes = {int(a) % c.ndim for a in ([axis] if isinstance(axis, int) else axis)}
    sparse_dim = c.sparse_dim() - len([a for a in axes if a < c.sparse_dim()]) if not keepdim else c.sparse_dim()
    if sparse_dim == 0:  # every sparse dim summed away: keep one of size 1
        out, sparse_dim = unsqueeze(out, 0), 1
    res = to_sparse_coo(out, sparse_dim)
    return _back(x, res) if out.ndim in (2, 3) else res


# ---- value-wise unary functions (zero stays zero) --------------------------------------------------------------------
def _unary(fn, doc_name, example):
    def op(x, name=None):
        if not isinstance(x, SparseTensor):
            raise TypeError(f"sparse.{doc_name} expects a sparse tensor, got {type(x).__name__}")
        return x._with_values(fn(x._values))
    op.__name__ = op.__qualname__ = doc_name
    show = ".tolist()" if doc_name == "isnan" else ".round(4).tolist()"
    op.__doc__ = (f"``{doc_name}`` of the stored values of a sparse tensor (the pattern is kept).\n\n"
                  f"    Example:\n        >>> x = oar.to_tensor([0.0, 0.5], dtype='float64').to_sparse_coo(1)\n"
                  f"        >>> oar.sparse.{doc_name}(x).values().numpy(){show}\n        {example}\n")
    return op


def _asinh(v):
    return M.log(v + M.sqrt(v * v + 1.0))


def _atanh(v):
    return 0.5 * M.log1p(2.0 * v / (1.0 - v))


sin = _unary(M.sin, "sin", [0.4794])
tan = _unary(M.tan, "tan", [0.5463])
asin = _unary(M.asin, "asin", [0.5236])
atan = _unary(M.atan, "atan", [0.4636])
sinh = _unary(M.sinh, "sinh", [0.5211])
tanh = _unary(M.tanh, "tanh", [0.4621])
asinh = _unary(_asinh, "asinh", [0.4812])
atanh = _unary(_atanh, "atanh", [0.5493])
sqrt = _unary(M.sqrt, "sqrt", [0.7071])
square = _unary(M.square, "square", [0.25])
log1p = _unary(M.log1p, "log1p", [0.4055])
abs = _unary(M.abs, "abs", [0.5])
neg = _unary(M.neg, "neg", [-0.5])
expm1 = _unary(M.expm1, "expm1", [0.6487])
deg2rad = _unary(lambda v: v * (math.pi / 180.0), "deg2rad", [0.0087])
rad2deg = _unary(lambda v: v * (180.0 / math.pi), "rad2deg", [28.6479])
isnan = _unary(M.isnan, "isnan", [False])


def pow(x, factor, name=None):
    """The stored values raised to `factor`.

    Example:
        >>> oar.sparse.pow(oar.to_tensor([0.0, 3.0]).to_sparse_coo(1), 2).values().numpy().tolist()
        [9.0]
    """
    return x._with_values(M.pow(x._values, float(factor)))


# ---- elementwise binary ops ------------------------------------------------------------------------------------------
def _union(a, b):
    """Both operands' values laid out on the union of their index patterns (missing entries are zeros)."""
    if a.shape != b.shape or a.sparse_dim() != b.sparse_dim():
        raise ValueError(f"sparse elementwise ops need equal shapes and sparse dims, got {a.shape} (sparse_dim "
                         f"{a.sparse_dim()}) and {b.shape} (sparse_dim {b.sparse_dim()})")
    a, b = coalesce(a), coalesce(b)
    la, lb = _lin(a), _lin(b)
    union, pa, pb = K.union_positions(la, lb)
    va = _segment_sum(a._values, pa, union.size)
    vb = _segment_sum(b._values, pb, union.size)
    idx = K.unravel_index(union, a.shape[:a.sparse_dim()])
    return idx, va, vb


def _binary(x, y, fn, what, dense_result):
    if isinstance(x, SparseTensor) and isinstance(y, SparseTensor):
        idx, va, vb = _union(_coo(x, what), _coo(y, what))
        return _back(x, SparseCooTensor(idx, fn(va, vb), x.shape, coalesced=True))
    if isinstance(x, SparseTensor) and isinstance(y, (int, float)):
        return x._with_values(fn(x._values, y))
    if isinstance(x, SparseTensor) and dense_result:  # sparse with dense: a dense result
        return fn(x.to_dense(), y)
    if isinstance(x, SparseTensor):  # keep x's pattern: read y at x's entries
        c = coalesce(_coo(x, what))
        from ..ops.manipulation import broadcast_to
        from ..ops.indexing import gather_nd
        yv = gather_nd(broadcast_to(y, c.shape), _index(c._indices.T))
        return _back(x, c._with_values(fn(c._values, yv)))
    raise TypeError(f"sparse.{what} expects a sparse first operand, got {type(x).__name__}")


def add(x, y, name=None):
    """Elementwise sum: sparse + sparse (same shape) is sparse; sparse + dense is dense.

    Example:
        >>> a = oar.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo(2)
        >>> b = oar.to_tensor([[0.0, 3.0], [0.0, 4.0]]).to_sparse_coo(2)
        >>> oar.sparse.add(a, b).to_dense().numpy().tolist()
        [[0.0, 4.0], [2.0, 4.0]]
    """
    return _binary(x, y, M.add, "add", True)


def subtract(x, y, name=None):
    """Elementwise difference: sparse - sparse (same shape) is sparse; sparse - dense is dense.

    Example:
        >>> a = oar.to_tensor([0.0, 1.0, 2.0]).to_sparse_coo(1)
        >>> oar.sparse.subtract(a, a).to_dense().numpy().tolist()
        [0.0, 0.0, 0.0]
    """
    return _binary(x, y, M.subtract, "subtract", True)


def multiply(x, y, name=None):
    """Elementwise product: with a sparse, dense or scalar `y`, the result is sparse.

    Example:
        >>> a = oar.to_tensor([0.0, 1.0, 2.0]).to_sparse_coo(1)
        >>> oar.sparse.multiply(a, oar.to_tensor([5.0, 5.0, 3.0])).to_dense().numpy().tolist()
        [0.0, 5.0, 6.0]
    """
    return _binary(x, y, M.multiply, "multiply", False)


def divide(x, y, name=None):
    """Elementwise quotient on the stored pattern (entries stored in neither operand stay implicit zeros).

    Example:
        >>> a = oar.to_tensor([0.0, 1.0, 2.0]).to_sparse_coo(1)
        >>> oar.sparse.divide(a, 2.0).values().numpy().tolist()
        [0.5, 1.0]
    """
    return _binary(x, y, M.divide, "divide", False)


# ---- products --------------------------------------------------------------------------------------------------------
def _rows_cols(c):
    """Flat (row, col) of each entry of a 2-D or 3-D all-sparse COO tensor, batches stacked into rows/cols."""
    if c.ndim not in (2, 3) or c.sparse_dim() != c.ndim:
        raise ValueError(f"sparse matmul needs 2-D or 3-D tensors with every dim sparse, got shape {c.shape}")
    if c.ndim == 2:
        return c._indices[0], c._indices[1]
    b, r, k = c._indices
    return b * c.shape[1] + r, b * c.shape[2] + k


def matmul(x, y, name=None):
    """Matrix product with a sparse `x` (2-D or batched 3-D): with dense `y` the result is dense, with sparse `y`
    sparse (in x's format).

    Example:
        >>> a = oar.to_tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse_csr()
        >>> oar.sparse.matmul(a, oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist()
        [[6.0, 8.0], [1.0, 2.0]]
    """
    c = _coo(x, "matmul")
    if isinstance(y, SparseTensor):
        out = dense_matmul(c.to_dense(), y.to_dense())
        return _back(x, to_sparse_coo(out, out.ndim))
    if y.ndim != c.ndim or y.shape[-2] != c.shape[-1]:
        raise ValueError(f"sparse matmul: shapes {c.shape} and {y.shape} do not multiply")
    rows, cols = _rows_cols(c)
    n_out = y.shape[-1]
    y2 = dense_reshape(y, [-1, n_out])
    contrib = unsqueeze(c._values, -1) * gather(y2, _index(cols))
    out = index_add(zeros([math.prod(c.shape[:-1]), n_out], contrib.dtype), _index(rows), 0, contrib)
    return dense_reshape(out, c.shape[:-1] + [n_out])


def mv(x, vec, name=None):
    """Sparse matrix times dense vector: a dense vector.

    Example:
        >>> a = oar.to_tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse_coo(2)
        >>> oar.sparse.mv(a, oar.to_tensor([1.0, 3.0])).numpy().tolist()
        [6.0, 1.0]
    """
    from ..ops.manipulation import squeeze
    return squeeze(matmul(x, unsqueeze(vec, -1)), -1)


def masked_matmul(x, y, mask, name=None):
    """Dense ``x @ y`` computed only at the entries of the sparse `mask`: a sparse result with mask's pattern.

    Example:
        >>> mask = oar.to_tensor([[1.0, 0.0], [0.0, 1.0]]).to_sparse_csr()
        >>> x, y = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]), oar.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> oar.sparse.masked_matmul(x, y, mask).to_dense().numpy().tolist()
        [[1.0, 0.0], [0.0, 4.0]]
    """
    c = _coo(mask, "masked_matmul")
    rows, cols = _rows_cols(c)
    xr = gather(dense_reshape(x, [-1, x.shape[-1]]), _index(rows))
    yt = dense_reshape(dense_transpose(y, list(range(y.ndim - 2)) + [y.ndim - 1, y.ndim - 2]), [-1, y.shape[-2]])
    values = dense_sum(xr * gather(yt, _index(cols)), axis=-1)
    return _back(mask, SparseCooTensor(c._indices, values, c.shape, c._coalesced))


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """``beta * input + alpha * (x @ y)`` with a sparse `x`: dense with dense `input` and `y`, sparse when all
    three are sparse.

    Example:
        >>> a = oar.to_tensor([[0.0, 2.0], [1.0, 0.0]]).to_sparse_coo(2)
        >>> oar.sparse.addmm(oar.ones([2, 2]), a, oar.eye(2), beta=0.5).numpy().tolist()
        [[0.5, 2.5], [1.5, 0.5]]
    """
    prod = matmul(x, y)
    if isinstance(input, SparseTensor):
        return add(multiply(input, float(beta)), multiply(prod, float(alpha)) if isinstance(prod, SparseTensor)
                   else prod * alpha)
    return input * beta + prod * alpha
