"""Op-table rows for paddle.sparse (imported by op_table.py). Each row builds sparse tensors with a fixed index
pattern from dense value arrays and returns dense results, so forward values are checked against NumPy and the
gradients of the stored values (and of dense operands) by finite differences. Sparse tensors are eager-only:
the rows carry the "eager_only" tag that the static checks skip."""
import numpy as np

import oar
from op_table import add, generators

randn, pos = generators(14004, 'randn', 'pos')  # own stream: rows added elsewhere do not move these inputs

SP = oar.sparse
SHAPE = [3, 4]
IDX = np.array([[0, 0, 1, 2, 2], [1, 3, 0, 2, 3]])
IDX_B = np.array([[0, 1, 1, 2], [1, 1, 0, 0]])
IDX_DUP = np.array([[2, 0, 2, 1], [3, 1, 3, 0]])
IDX3 = np.array([[0, 0, 1, 1], [0, 2, 1, 2], [1, 0, 2, 1]])  # a [2, 3, 3] batch
E = ("eager_only",)


def dense_np(idx, v, shape):
    out = np.zeros(shape + list(v.shape[1:]))
    np.add.at(out, tuple(idx), v)
    return out


def coo(v, idx=IDX, shape=SHAPE):
    return SP.sparse_coo_tensor(idx, v, shape)


def csr(v):
    return coo(v).to_sparse_csr()


add("sparse_coo_to_dense", lambda v: coo(v).to_dense(), lambda v: dense_np(IDX, v, SHAPE), (randn(5),), tags=E)
add("sparse_coo_dense_dims", lambda v: coo(v, IDX[:1], [3, 2]).to_dense(), lambda v: dense_np(IDX[:1], v, [3]),
    (randn(5, 2),), tags=E)
add("sparse_csr_to_dense", lambda v: csr(v).to_dense(), lambda v: dense_np(IDX, v, SHAPE), (randn(5),), tags=E)
add("sparse_coalesce", lambda v: SP.coalesce(coo(v, IDX_DUP)).values(),
    lambda v: np.array([v[1], v[3], v[0] + v[2]]), (randn(4),), tags=E)
for _name, _fn, _ref, _gen in [("sin", SP.sin, np.sin, randn), ("tanh", SP.tanh, np.tanh, randn),
                               ("asinh", SP.asinh, np.arcsinh, randn),
                               ("atanh", SP.atanh, np.arctanh, lambda *s: 0.5 * np.tanh(randn(*s))),
                               ("sqrt", SP.sqrt, np.sqrt, pos), ("log1p", SP.log1p, np.log1p, pos),
                               ("expm1", SP.expm1, np.expm1, randn), ("square", SP.square, np.square, randn),
                               ("deg2rad", SP.deg2rad, np.deg2rad, randn), ("neg", SP.neg, np.negative, randn),
                               ("relu", SP.nn.functional.relu, lambda v: np.maximum(v, 0), randn),
                               ("leaky_relu", lambda x: SP.nn.functional.leaky_relu(x, 0.2),
                                lambda v: np.where(v > 0, v, 0.2 * v), randn)]:
    add(f"sparse_{_name}", (lambda f: lambda v: f(coo(v)).to_dense())(_fn),
        (lambda r: lambda v: dense_np(IDX, r(v), SHAPE))(_ref), (_gen(5),), tags=E)
add("sparse_pow", lambda v: SP.pow(csr(v), 3).to_dense(), lambda v: dense_np(IDX, v ** 3, SHAPE), (randn(5),), tags=E)
add("sparse_matmul", lambda v, y: SP.matmul(coo(v), y), lambda v, y: dense_np(IDX, v, SHAPE) @ y,
    (randn(5), randn(4, 2)), tags=E)
add("sparse_matmul_csr", lambda v, y: SP.matmul(csr(v), y), lambda v, y: dense_np(IDX, v, SHAPE) @ y,
    (randn(5), randn(4, 3)), tags=E)
add("sparse_matmul_batch", lambda v, y: coo(v, IDX3, [2, 3, 3]).to_sparse_csr() @ y,
    lambda v, y: dense_np(IDX3, v, [2, 3, 3]) @ y, (randn(4), randn(2, 3, 2)), tags=E)
