"""Op-table rows of the nn ops (`oar.nn.functional`: activations, softmax, convolution transpose, pooling,
embedding, batch norm, interpolation, cross entropy), imported by `op_table.py`: forward against NumPy,
float64 finite-difference gradients, static == eager. Inputs keep away from the kinks of piecewise ops."""
import math

import numpy as np

import oar.nn.functional as F
from op_table import add, generators

__all__ = []
randn, pos = generators(41, "randn", "pos")
_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def _selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717):
    return scale * np.where(x > 0, x, alpha * np.expm1(x))


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


_X = [(randn(3, 4) * 3,), (randn(2, 3, 5) * 3,)]
ACTIVATIONS = {  # row name -> (oar function, NumPy reference)
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (lambda x: F.gelu(x, approximate=True),
                  lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (F.silu, lambda x: x * _sigmoid(x)),
    "swish": (F.swish, lambda x: x * _sigmoid(x)),
    "elu": (lambda x: F.elu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    "selu": (F.selu, _selu),
    "softplus": (lambda x: F.softplus(x, beta=2, threshold=3), lambda x: _softplus(x, 2.0, 3.0)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "hardtanh": (F.hardtanh, lambda x: np.clip(x, -1, 1)),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1)),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "mish": (F.mish, lambda x: x * np.tanh(_softplus(x))),
    "logsigmoid": (F.log_sigmoid, lambda x: -np.log1p(np.exp(-x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "celu": (lambda x: F.celu(x, 1.5), lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(x / 1.5))),
    "tanh_inplace": (lambda x: F.tanh_(x * 1.0), np.tanh),
    "elu_inplace": (lambda x: F.elu_(x * 1.0, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    "softmax_inplace": (lambda x: F.softmax_(x * 1.0, 0), lambda x: np.exp(_log_softmax(x, 0))),
    "hardtanh_inplace": (lambda x: F.hardtanh_(x * 1.0, -0.5, 0.8), lambda x: np.clip(x, -0.5, 0.8)),
    "leaky_relu_inplace": (lambda x: F.leaky_relu_(x * 1.0, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "thresholded_relu_inplace": (lambda x: F.thresholded_relu_(x * 1.0, 0.5), lambda x: np.where(x > 0.5, x, 0.0)),
    "hardshrink": (lambda x: F.hardshrink(x, 0.7), lambda x: np.where(np.abs(x) >= 0.7, x, 0.0)),
    "softshrink": (lambda x: F.softshrink(x, 0.7),
                   lambda x: np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0.0))),
    "thresholded_relu": (lambda x: F.thresholded_relu(x, 0.5), lambda x: np.where(x > 0.5, x, 0.0)),
    "softmax": (lambda x: F.softmax(x, axis=0), lambda x: np.exp(_log_softmax(x, 0))),
    "log_softmax": (F.log_softmax, lambda x: _log_softmax(x, -1)),
}
for _name, (_fn, _ref) in ACTIVATIONS.items():
    add(_name, _fn, _ref, *_X)

_w = pos(3)
add("prelu", lambda x, w: F.prelu(x, w), lambda x, w: np.where(x > 0, x, w.reshape(1, 3, 1, 1) * x),
    (randn(2, 3, 4, 4), _w))


def _conv_transpose(x, w, stride, pad):
    """Scatter form (any number of spatial dims): each input pixel adds its weighted kernel into the output, then
    `pad` is cropped from every spatial side."""
    spatial, k = x.shape[2:], w.shape[2:]
    out = np.zeros(x.shape[:1] + w.shape[1:2] + tuple((s - 1) * stride + kk for s, kk in zip(spatial, k)))
    for pos in np.ndindex(*spatial):
        window = (slice(None), slice(None)) + tuple(slice(p * stride, p * stride + kk) for p, kk in zip(pos, k))
        out[window] += np.tensordot(x[(slice(None), slice(None)) + pos], w, axes=(1, 0))
    return out[(slice(None), slice(None)) + tuple(slice(pad, d - pad) for d in out.shape[2:])]


add("conv2d_transpose", lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1),
    lambda x, w: _conv_transpose(x, w, 2, 1), (randn(1, 2, 3, 3), randn(2, 3, 3, 3)))
add("conv3d_transpose", lambda x, w: F.conv3d_transpose(x, w, stride=2, padding=1),
    lambda x, w: _conv_transpose(x, w, 2, 1), (randn(1, 2, 2, 3, 2), randn(2, 2, 3, 3, 3)))


def _bins(size, out):
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive(x, out, reduce):
    rows, cols = _bins(x.shape[2], out), _bins(x.shape[3], out)
    return np.stack([np.stack([reduce(x[:, :, a:b, c:d], axis=(2, 3)) for c, d in cols], -1) for a, b in rows], -2)


_img = randn(2, 3, 5, 5)
add("avg_pool2d", lambda x: F.avg_pool2d(x, 2, 2), lambda x: x[:, :, :4, :4].reshape(2, 3, 2, 2, 2, 2).mean((3, 5)),
    (_img,))
add("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, 3), lambda x: _adaptive(x, 3, np.mean), (_img,))
add("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 3), lambda x: _adaptive(x, 3, np.max),
    (np.random.default_rng(5).permutation(150).reshape(2, 3, 5, 5) * 0.1,))  # no ties: a unique max per bin

_ids = np.array([[0, 3, 1], [4, 4, 2]], np.int64)
add("embedding", lambda i, w: F.embedding(i, w), lambda i, w: w[i], (_ids, randn(5, 4)), diff=(1,))
add("embedding_padding_idx", lambda i, w: F.embedding(i, w, padding_idx=4),
    lambda i, w: np.where((i == 4)[..., None], 0.0, w[i]), (_ids, randn(5, 4)), diff=(1,))

_mean, _var = randn(3), pos(3)
add("batch_norm_eval", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False),
    lambda x, m, v, w, b: (x - m.reshape(1, 3, 1, 1)) / np.sqrt(v.reshape(1, 3, 1, 1) + 1e-5) * w.reshape(1, 3, 1, 1)
    + b.reshape(1, 3, 1, 1), (randn(2, 3, 2, 2), _mean, _var, randn(3), randn(3)), diff=(0, 3, 4))

add("interpolate_nearest", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
    lambda x: x.repeat(2, axis=2).repeat(2, axis=3), (randn(1, 2, 3, 3),))

_labels = np.array([[1], [0], [3]], np.int64)
add("cross_entropy", lambda x, y: F.cross_entropy(x, y),
    lambda x, y: -np.take_along_axis(_log_softmax(x, -1), y, -1).mean(), (randn(3, 4), _labels), diff=(0,))


def _unfold_ref(x, k, s, p, d):
    """Paddle's unfold written as loops: p = (top, left, bottom, right)."""
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])])
    n, c, h, w = xp.shape
    oh, ow = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for ci in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                for a in range(oh):
                    for b in range(ow):
                        out[:, ci * k[0] * k[1] + i * k[1] + j, a * ow + b] = xp[:, ci, a * s[0] + i * d[0],
                                                                                b * s[1] + j * d[1]]
    return out


