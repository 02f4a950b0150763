"""Losses on distances and margins between embeddings or class scores: triplet margin (with a distance function or
the p-norm), multi-class margin and N-pair. All compose other ops (their gradients follow)."""
from ...ops import linalg as LA
from ...ops import logic as L
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from ...ops.indexing import take_along_axis
from ...ops.nn.common import pairwise_distance
from .loss import _reduce, softmax_with_cross_entropy


def _check_triplet(input, positive, negative, margin, reduction, fn):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if margin < 0:
        raise ValueError(f"{fn}: margin must be >= 0, got {margin}")
    if not (list(input.shape) == list(positive.shape) == list(negative.shape)):
        raise ValueError(f"{fn}: input, positive and negative must have one shape, got {input.shape}, "
                         f"{positive.shape}, {negative.shape}")


def _triplet(dist, input, positive, negative, margin, swap, reduction):
    d_pos, d_neg = dist(input, positive), dist(input, negative)
    if swap:
        d_neg = M.minimum(d_neg, dist(positive, negative))
    return _reduce(M.clip(d_pos - d_neg + margin, min=0.0), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False, reduction="mean",
                        name=None):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with d the p-norm distance of `pairwise_distance` (`epsilon` added to
    the difference); `swap` uses ``min(d(a, n), d(p, n))`` as the negative distance.

    Example:
        >>> import oar.nn.functional as F
        >>> a, p, n = oar.to_tensor([[1.0, 0.0]]), oar.to_tensor([[1.0, 1.0]]), oar.to_tensor([[0.0, 0.0]])
        >>> round(float(F.triplet_margin_loss(a, p, n, epsilon=0.0)), 4)
        1.0
    """
    _check_triplet(input, positive, negative, margin, reduction, "triplet_margin_loss")
    return _triplet(lambda x, y: pairwise_distance(x, y, p=p, epsilon=epsilon), input, positive, negative, margin,
                    swap, reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean", name=None):
    """`triplet_margin_loss` with any distance (default: the Euclidean `pairwise_distance`); distances must be >= 0.

    Example:
        >>> import oar.nn.functional as F
        >>> a, p, n = oar.to_tensor([[1.0, 0.0]]), oar.to_tensor([[1.0, 1.0]]), oar.to_tensor([[0.0, 0.0]])
        >>> l1 = lambda x, y: (x - y).abs().sum(-1)
        >>> float(F.triplet_margin_with_distance_loss(a, p, n, distance_function=l1, margin=0.5))
        0.5
    """
    _check_triplet(input, positive, negative, margin, reduction, "triplet_margin_with_distance_loss")
    dist = distance_function if distance_function is not None else lambda x, y: pairwise_distance(x, y, p=2.0)

    def checked(x, y):
        d = dist(x, y)
        if not bool(L.all(d >= 0)):
            raise ValueError("triplet_margin_with_distance_loss: the distance function returned a negative distance")
        return d
    return _triplet(checked, input, positive, negative, margin, swap, reduction)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """Multi-class hinge loss: per sample ``sum_{j != y} w[y] * max(0, margin - x[y] + x[j])^p / C``.

    Paddle's docstring puts the weight inside the max; its code (followed here, as PyTorch does) multiplies outside.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.to_tensor([[1.0, 0.5, 2.0]])
        >>> round(float(F.multi_margin_loss(x, oar.to_tensor([0]))), 4)
        0.8333
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"multi_margin_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if input.ndim != 2 or label.shape[0] != input.shape[0]:
        raise ValueError(f"multi_margin_loss: input must be [N, C] and label [N], got {input.shape} and "
                         f"{label.shape}")
    label = S.reshape(label, [-1, 1])
    n_class = input.shape[1]
    picked = take_along_axis(input, label, axis=1)
    terms = M.pow(M.clip(margin - picked + input, min=0.0), p)
    # the j == y term is margin^p: taken out again below
    if weight is None:
        loss = R.mean(terms, axis=1) - margin ** p / n_class
    else:
        if weight.shape != [n_class]:
            raise ValueError(f"multi_margin_loss: weight must have shape [{n_class}], got {weight.shape}")
        w = S.reshape(weight.gather(S.reshape(label, [-1]), axis=0), [-1, 1])
        loss = R.mean(w * terms, axis=1) - S.reshape(w, [-1]) * (margin ** p / n_class)
    return _reduce(loss, reduction)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss (Sohn 2016): softmax cross entropy of ``anchor @ positive^T`` against the label-equality matrix
    (rows normalised), plus ``l2_reg / 4`` times the mean squared norms of anchor and positive.

    Example:
        >>> import oar.nn.functional as F
        >>> a = oar.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> round(float(F.npair_loss(a, a, oar.to_tensor([0, 1]), l2_reg=0.0)), 4)
        0.3133
    """
    n = labels.shape[0]
    lab = S.reshape(labels, [n, 1])
    same = M.cast(L.equal(lab, S.transpose(lab, [1, 0])), anchor.dtype)
    target = same / R.sum(same, axis=1, keepdim=True)
    l2 = R.mean(R.sum(M.square(anchor), axis=1)) + R.mean(R.sum(M.square(positive), axis=1))
    sim = LA.matmul(anchor, positive, transpose_y=True)
    ce = softmax_with_cross_entropy(sim, target, soft_label=True)
    return l2 * (0.25 * l2_reg) + R.mean(R.sum(target * ce, axis=0))


