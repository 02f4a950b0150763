"""Sparse tensors: COO (`indices` [sparse_dim, nnz] + `values` [nnz, *dense_dims]) and CSR (`crows`, `cols`,
`values`, for 2-D matrices and 3-D batches of them), as Paddle stores them.

A sparse tensor is a pair of ordinary tensors: its index arrays (int64, never differentiated) and its `values`
(a dense Tensor that may carry gradients). Every sparse op computes its index pattern with the index kernels of
`oar/kernels/sparse.py` and its values with dense oar ops, so autograd works through `values` with no
sparse-specific gradient rules. The index work needs concrete indices, so sparse tensors live in eager mode only.
"""
import math

import numpy as np

from ..core.state import STATE
from ..kernels import sparse as sparse_kernels
from ..eager.tensor import Tensor


def _eager(what):
    if STATE.static:
        raise NotImplementedError(f"{what}: sparse tensors are supported in dynamic (eager) mode only; "
                                  "convert to dense with to_dense() inside static programs")


def _int64(a, what):
    if isinstance(a, Tensor):
        a = a._data
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what} must be integers, got dtype {a.dtype}")
    return a.astype(np.int64)


def _values(v, dtype):
    from ..eager.tensor import to_tensor
    from ..ops.math import cast
    if not isinstance(v, Tensor):
        v = to_tensor(v, dtype=dtype)
    elif dtype is not None:
        v = cast(v, dtype)
    return v


class SparseTensor:
    """What COO and CSR tensors share: shape, dtype, gradients through `values`, conversions and operators."""

    _index_dtype = np.int64  # what indices()/crows()/cols() return; `sparse.cast(index_dtype=...)` changes it
    is_sparse = lambda self: True  # noqa: E731
    is_dense = lambda self: False  # noqa: E731

    @property
    def shape(self):
        return list(self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, v):
        self._values.stop_gradient = v

    def values(self):
        """The stored values (a dense Tensor on the gradient path)."""
        return self._values

    def nnz(self):
        return int(self._values.shape[0])

    def backward(self, grad_tensor=None, retain_graph=False):
        """Backward from this sparse result, seeding its values with ones (or with `grad_tensor`'s values)."""
        seed = grad_tensor.values() if isinstance(grad_tensor, SparseTensor) else grad_tensor
        if seed is None:
            from ..ops.math import ones_like
            seed = ones_like(self._values)
        self._values.backward(seed, retain_graph=retain_graph)

    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def numel(self):
        return math.prod(self._shape)

    def __add__(self, y):
        from . import ops
        return ops.add(self, y)

    def __sub__(self, y):
        from . import ops
        return ops.subtract(self, y)

    def __mul__(self, y):
        from . import ops
        return ops.multiply(self, y)

    __rmul__ = __mul__

    def __truediv__(self, y):
        from . import ops
        return ops.divide(self, y)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    def __matmul__(self, y):
        from . import ops
        return ops.matmul(self, y)

    def astype(self, dtype):
        from . import ops
        return ops.cast(self, value_dtype=dtype)

    def __repr__(self):
        """Paddle's layout: the tensor header, then the index arrays and the values."""
        from ..eager.printing import format_values
        head = (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},")
        fields = self._index_fields() + [("values", self._values)]
        body = [f"       {k}={format_values(v._data, 8 + len(k))}" for k, v in fields]
        return head + "\n" + ",\n".join(body) + ")"


class SparseCooTensor(SparseTensor):
    """A COO sparse tensor; make one with `oar.sparse.sparse_coo_tensor` or ``dense.to_sparse_coo(sparse_dim)``.

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> x.to_dense().numpy().tolist(), x.nnz()
        ([[0.0, 2.0], [3.0, 0.0]], 2)
    """

    def __init__(self, indices, values, shape, coalesced=False):
        self._indices = indices  # np.int64 [sparse_dim, nnz]
        self._values = values
        self._shape = [int(d) for d in shape]
        self._coalesced = coalesced

    def _with_values(self, values):
        return SparseCooTensor(self._indices, values, self._shape, self._coalesced)

    def _index_fields(self):
        return [("indices", self.indices())]

    def indices(self):
        return Tensor._wrap(self._indices.astype(self._index_dtype))

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return self.ndim - self.sparse_dim()

    is_sparse_coo = lambda self: True  # noqa: E731
    is_sparse_csr = lambda self: False  # noqa: E731

    def to_dense(self):
        """The dense tensor (duplicate indices add up).

        Example:
            >>> oar.sparse.sparse_coo_tensor([[0, 0]], [1.0, 2.0], [3]).to_dense().numpy().tolist()
            [3.0, 0.0, 0.0]
        """
        from ..ops.indexing import scatter_nd
        return scatter_nd(Tensor._wrap(sparse_kernels.index_array(self._indices.T)), self._values, self._shape)

    def to_sparse_coo(self, sparse_dim=None):
        if sparse_dim is None or sparse_dim == self.sparse_dim():
            return self
        return to_sparse_coo(self.to_dense(), sparse_dim)

    def to_sparse_csr(self):
        return coo_to_csr(self)

    def coalesce(self):
        from . import ops
        return ops.coalesce(self)