def _fold_ref(cols, size, k, s, p, d):
    n, ckk, _ = cols.shape
    c = ckk // (k[0] * k[1])
    h, w = size[0] + p[0] + p[2], size[1] + p[1] + p[3]
    oh, ow = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, h, w))
    for ci in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                for a in range(oh):
                    for b in range(ow):
                        out[:, ci, a * s[0] + i * d[0], b * s[1] + j * d[1]] += cols[:, ci * k[0] * k[1] + i * k[1] + j,
                                                                                    a * ow + b]
    return out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]


add("unfold_im2col", lambda x: F.unfold(x, [2, 3], strides=[1, 2], paddings=[1, 0, 0, 2]),
    lambda x: _unfold_ref(x, (2, 3), (1, 2), (1, 0, 0, 2), (1, 1)), (randn(2, 2, 4, 5),))
add("unfold_dilated", lambda x: F.unfold(x, 2, strides=1, paddings=[1, 1], dilations=2),
    lambda x: _unfold_ref(x, (2, 2), (1, 1), (1, 1, 1, 1), (2, 2)), (randn(1, 3, 5, 4),))
add("fold_col2im", lambda x: F.fold(x, [4, 5], [2, 3], strides=[1, 2], paddings=[1, 0, 0, 2]),
    lambda x: _fold_ref(x, (4, 5), (2, 3), (1, 2), (1, 0, 0, 2), (1, 1)), (randn(2, 12, 12),))
