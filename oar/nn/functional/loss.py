"""Losses. `softmax_with_cross_entropy` and `warpctc` are fused ops; the rest compose other ops."""
from ...core import dtype as D
from ...core.state import STATE
from ...ops import logic as L
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from ...ops.common import operand
from ...kernels.loss import (count_valid as _count_valid, has as _has, swce as _swce, swce_grad as _swce_grad_impl,
                             warpctc as _warpctc)
from ...ops.registry import apply, defop
from ...eager.tensor import Tensor
from ...ops.nn.activation import log_sigmoid, relu, softmax
from ...ops.nn.common import cosine_similarity, one_hot


def _reduce(loss, reduction):
    if reduction == "mean":
        return M.mean(loss)
    if reduction == "sum":
        return M.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


# ---- softmax cross entropy (fused) ------------------------------------------------------------------------------

def _swce_infer(m, soft_label, ignore_index, axis):
    shape = list(m[0][0])
    shape[axis] = 1
    return [(shape, m[0][1]), m[0]]


def _swce_grad_grad(gg, d, softmax, label, g, logits, soft_label, ignore_index, axis):
    """Gradients of <gg, d>, d = (softmax * s - y) * g' (s = sum of the soft label or 1, y the label or its one-hot,
    g' = g or g masked by ignore_index): for g, and for logits through the softmax (p * (v - sum(v p)))."""
    unit = apply(SWCE_GRAD, (softmax, label, M.ones_like(g), logits),
                 {"soft_label": soft_label, "ignore_index": ignore_index, "axis": axis})
    dg = R.sum(gg * unit, axis=axis, keepdim=True)
    if soft_label:
        v = gg * g * R.sum(label, axis=axis, keepdim=True)
    else:
        v = gg * g * M.cast(label != ignore_index, g.dtype)
    return None, None, dg, softmax * (v - R.sum(v * softmax, axis=axis, keepdim=True))


# `logits` is read only by the gradient rule (the kernel ignores it): the softmax, a non-differentiable output of
# the forward, reaches the logits through it for second-order gradients
SWCE_GRAD = defop("softmax_with_cross_entropy_grad", lambda p, label, g, logits=None, **a: _swce_grad_impl(
    p, label, g, **a), inputs=("softmax", "label", "loss_grad", "logits"), nondiff=(0, 1),
                  infer=lambda m, **a: [m[0]], grad=_swce_grad_grad)