class SparseCsrTensor(SparseTensor):
    """A CSR sparse matrix (2-D) or batch of matrices (3-D, `crows` concatenated per batch).

    Example:
        >>> x = oar.sparse.sparse_csr_tensor([0, 1, 3], [1, 0, 1], [5.0, 6.0, 7.0], [2, 2])
        >>> x.to_dense().numpy().tolist()
        [[0.0, 5.0], [6.0, 7.0]]
    """

    def __init__(self, crows, cols, values, shape):
        self._crows, self._cols = crows, cols  # np.int64
        self._values = values
        self._shape = [int(d) for d in shape]

    def _with_values(self, values):
        return SparseCsrTensor(self._crows, self._cols, values, self._shape)

    def _index_fields(self):
        return [("crows", self.crows()), ("cols", self.cols())]

    def crows(self):
        return Tensor._wrap(self._crows.astype(self._index_dtype))

    def cols(self):
        return Tensor._wrap(self._cols.astype(self._index_dtype))

    is_sparse_coo = lambda self: False  # noqa: E731
    is_sparse_csr = lambda self: True  # noqa: E731

    def to_sparse_coo(self, sparse_dim=None):
        coo = csr_to_coo(self)
        return coo if sparse_dim in (None, self.ndim) else coo.to_sparse_coo(sparse_dim)

    def to_sparse_csr(self):
        return self

    def to_dense(self):
        """The dense matrix (or batch).

        Example:
            >>> oar.sparse.sparse_csr_tensor([0, 1, 1], [0], [4.0], [2, 2]).to_dense().numpy().tolist()
            [[4.0, 0.0], [0.0, 0.0]]
        """
        return csr_to_coo(self).to_dense()