add("fold_overlap", lambda x: F.fold(x, [3, 3], 2), lambda x: _fold_ref(x, (3, 3), (2, 2), (1, 1), (0, 0, 0, 0),
                                                                         (1, 1)), (randn(1, 8, 4),))


def _mlsm(x, y, w=None):
    loss = -(y * -np.log1p(np.exp(-x)) + (1 - y) * -np.log1p(np.exp(x)))
    return (loss if w is None else loss * w).mean(-1)


add("multi_label_soft_margin_loss", lambda x, y: F.multi_label_soft_margin_loss(x, y),
    lambda x, y: _mlsm(x, y).mean(), (randn(3, 4), (randn(3, 4) > 0).astype(np.float64)), diff=(0,))
add("multi_label_soft_margin_loss_weight", lambda x, y, w: F.multi_label_soft_margin_loss(x, y, w, reduction="none"),
    lambda x, y, w: _mlsm(x, y, w), (randn(3, 4), (randn(3, 4) > 0).astype(np.float64), pos(4)), diff=(0, 2))


_x4 = randn(2, 6, 3, 2)
add("maxout", lambda x: F.maxout(x, 3), lambda x: x.reshape(2, 2, 3, 3, 2).max(2), (_x4,))
add("maxout_last", lambda x: F.maxout(x, 2, axis=-1), lambda x: x.reshape(2, 6, 3, 1, 2).max(-1), (_x4,))
add("channel_shuffle", lambda x: F.channel_shuffle(x, 3),
    lambda x: x.reshape(2, 3, 2, 3, 2).transpose(0, 2, 1, 3, 4).reshape(x.shape), (_x4,))
add("channel_shuffle_nhwc", lambda x: F.channel_shuffle(x, 2, "NHWC"),
    lambda x: x.reshape(2, 6, 3, 2, 1).transpose(0, 1, 2, 4, 3).reshape(x.shape), (_x4,))
add("zeropad2d", lambda x: F.zeropad2d(x, [1, 0, 0, 2]), lambda x: np.pad(x, [(0, 0), (0, 0), (0, 2), (1, 0)]),
    (_x4,))
add("pairwise_distance", lambda x, y: F.pairwise_distance(x, y),
    lambda x, y: np.sqrt(((x - y + 1e-6) ** 2).sum(-1)), (randn(4, 5), randn(4, 5)))
add("pairwise_distance_p1_keepdim", lambda x, y: F.pairwise_distance(x, y, p=1, keepdim=True),
    lambda x, y: np.abs(x - y + 1e-6).sum(-1, keepdims=True), (randn(4, 5), randn(5)))
add("sequence_mask", lambda n: F.sequence_mask(n, 5), lambda n: (np.arange(5) < n[..., None]).astype(np.int64),
    (np.array([[0, 3], [5, 1]]),))
add("sequence_mask_float", lambda n: F.sequence_mask(n, dtype="float64"),
    lambda n: (np.arange(n.max()) < n[..., None]).astype(np.float64), (np.array([2, 4, 1]),))
_sign = np.where(randn(3, 4) > 0, 1.0, -1.0)
add("soft_margin_loss", lambda x, y: F.soft_margin_loss(x, y), lambda x, y: np.log1p(np.exp(-y * x)).mean(),
    (randn(3, 4), _sign), diff=(0,))
add("log_loss", lambda p, y: F.log_loss(p, y), lambda p, y: -y * np.log(p + 1e-4) - (1 - y) * np.log(1 - p + 1e-4),
    (np.random.default_rng(2).uniform(0.1, 0.9, (4, 1)), np.array([[1.0], [0.0], [1.0], [0.0]])), diff=(0,))


def _dice(p, y):
    onehot = np.eye(p.shape[-1])[y[..., 0]]
    dims = tuple(range(1, p.ndim))
    return (1 - 2 * (p * onehot).sum(dims) / (p.sum(dims) + onehot.sum(dims) + 1e-5)).mean()


add("dice_loss", lambda p, y: F.dice_loss(p, y), _dice,
    (np.random.default_rng(4).uniform(0.1, 0.9, (2, 3, 4)), np.random.default_rng(5).integers(0, 4, (2, 3, 1))),
    diff=(0,))