SWCE = defop("softmax_with_cross_entropy", _swce, inputs=("logits", "label"), outputs=("loss", "softmax"),
             nondiff=(1,), nondiff_out=(1,), infer=_swce_infer,
             grad=lambda g, out, logits, label, **a: (apply(SWCE_GRAD, (out[1], label, g[0], logits), a), None),
             amp="black", onnx_reason="training-only (loss)")


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """Cross entropy of softmax(logits) against `label` (class ids with a size-1 class dim, or soft labels);
    the loss keeps the class dim with size 1.

    Example:
        >>> import oar.nn.functional as F
        >>> loss = F.softmax_with_cross_entropy(oar.zeros([2, 4]), oar.to_tensor([[1], [3]]))
        >>> loss.shape, round(loss[0, 0].item(), 4)
        ([2, 1], 1.3863)
    """
    axis = axis % logits.ndim
    if not soft_label and label.ndim == logits.ndim - 1:
        label = S.unsqueeze(label, axis)
    loss = apply(SWCE, (logits, label), {"soft_label": bool(soft_label), "ignore_index": int(ignore_index),
                                         "axis": axis})[0]
    if return_softmax:
        return loss, softmax(logits, axis=axis)
    return loss


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior (uniform by default).

    Example:
        >>> import oar.nn.functional as F
        >>> [round(v, 4) for v in F.label_smooth(oar.to_tensor([[0.0, 1.0]]), epsilon=0.2)[0].numpy().tolist()]
        [0.1, 0.9]
    """
    if prior_dist is None:
        return label * (1.0 - epsilon) + epsilon / label.shape[-1]
    return label * (1.0 - epsilon) + prior_dist * epsilon


def _class_last(x, axis):
    if axis == x.ndim - 1:
        return x
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    return S.transpose(x, perm)


def _check_label_shape(in_shape, lab_shape, axis, soft_label):
    """Hard labels: the input's shape without `axis` (or with a size-1 `axis`); soft labels: the input's shape."""
    if soft_label:
        want = list(in_shape)
    elif len(lab_shape) == len(in_shape):
        want = list(in_shape[:axis]) + [1] + list(in_shape[axis + 1:])
    else:
        want = list(in_shape[:axis]) + list(in_shape[axis + 1:])
    if len(want) != len(lab_shape) or any(a not in (-1, b) and b != -1 for a, b in zip(lab_shape, want)):
        kind = "soft labels" if soft_label else "hard labels"
        raise ValueError(f"cross_entropy: input shape {list(in_shape)} (classes on axis {axis}) needs {kind} of "
                         f"shape {want}, got label shape {list(lab_shape)}")


_LABEL_SHAPES_OK = set()  # (input shape, label shape, axis, hard) that passed `_check_label_shape`
_MEAN_ALL = {"axis": None, "keepdim": False}  # the attrs of `M.mean(x)` (kernels never change their attrs)
_SWCE_ATTRS = {}


def _swce_attrs(soft_label, ignore_index, axis):
    """The attrs dict of `SWCE`, one per combination (a training loop repeats one)."""
    key = (soft_label, ignore_index, axis)
    attrs = _SWCE_ATTRS.get(key)
    if attrs is None:
        attrs = {"soft_label": soft_label, "ignore_index": ignore_index, "axis": axis}
        if len(_SWCE_ATTRS) < 1024:
            _SWCE_ATTRS[key] = attrs
    return attrs


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                  use_softmax=True, label_smoothing=0.0, name=None):
    """Paddle's cross entropy: softmax (unless ``use_softmax=False``) then negative log likelihood.

    `label` holds class ids of shape ``[N]`` or ``[N, 1]`` (any extra dims too), or soft labels with the
    input's shape when ``soft_label=True``. `weight` rescales classes; with ``reduction='mean'`` the sum is
    divided by the total weight of the non-ignored samples.

    Example:
        >>> import oar.nn.functional as F
        >>> loss = F.cross_entropy(oar.to_tensor([[2.0, 0.5]]), oar.to_tensor([0]))
    """
    in_shape, lab_shape = input.shape, label.shape
    ndim = len(in_shape)
    axis = axis % ndim
    n_cls = in_shape[axis]
    if label_smoothing and label_smoothing > 0 and not soft_label and len(lab_shape) == ndim and \
            lab_shape[axis] == n_cls != 1:
        soft_label = True  # Paddle: with smoothing, a label of the classes' size is a (one-hot) distribution
    hard = not soft_label
    checked = (tuple(in_shape), tuple(lab_shape), axis, hard)
    if checked not in _LABEL_SHAPES_OK:  # checked once per combination of shapes (a training loop repeats one)
        _check_label_shape(in_shape, lab_shape, axis, soft_label)
        if len(_LABEL_SHAPES_OK) < 1024:
            _LABEL_SHAPES_OK.add(checked)
    squeeze_out = False
    if label_smoothing and label_smoothing > 0:
        if hard:
            lab = S.squeeze(label, axis) if label.ndim == input.ndim else label
            lab = one_hot(lab, n_cls)
            label = _from_class_last(lab, axis, input.ndim)
        # uniform prior over the classes of `axis` (label_smooth would spread over the last dim)
        label = M.cast(label, input.dtype) * (1.0 - label_smoothing) + label_smoothing / n_cls
        hard = False
    elif hard and len(lab_shape) == ndim - 1:
        label = S.unsqueeze(label, axis)
        squeeze_out = True
    if hard and label.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy: hard labels must be integers, got {label.dtype.name}; pass "
                        "soft_label=True for probability labels")
    if use_softmax:
        loss = apply(SWCE, (input, label), _swce_attrs(not hard, int(ignore_index), axis))[0]
    else:
        logp = M.log(input)
        if hard:
            valid = L.not_equal(label, operand(ignore_index, label))
            safe = S.squeeze(M.where(valid, label, M.zeros_like(label)), axis)
            oh = _from_class_last(one_hot(safe, n_cls), axis, input.ndim)
            loss = -M.sum(M.cast(oh, input.dtype) * logp, axis=axis, keepdim=True) * M.cast(valid, input.dtype)
        else:
            loss = -M.sum(M.cast(label, input.dtype) * logp, axis=axis, keepdim=True)
    w = None
    if weight is not None:
        if hard:
            safe = M.where(L.not_equal(label, operand(ignore_index, label)), label, M.zeros_like(label))
            oh = one_hot(S.squeeze(safe, axis), n_cls)
            w = S.unsqueeze(M.sum(oh * M.cast(weight, input.dtype), axis=-1), axis)
        else:
            lab = _class_last(M.cast(label, input.dtype), axis)
            w = S.unsqueeze(M.matmul(lab, M.cast(weight, input.dtype)), axis)
        loss = loss * w
    if reduction == "none":
        return S.squeeze(loss, axis) if squeeze_out else loss
    if reduction == "sum":
        return M.sum(loss)
    if reduction != "mean":
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if w is None and (not hard or (not STATE.static and isinstance(label, Tensor)
                                   and not _has(label._data, ignore_index))):
        return apply(R.MEAN, (loss,), _MEAN_ALL)  # `M.mean(loss)`, its attrs made once
    if w is None:  # hard labels whose values are unknown here (static) or include ignore_index
        return M.sum(loss) / apply(COUNT_VALID, (label,), {"ignore_index": int(ignore_index),
                                                           "dtype": input.dtype.name})
    mask = M.cast(L.not_equal(label, operand(ignore_index, label)), input.dtype) if hard else None
    denom = M.sum(w * mask if hard else w)
    denom = denom + M.cast(L.equal(denom, operand(0.0, denom)), denom.dtype)
    return M.sum(loss) / denom


COUNT_VALID = defop("count_valid", _count_valid, inputs=("label",), infer=lambda m, ignore_index, dtype: [
    ([], D.convert_dtype(dtype))], differentiable=False, onnx_reason="training-only (loss)")


def _from_class_last(x, axis, ndim):
    """Moves the trailing class dim of `x` (ndim dims) to `axis`."""
    if axis == ndim - 1:
        return x
    perm = list(range(ndim - 1))
    perm.insert(axis, ndim - 1)
    return S.transpose(x, perm)


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log likelihood of log-probabilities `input` ``[N, C, *d]`` at class ids `label` ``[N, *d]``.

    Example:
        >>> import oar.nn.functional as F
        >>> logp = oar.log(oar.to_tensor([[0.25, 0.75], [0.5, 0.5]]))
        >>> round(F.nll_loss(logp, oar.to_tensor([1, 0])).item(), 4)
        0.4904
    """
    n_cls = input.shape[1]
    logp = _class_last(input, 1)
    valid = L.not_equal(label, operand(ignore_index, label))
    safe = M.where(valid, label, M.zeros_like(label))
    oh = one_hot(safe, n_cls)
    mask = M.cast(valid, input.dtype)
    w = mask if weight is None else M.sum(oh * M.cast(weight, input.dtype), axis=-1) * mask
    loss = -M.sum(oh * logp, axis=-1) * w
    if reduction == "mean":
        denom = M.sum(w)
        return M.sum(loss) / (denom + M.cast(L.equal(denom, operand(0.0, denom)), denom.dtype))
    return _reduce(loss, reduction)


