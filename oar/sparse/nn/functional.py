"""`paddle.sparse.nn.functional`: activations on the stored values of sparse tensors, and `softmax` over the
stored entries of each row."""
import math

import numpy as np

from ...kernels import sparse as K
from ...nn import functional as F
from ...ops import math as M
from ...ops.indexing import gather
from ..ops import _coo, _back, _index, _segment_sum
from ..tensor import SparseTensor


def _check(x, what):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"sparse.nn.functional.{what} expects a sparse tensor, got {type(x).__name__}")
    return x


def relu(x, name=None):
    """``max(x, 0)`` on the stored values.

    Example:
        >>> x = oar.to_tensor([-2.0, 0.0, 1.0]).to_sparse_coo(1)
        >>> oar.sparse.nn.functional.relu(x).values().numpy().tolist()
        [0.0, 1.0]
    """
    return _check(x, "relu")._with_values(F.relu(x.values()))


def relu6(x, name=None):
    """``min(max(x, 0), 6)`` on the stored values.

    Example:
        >>> x = oar.to_tensor([-2.0, 0.0, 8.0]).to_sparse_coo(1)
        >>> oar.sparse.nn.functional.relu6(x).values().numpy().tolist()
        [0.0, 6.0]
    """
    return _check(x, "relu6")._with_values(F.relu6(x.values()))


def leaky_relu(x, negative_slope=0.01, name=None):
    """Leaky ReLU on the stored values.

    Example:
        >>> x = oar.to_tensor([-2.0, 0.0, 1.0]).to_sparse_coo(1)
        >>> oar.sparse.nn.functional.leaky_relu(x, 0.5).values().numpy().tolist()
        [-1.0, 1.0]
    """
    return _check(x, "leaky_relu")._with_values(F.leaky_relu(x.values(), negative_slope))


def softmax(x, axis=-1, name=None):
    """Softmax over the stored entries of each row (the last axis); absent entries stay absent (not exp(0)).

    Example:
        >>> x = oar.to_tensor([[0.0, 1.0, 1.0], [2.0, 0.0, 0.0]]).to_sparse_csr()
        >>> oar.sparse.nn.functional.softmax(x).to_dense().numpy().tolist()
        [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]
    """
    _check(x, "softmax")
    if axis not in (-1, x.ndim - 1):
        raise ValueError(f"sparse softmax works along the last axis, got axis={axis}")
    c = _coo(x, "softmax")
    if c.sparse_dim() != c.ndim:
        raise ValueError("sparse softmax needs every dim sparse (values of shape [nnz])")
    lead = c._indices[:-1]
    uniq, group = K.unique_inverse(K.linear_index(lead, c.shape[:-1], c.nnz()))
    v = c.values()
    peak = K.segment_max(v._data, group, uniq.size)  # a per-row shift for stability; softmax does not depend on it
    e = M.exp(v - M.cast(_index_values(peak), v.dtype))
    total = _segment_sum(e, group, uniq.size)
    return _back(x, c._with_values(e / gather(total, _index(group))))


def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """``softmax(Q K^T / sqrt(d)) V`` with the score matrix kept only at the entries of `sparse_mask` (a CSR
    tensor of shape [batch * heads, seq, seq]); q, k, v are dense [batch, heads, seq, head_dim].

    Example:
        >>> q = oar.ones([1, 1, 3, 2], dtype='float64')
        >>> mask = oar.to_tensor(np.tril(np.ones([1, 3, 3]))).to_sparse_csr()
        >>> v = oar.to_tensor([[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]]], dtype='float64')
        >>> oar.sparse.nn.functional.attention(q, q, v, mask).numpy().round(4).tolist()[0][0]
        [[1.0, 0.0], [0.5, 0.5], [0.6667, 0.6667]]
    """
    if key_padding_mask is not None or attn_mask is not None:
        raise NotImplementedError("sparse attention with key_padding_mask / attn_mask is not supported; fold the "
                                  "masks into sparse_mask's pattern")
    from ...ops.manipulation import reshape
    from ..ops import masked_matmul, matmul
    b, h, s, d = query.shape
    flat = [b * h, s, d]
    q = reshape(query, flat) * (1.0 / math.sqrt(d))
    scores = masked_matmul(q, _transpose_last(reshape(key, flat)), sparse_mask)
    return reshape(matmul(softmax(scores), reshape(value, [b * h, s, value.shape[-1]])), [b, h, s, value.shape[-1]])


def _transpose_last(t):
    from ...ops.manipulation import transpose
    return transpose(t, [0, 2, 1])


def _index_values(a):
    from ...eager.tensor import Tensor
    return Tensor._wrap(np.asarray(a))


from .conv import conv2d, conv3d, subm_conv2d, subm_conv3d, max_pool3d  # noqa: E402

__all__ = ["relu", "relu6", "leaky_relu", "softmax", "attention", "conv2d", "conv3d", "subm_conv2d", "subm_conv3d",
           "max_pool3d"]
