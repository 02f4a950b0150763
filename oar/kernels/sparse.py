"""Index kernels of the sparse tensors (oar/sparse): COO index arithmetic (linear positions, coalescing,
unions of patterns), COO <-> CSR conversion, validation of user-given indices and the active-site indicators of
sparse convolutions. Values are computed with ops above; these kernels touch only int64 index arrays."""
import numpy as np


def index_array(a):
    """`a` as a contiguous int64 array (what gather / index_add read as indices)."""
    return np.ascontiguousarray(a, dtype=np.int64)


def linear_index(indices, shape, nnz):
    """Row-major position in `shape` of each of the `nnz` columns of `indices` [len(shape), nnz]."""
    if nnz == 0 or indices.shape[0] == 0:
        return np.zeros(nnz, np.int64)
    return np.ravel_multi_index(tuple(indices), shape)


def unravel_index(lin, shape):
    """The inverse of `linear_index`: indices [len(shape), lin.size]."""
    return np.stack(np.unravel_index(lin, shape)).astype(np.int64).reshape(len(shape), -1)


def is_sorted_unique(lin):
    return lin.size == 0 or bool(np.all(np.diff(lin) > 0))


def unique_inverse(lin):
    """(sorted unique positions, the position of each input among them)."""
    uniq, inverse = np.unique(lin, return_inverse=True)
    return uniq, inverse.reshape(-1)


def union_positions(la, lb):
    """(sorted union of two sorted position lists, where each of `la` and of `lb` sits in it)."""
    union = np.union1d(la, lb)
    return union, np.searchsorted(union, la), np.searchsorted(union, lb)


def zero_index(sparse_dim, nnz):
    return np.zeros((sparse_dim, nnz), np.int64)


def nonzero_index(mask):
    """Indices [mask.ndim, nnz] of the true entries of `mask`, row-major."""
    return np.stack(np.nonzero(mask)).astype(np.int64).reshape(mask.ndim, -1)


def extent(indices):
    """The smallest sparse shape holding `indices`: one past each row's maximum."""
    top = indices.max(axis=1) if indices.shape[1] else np.zeros(indices.shape[0], np.int64)
    return [int(m) + 1 for m in top]


def in_range(indices, shape):
    return not indices.size or (indices.min() >= 0 and not np.any(indices.max(axis=1) >= np.asarray(shape)))


def crows_consistent(rows, nnz):
    """Whether CSR row pointers `rows` [batch, M + 1] never decrease and hold `nnz` entries in all."""
    return not np.any(np.diff(rows, axis=1) < 0) and rows[:, -1].sum() == nnz


def coo_to_crows(indices, batch, m):
    """CSR row pointers (batch * (M + 1) of them) of coalesced 2-D or 3-D (batch first) COO `indices`."""
    b = indices[0] if indices.shape[0] == 3 else np.zeros(indices.shape[1], np.int64)
    counts = np.bincount(b * m + indices[-2], minlength=batch * m).reshape(batch, m)
    return np.concatenate([np.zeros((batch, 1), np.int64), np.cumsum(counts, axis=1)], axis=1).reshape(-1)


def csr_to_coo_index(crows, cols, batch, m, ndim):
    """COO indices [ndim, nnz] of a CSR matrix (ndim 2) or batch of them (ndim 3)."""
    counts = np.diff(crows.reshape(batch, m + 1), axis=1).reshape(-1)
    flat_rows = np.repeat(np.arange(batch * m), counts)
    idx = [flat_rows % m, cols]
    if ndim == 3:
        idx.insert(0, flat_rows // m)
    return np.stack(idx).astype(np.int64)


def active_indicator(indices, shape, dtype):
    """1 at each site of `indices` [1 + nd, nnz] (batch, spatial...) in a [N, 1, *spatial] array, else 0."""
    mask = np.zeros([shape[0], 1] + list(shape[1:]), dtype)
    mask[(indices[0], np.zeros(indices.shape[1], np.int64)) + tuple(indices[1:])] = 1
    return mask


def segment_max(values, group, n):
    """The maximum of `values` over each of `n` groups, spread back to every entry of the group."""
    peak = np.full(n, -np.inf)
    np.maximum.at(peak, group, values)
    return peak[group]