def mse_loss(input, label, reduction="mean", name=None):
    """Mean squared error.

    Example:
        >>> import oar.nn.functional as F
        >>> F.mse_loss(oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 4.0])).item()
        2.0
    """
    d = input - label
    return _reduce(d * d, reduction)


def square_error_cost(input, label):
    """Elementwise ``(input - label) ** 2`` (no reduction).

    Example:
        >>> import oar.nn.functional as F
        >>> F.square_error_cost(oar.to_tensor([1.0, 3.0]), oar.to_tensor([2.0, 1.0])).numpy().tolist()
        [1.0, 4.0]
    """
    d = input - label
    return d * d


def l1_loss(input, label, reduction="mean", name=None):
    """Mean absolute error.

    Example:
        >>> import oar.nn.functional as F
        >>> F.l1_loss(oar.to_tensor([1.0, 3.0]), oar.to_tensor([2.0, 1.0])).item()
        1.5
    """
    return _reduce(M.abs(input - label), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):
    """Huber loss: 0.5*d^2 where |d| < delta, else delta*|d| - 0.5*delta^2.

    Example:
        >>> import oar.nn.functional as F
        >>> F.smooth_l1_loss(oar.to_tensor([0.5, 3.0]), oar.to_tensor([0.0, 0.0]), reduction='none').numpy().tolist()
        [0.125, 2.5]
    """
    d = M.abs(input - label)
    loss = M.where(d < delta, 0.5 * d * d, delta * d - 0.5 * delta * delta)
    return _reduce(loss, reduction)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label*log(p) + (1-label)*log(1-p)) with the logs clipped at -100 (as Paddle).

    Example:
        >>> import oar.nn.functional as F
        >>> round(F.binary_cross_entropy(oar.to_tensor([0.5, 0.9]), oar.to_tensor([1.0, 1.0])).item(), 4)
        0.3993
    """
    lo = operand(-100.0, input)
    loss = -(label * M.maximum(M.log(input), lo) + (1 - label) * M.maximum(M.log(1 - input), lo))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean", pos_weight=None, name=None):
    """Sigmoid + binary cross entropy, computed stably from logits; `pos_weight` weights positive examples.

    Example:
        >>> import oar.nn.functional as F
        >>> round(F.binary_cross_entropy_with_logits(oar.to_tensor([0.0, 100.0]), oar.to_tensor([1.0, 1.0])).item(), 4)
        0.3466
    """
    if pos_weight is not None:
        loss = -(pos_weight * label * log_sigmoid(logit) + (1 - label) * log_sigmoid(-logit))
    else:
        loss = (1 - label) * logit - log_sigmoid(logit)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum", name=None):
    """Focal loss ``-alpha_t (1 - p_t)^gamma log(p_t)`` of sigmoid(logit), optionally divided by `normalizer`.

    Example:
        >>> import oar.nn.functional as F
        >>> loss = F.sigmoid_focal_loss(oar.to_tensor([0.0, 0.0]), oar.to_tensor([1.0, 0.0]), reduction='none')
        >>> [round(v, 4) for v in loss.numpy().tolist()]
        [0.0433, 0.13]
    """
    p = M.sigmoid(logit)
    ce = binary_cross_entropy_with_logits(logit, label, reduction="none")
    pt = p * label + (1 - p) * (1 - label)
    loss = ce * M.pow(1 - pt, gamma) * (alpha * label + (1 - alpha) * (1 - label))
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """label * (log(label) - input) with `input` given as log-probabilities; 'batchmean' divides by N.

    Example:
        >>> import oar.nn.functional as F
        >>> p = oar.to_tensor([[0.5, 0.5]])
        >>> F.kl_div(oar.log(p), p, reduction='sum').item()
        0.0
    """
    if log_target:
        loss = M.exp(label) * (label - input)
    else:
        pos = label > 0
        safe = M.where(pos, label, M.ones_like(label))
        loss = M.where(pos, label * (M.log(safe) - input), M.zeros_like(input))
    if reduction == "batchmean":
        return M.sum(loss) / float(input.shape[0])
    return _reduce(loss, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label * (input - other) + margin).

    Example:
        >>> import oar.nn.functional as F
        >>> x, y, label = oar.to_tensor([1.0, 1.0]), oar.to_tensor([2.0, 0.0]), oar.to_tensor([1.0, 1.0])
        >>> F.margin_ranking_loss(x, y, label, reduction='none').numpy().tolist()
        [1.0, 0.0]
    """
    return _reduce(relu(-label * (input - other) + margin), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """``x`` where label is 1, ``max(0, margin - x)`` where label is -1.

    Example:
        >>> import oar.nn.functional as F
        >>> loss = F.hinge_embedding_loss(oar.to_tensor([0.3, 0.3]), oar.to_tensor([1.0, -1.0]), reduction='none')
        >>> [round(v, 4) for v in loss.numpy().tolist()]
        [0.3, 0.7]
    """
    loss = M.where(L.equal(label, operand(1, label)), input, relu(operand(margin, input) - input))
    return _reduce(loss, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """Multi-label one-vs-all loss: per sample, the mean over the C classes of
    ``-(y * log(sigmoid(x)) + (1 - y) * log(sigmoid(-x)))``, each class scaled by `weight` (shape [C]) when given.

    Example:
        >>> import oar.nn.functional as F
        >>> x, y = oar.to_tensor([[1.0, -2.0], [3.0, 4.0]]), oar.to_tensor([[1.0, 1.0], [0.5, 1.0]])
        >>> round(F.multi_label_soft_margin_loss(x, y).item(), 5)
        1.00173
    """
    if list(input.shape) != list(label.shape):
        raise ValueError(f"multi_label_soft_margin_loss: input shape {list(input.shape)} and label shape "
                         f"{list(label.shape)} differ")
    loss = -(label * log_sigmoid(input) + (1 - label) * log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(M.mean(loss, axis=-1), reduction)


def identity_loss(x, reduction="none"):
    """`x` marked as the loss (Paddle's `paddle.incubate.identity_loss`): summed (`reduction` 'sum' or 0), averaged
    ('mean' or 1) or as it is ('none' or 2).

    Example:
        >>> from oar.incubate import identity_loss
        >>> identity_loss(oar.to_tensor([1.0, 2.0]), reduction='mean').item()
        1.5
    """
    codes = {0: "sum", 1: "mean", 2: "none"}
    return _reduce(x, codes.get(reduction, reduction) if isinstance(reduction, int) else reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """``log(1 + exp(-label * input))`` for labels 1 / -1 (the two-class logistic loss).

    Example:
        >>> import oar.nn.functional as F
        >>> round(F.soft_margin_loss(oar.to_tensor([0.5, -1.0]), oar.to_tensor([1.0, -1.0])).item(), 5)
        0.39367
    """
    label = M.cast(label, input.dtype) if label.dtype != input.dtype else label
    return _reduce(M.log1p(M.exp(-label * input)), reduction)


def log_loss(input, label, epsilon=1e-4, name=None):
    """Elementwise negative log likelihood of probabilities: ``-y log(p + eps) - (1 - y) log(1 - p + eps)``.

    Example:
        >>> import oar.nn.functional as F
        >>> [round(v, 4) for v in F.log_loss(oar.to_tensor([0.3, 0.9]), oar.to_tensor([1.0, 0.0])).numpy().tolist()]
        [1.2036, 2.3016]
    """
    return -label * M.log(input + epsilon) - (1 - label) * M.log(1 - input + epsilon)


def dice_loss(input, label, epsilon=1e-5, name=None):
    """``1 - 2 |P * Y| / (|P| + |Y| + eps)`` per sample (sums over all dims but the first), averaged; `input`
    holds class probabilities in its last dim, `label` the class ids with a last dim of 1.

    Example:
        >>> import oar.nn.functional as F
        >>> p = oar.to_tensor([[[0.9, 0.1], [0.2, 0.8]]])
        >>> round(F.dice_loss(p, oar.to_tensor([[[0], [1]]])).item(), 4)
        0.15
    """
    if label.dtype.kind not in "iu":
        raise TypeError(f"dice_loss: label must hold integer class ids, got {label.dtype.name}")
    if len(input.shape) < 2 or len(label.shape) != len(input.shape) or label.shape[-1] != 1 or \
            list(label.shape[:-1]) != list(input.shape[:-1]):
        raise ValueError(f"dice_loss: label shape {list(label.shape)} must be input shape {list(input.shape)} with a "
                         "last dim of 1")
    onehot = M.cast(one_hot(S.squeeze(label, -1), input.shape[-1]), input.dtype)
    dims = list(range(1, len(input.shape)))
    inse = M.sum(input * onehot, axis=dims)
    denom = M.sum(input, axis=dims) + M.sum(onehot, axis=dims)
    return M.mean(1 - inse * 2 / (denom + epsilon))


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """``1 - cos(x1, x2)`` for label 1, ``max(0, cos(x1, x2) - margin)`` for label -1, row-wise.

    Example:
        >>> import oar.nn.functional as F
        >>> x1 = oar.to_tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> x2 = oar.to_tensor([[0.0, 1.0], [1.0, 0.0]])
        >>> F.cosine_embedding_loss(x1, x2, oar.to_tensor([1, -1]), reduction='none').numpy().tolist()
        [1.0, 1.0]
    """
    cos = cosine_similarity(input1, input2, axis=-1)
    loss = M.where(L.equal(label, operand(1, label)), 1 - cos, relu(cos - margin))
    return _reduce(loss, reduction)


# ---- CTC ----------------------------------------------------------------------------------------------------------

WARPCTC = defop("warpctc", _warpctc, inputs=("logits", "label", "logits_length", "labels_length"),
                outputs=("loss", "warpctc_grad"), nondiff=(1, 2, 3), nondiff_out=(1,),
                infer=lambda m, **a: [([m[0][0][1], 1], m[0][1]), m[0]],
                grad=lambda g, out, logits, label, ll, lab_l, **a: (
                    out[1] * S.reshape(g[0], [1, -1, 1]), None, None, None), amp="black",
                onnx_reason="training-only (loss)")


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean", norm_by_times=False):
    """Connectionist temporal classification loss of unnormalised scores `log_probs` ``[T, N, C]`` (softmax is
    applied inside, as Paddle's warpctc), padded `labels` ``[N, S]`` and the true lengths.

    'mean' divides each loss by its label length, then averages over the batch.

    Example:
        >>> import oar.nn.functional as F
        >>> log_probs = oar.zeros([5, 2, 3])  # [T, N, C]: uniform scores
        >>> labels = oar.to_tensor([[1, 2], [1, 1]], dtype='int32')
        >>> loss = F.ctc_loss(log_probs, labels, oar.to_tensor([5, 5]), oar.to_tensor([2, 2]), reduction='none')
        >>> loss.shape
        [2]
    """
    loss, _ = apply(WARPCTC, (log_probs, labels, input_lengths, label_lengths),
                    {"blank": int(blank), "norm_by_times": bool(norm_by_times)})
    loss = S.squeeze(loss, -1)
    if reduction == "mean":
        return M.mean(loss / M.cast(label_lengths, loss.dtype))
    return _reduce(loss, reduction)


# Paddle's `paddle.nn.functional.loss` also holds these (defined by concept in their own modules)
from .loss_embedding import (triplet_margin_loss, triplet_margin_with_distance_loss, multi_margin_loss,  # noqa: E402,F401
                             npair_loss)
from .loss_likelihood import gaussian_nll_loss, poisson_nll_loss  # noqa: E402,F401
from .loss_hsigmoid import hsigmoid_loss  # noqa: E402,F401