# ---- creation and conversion -----------------------------------------------------------------------------------------
def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO sparse tensor from `indices` [sparse_dim, nnz] and `values` [nnz, *dense_dims]; `shape` defaults to
    the smallest that holds the indices.

    Example:
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
        >>> x.shape, x.indices().shape, x.values().numpy().tolist()
        ([3, 3], [2, 3], [1.0, 2.0, 3.0])
    """
    _eager("sparse_coo_tensor")
    idx = _int64(indices, "indices")
    if idx.ndim != 2:
        raise ValueError(f"indices must be 2-D [sparse_dim, nnz], got shape {list(idx.shape)}")
    vals = _values(values, dtype)
    if vals.ndim < 1 or vals.shape[0] != idx.shape[1]:
        raise ValueError(f"values must have nnz = {idx.shape[1]} rows (one per index column), got shape {vals.shape}")
    if shape is None:
        shape = sparse_kernels.extent(idx) + list(vals.shape[1:])
    shape = [int(d) for d in shape]
    if len(shape) != idx.shape[0] + vals.ndim - 1:
        raise ValueError(f"shape {shape} has {len(shape)} dims, but indices give {idx.shape[0]} sparse dims and "
                         f"values {vals.ndim - 1} dense dims")
    if not sparse_kernels.in_range(idx, shape[:idx.shape[0]]):
        raise ValueError(f"indices out of range for shape {shape}")
    if not stop_gradient:
        vals.stop_gradient = False
    return SparseCooTensor(idx, vals, shape)


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    """A CSR sparse matrix (shape [M, N]) or batch ([B, M, N], with `crows` of B * (M + 1) entries).

    Example:
        >>> x = oar.sparse.sparse_csr_tensor([0, 2, 3], [1, 3, 2], [1.0, 2.0, 3.0], [2, 4])
        >>> x.to_dense().numpy().tolist()
        [[0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 3.0, 0.0]]
    """
    _eager("sparse_csr_tensor")
    crows, cols = _int64(crows, "crows").reshape(-1), _int64(cols, "cols").reshape(-1)
    vals = _values(values, dtype)
    shape = [int(d) for d in shape]
    if len(shape) not in (2, 3):
        raise ValueError(f"a CSR tensor is 2-D or 3-D, got shape {shape}")
    batch, m = (shape[0] if len(shape) == 3 else 1), shape[-2]
    if crows.size != batch * (m + 1):
        raise ValueError(f"crows must have {batch * (m + 1)} entries for shape {shape}, got {crows.size}")
    rows = crows.reshape(batch, m + 1)
    if not sparse_kernels.crows_consistent(rows, cols.size) or vals.ndim != 1 or \
            vals.shape[0] != cols.size:
        raise ValueError(f"inconsistent CSR data: crows {crows.tolist()}, {cols.size} cols, values {vals.shape}")
    if cols.size and (cols.min() < 0 or cols.max() >= shape[-1]):
        raise ValueError(f"cols out of range for shape {shape}")
    if not stop_gradient:
        vals.stop_gradient = False
    return SparseCsrTensor(crows, cols, vals, shape)


def to_sparse_coo(x, sparse_dim):
    """A dense tensor's non-zero entries over its first `sparse_dim` dims as COO (``Tensor.to_sparse_coo``).

    Example:
        >>> x = oar.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo(2)
        >>> x.indices().numpy().tolist(), x.values().numpy().tolist()
        ([[0, 1], [1, 0]], [1.0, 2.0])
    """
    _eager("to_sparse_coo")
    if isinstance(x, SparseTensor):
        return x.to_sparse_coo(sparse_dim)
    sparse_dim = int(sparse_dim)
    if not 0 < sparse_dim <= x.ndim:
        raise ValueError(f"sparse_dim must be in [1, {x.ndim}] for shape {x.shape}, got {sparse_dim}")
    a = x._data
    mask = a != 0
    if sparse_dim < x.ndim:
        mask = mask.any(axis=tuple(range(sparse_dim, x.ndim)))
    idx = sparse_kernels.nonzero_index(mask)
    from ..ops.indexing import gather_nd
    values = gather_nd(x, Tensor._wrap(sparse_kernels.index_array(idx.T)))
    return SparseCooTensor(idx, values, x.shape, coalesced=True)


def to_sparse_csr(x):
    """A dense 2-D or 3-D tensor's non-zero entries as CSR (``Tensor.to_sparse_csr``).

    Example:
        >>> x = oar.to_tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csr()
        >>> x.crows().numpy().tolist(), x.cols().numpy().tolist()
        ([0, 1, 3], [1, 0, 1])
    """
    if isinstance(x, SparseTensor):
        return x.to_sparse_csr()
    if x.ndim not in (2, 3):
        raise ValueError(f"to_sparse_csr needs a 2-D or 3-D tensor, got shape {x.shape}")
    return coo_to_csr(to_sparse_coo(x, x.ndim))


def coo_to_csr(x):
    """COO (all dims sparse, 2-D or 3-D) to CSR: rows sorted, duplicates summed."""
    if x.ndim not in (2, 3) or x.sparse_dim() != x.ndim:
        raise ValueError(f"CSR needs a 2-D or 3-D tensor with every dim sparse, got shape {x.shape} with "
                         f"sparse_dim {x.sparse_dim()}")
    from .ops import coalesce
    x = coalesce(x)
    idx = x._indices
    batch, m = (x.shape[0] if x.ndim == 3 else 1), x.shape[-2]
    crows = sparse_kernels.coo_to_crows(idx, batch, m)
    return SparseCsrTensor(crows, idx[-1].copy(), x._values, x.shape)


def csr_to_coo(x):
    batch, m = (x.shape[0] if x.ndim == 3 else 1), x.shape[-2]
    return SparseCooTensor(sparse_kernels.csr_to_coo_index(x._crows, x._cols, batch, m, x.ndim), x._values, x.shape)


def is_sparse(x):
    return isinstance(x, SparseTensor)