add("sparse_matmul_sparse", lambda a, b: SP.matmul(coo(a), coo(b, IDX_B, [4, 3])).to_dense(),
    lambda a, b: dense_np(IDX, a, SHAPE) @ dense_np(IDX_B, b, [4, 3]), (randn(5), randn(4)), tags=E)
add("sparse_mv", lambda v, x: SP.mv(coo(v), x), lambda v, x: dense_np(IDX, v, SHAPE) @ x, (randn(5), randn(4)),
    tags=E)
add("sparse_masked_matmul", lambda x, y: SP.masked_matmul(x, y, csr(np.ones(5))).to_dense(),
    lambda x, y: (x @ y) * (dense_np(IDX, np.ones(5), SHAPE) != 0), (randn(3, 2), randn(2, 4)), tags=E)
add("sparse_addmm", lambda i, v, y: SP.addmm(i, coo(v), y, beta=0.5, alpha=2.0),
    lambda i, v, y: 0.5 * i + 2.0 * dense_np(IDX, v, SHAPE) @ y, (randn(3, 2), randn(5), randn(4, 2)), tags=E)
for _name, _fn, _ref in [("add", SP.add, np.add), ("subtract", SP.subtract, np.subtract),
                         ("multiply", SP.multiply, np.multiply)]:
    add(f"sparse_{_name}", (lambda f: lambda a, b: f(coo(a), coo(b, IDX_B, SHAPE)).to_dense())(_fn),
        (lambda r: lambda a, b: r(dense_np(IDX, a, SHAPE), dense_np(IDX_B, b, SHAPE)))(_ref),
        (randn(5), randn(4)), tags=E)
add("sparse_divide", lambda a, b: SP.divide(coo(a), coo(b)).values(), lambda a, b: a / b, (randn(5), pos(5)), tags=E)
add("sparse_multiply_dense", lambda a, y: SP.multiply(coo(a), y).to_dense(),
    lambda a, y: dense_np(IDX, a, SHAPE) * y, (randn(5), randn(4)), tags=E)
add("sparse_add_dense", lambda a, y: SP.add(coo(a), y), lambda a, y: dense_np(IDX, a, SHAPE) + y,
    (randn(5), randn(3, 4)), tags=E)
add("sparse_transpose", lambda v: SP.transpose(csr(v), [1, 0]).to_dense(), lambda v: dense_np(IDX, v, SHAPE).T,
    (randn(5),), tags=E)
add("sparse_reshape", lambda v: SP.reshape(coo(v), [2, -1]).to_dense(),
    lambda v: dense_np(IDX, v, SHAPE).reshape(2, 6), (randn(5),), tags=E)
add("sparse_sum", lambda v: (SP.sum(coo(v)).values(), SP.sum(coo(v), axis=1).to_dense()),
    lambda v: (np.array([v.sum()]), dense_np(IDX, v, SHAPE).sum(1)), (randn(5),), tags=E)


def _row_softmax_np(v):
    d = dense_np(IDX, v, SHAPE)
    m = dense_np(IDX, np.ones(5), SHAPE) != 0
    e = np.where(m, np.exp(d - np.where(m, d, -np.inf).max(1, keepdims=True)), 0.0)
    return e / e.sum(1, keepdims=True)


add("sparse_softmax", lambda v: SP.nn.functional.softmax(csr(v)).to_dense(), _row_softmax_np, (randn(5),), tags=E)


# ---- convolution and pooling on channel-last COO grids ---------------------------------------------------------------
SITES3 = np.array([[0, 0, 0, 0], [0, 1, 2, 2], [1, 1, 0, 2], [0, 2, 1, 2]])  # [batch, d, h, w] of 4 active sites
SITES2 = np.array([[0, 0, 1], [0, 2, 1], [1, 3, 0]])


def _conv_np(x, w, stride, pad):
    """Dense channel-last convolution by sliding windows: x [N, *S, C], w [*K, C, M]."""
    nd = w.ndim - 2
    x = np.pad(x, [(0, 0)] + [(pad, pad)] * nd + [(0, 0)])
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[:nd], axis=tuple(range(1, nd + 1)))
    win = win[(slice(None),) + (slice(None, None, stride),) * nd]  # [N, *O, C, *K]
    return np.tensordot(win, w, axes=(list(range(nd + 1, 2 * nd + 2)), [nd] + list(range(nd))))


def _sparse_conv_np(sites, v, shape, w, stride=1, pad=0, subm=False):
    nd = w.ndim - 2
    x = dense_np(sites, v, shape[:-1])
    out = _conv_np(x, w, stride, pad)
    if subm:
        keep = dense_np(sites, np.ones(sites.shape[1]), shape[:-1]) > 0
    else:
        ind = dense_np(sites, np.ones(sites.shape[1]), shape[:-1])[..., None]
        keep = _conv_np(ind, np.ones(w.shape[:nd] + (1, 1)), stride, pad)[..., 0] > 0
    return out * keep[..., None]


def _max_pool_np(sites, v, shape, k):
    x = np.where((dense_np(sites, np.ones(sites.shape[1]), shape[:-1]) > 0)[..., None], dense_np(sites, v, shape[:-1]),
                 -np.inf)
    n, d, h, w_, c = x.shape
    win = x.reshape(n, d // k, k, h // k, k, w_ // k, k, c).max(axis=(2, 4, 6))
    return np.where(np.isfinite(win), win, 0.0)


add("sparse_conv3d", lambda v, w: SP.nn.functional.conv3d(SP.sparse_coo_tensor(SITES3, v, [1, 3, 3, 3, 2]), w)
    .to_dense(), lambda v, w: _sparse_conv_np(SITES3, v, [1, 3, 3, 3, 2], w), (randn(4, 2), randn(2, 2, 2, 2, 3)),
    tags=E)
add("sparse_subm_conv3d", lambda v, w: SP.nn.functional.subm_conv3d(
    SP.sparse_coo_tensor(SITES3, v, [1, 3, 3, 3, 2]), w, padding=1).to_dense(),
    lambda v, w: _sparse_conv_np(SITES3, v, [1, 3, 3, 3, 2], w, pad=1, subm=True),
    (randn(4, 2), randn(3, 3, 3, 2, 2)), tags=E)
add("sparse_conv2d_stride_bias", lambda v, w, b: SP.nn.functional.conv2d(
    SP.sparse_coo_tensor(SITES2, v, [2, 3, 4, 1]), w, b, stride=2, padding=1).to_dense(),
    lambda v, w, b: (lambda o, m: (o + b) * m)(_sparse_conv_np(SITES2, v, [2, 3, 4, 1], w, 2, 1),
                                               _sparse_conv_np(SITES2, np.ones((3, 1)), [2, 3, 4, 1],
                                                               np.ones((2, 2, 1, 1)), 2, 1) != 0),
    (randn(3, 1), randn(2, 2, 1, 2), randn(2)), tags=E)
add("sparse_max_pool3d", lambda v: SP.nn.functional.max_pool3d(SP.sparse_coo_tensor(SITES3, v, [1, 4, 4, 4, 2]), 2)
    .to_dense(), lambda v: _max_pool_np(SITES3, v, [1, 4, 4, 4, 2], 2), (-np.abs(randn(4, 2)) - 0.1,), tags=E)


def _attention_np(q, k, v, mask):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


ATT_MASK = np.tril(np.ones((3, 3))) + np.eye(3, k=2)  # one [batch * heads = 2] layout, rows never empty
add("sparse_attention", lambda q, k, v: SP.nn.functional.attention(
    q, k, v, oar.to_tensor(np.stack([ATT_MASK, ATT_MASK.T])).to_sparse_csr()),
    lambda q, k, v: _attention_np(q, k, v, np.stack([ATT_MASK, ATT_MASK.T]).reshape(1, 2, 3, 3) > 0),
    (randn(1, 2, 3, 4), randn(1, 2, 3, 4), randn(1, 2, 3, 2)), tags=E)
