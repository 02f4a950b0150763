"""Loss layers over `oar.nn.functional` losses."""
from .. import functional as F
from .layers import Layer


class CrossEntropyLoss(Layer):
    """Softmax cross entropy (see `F.cross_entropy` for labels, `weight`, `ignore_index`, smoothing).

    Example:
        >>> loss_fn = oar.nn.CrossEntropyLoss()
        >>> loss = loss_fn(oar.ones([4, 10]), oar.to_tensor([1, 2, 3, 4]))
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                 use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self._name = name
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax, self.label_smoothing = soft_label, axis, use_softmax, \
            label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction, self.soft_label,
                               self.axis, self.use_softmax, self.label_smoothing)


class NLLLoss(Layer):
    """Negative log likelihood of log-probabilities ``[N, C, ...]`` at integer labels ``[N, ...]``.

    Example:
        >>> round(oar.nn.NLLLoss()(oar.log(oar.full([2, 3], 1 / 3)), oar.to_tensor([0, 2])).item(), 4)
        1.0986
    """
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        self._name = name
        self._weight, self._ignore_index, self._reduction = weight, ignore_index, reduction

    def forward(self, input, label):
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class _Reduced(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        self._name = name
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.reduction = reduction


class MSELoss(_Reduced):
    """Mean squared error.

    Example:
        >>> oar.nn.MSELoss()(oar.to_tensor([1.0, 3.0]), oar.to_tensor([2.0, 1.0])).item()
        2.5
    """

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Reduced):
    """Mean (or sum, or none) of ``|input - label|``.

    Example:
        >>> round(oar.nn.L1Loss(reduction='sum')(oar.ones([2]), oar.zeros([2])).item(), 4)
        2.0
    """
    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Reduced):
    """Huber loss: ``0.5 d^2 / delta`` where ``|d| < delta``, else ``|d| - 0.5 delta``.

    Example:
        >>> round(oar.nn.SmoothL1Loss(delta=1.0)(oar.ones([2]), oar.zeros([2])).item(), 4)
        0.5
    """
    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__(reduction)
        self._name = name
        self.delta = delta

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta)


class BCELoss(_Reduced):
    """Binary cross entropy of probabilities in [0, 1] against 0/1 (or soft) labels.

    Example:
        >>> round(oar.nn.BCELoss()(oar.full([2], 0.5), oar.to_tensor([0.0, 1.0])).item(), 4)
        0.6931
    """
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self._name = name
        self.weight = weight

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Reduced):
    """Binary cross entropy on logits (stable sigmoid inside); `pos_weight` weights positives.

    Example:
        >>> round(oar.nn.BCEWithLogitsLoss()(oar.zeros([2]), oar.to_tensor([0.0, 1.0])).item(), 4)
        0.6931
    """
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(reduction)
        self._name = name
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction, self.pos_weight)


class KLDivLoss(Layer):
    """``label * (log(label) - input)`` with `input` log-probabilities (Paddle's reduction rules).

    Example:
        >>> round(oar.nn.KLDivLoss(reduction='mean')(oar.log(oar.full([2], 0.5)), oar.full([2], 0.5)).item(), 4)
        0.0
    """
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(_Reduced):
    """``max(0, -label * (input - other) + margin)`` for labels +1/-1.

    Example:
        >>> round(oar.nn.MarginRankingLoss(margin=0.1)(oar.ones([2]), oar.zeros([2]), oar.ones([2])).item(), 4)
        0.0
    """
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__(reduction)
        self._name = name
        self.margin = margin

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Reduced):
    """``x`` where label is 1, ``max(0, margin - x)`` where it is -1 (see `F.hinge_embedding_loss`).

    Example:
        >>> loss = oar.nn.HingeEmbeddingLoss(margin=1.0)
        >>> loss(oar.to_tensor([0.3, 0.3]), oar.to_tensor([1.0, -1.0])).item()
        0.5
    """
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__(reduction)
        self._name = name
        self.margin = margin

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


class MultiLabelSoftMarginLoss(_Reduced):
    """The multi-label one-vs-all loss of `F.multi_label_soft_margin_loss`, with optional per-class `weight`.

    Example:
        >>> loss = oar.nn.MultiLabelSoftMarginLoss()
        >>> round(loss(oar.to_tensor([[1.0, -2.0]]), oar.to_tensor([[1.0, 0.0]])).item(), 5)
        0.22009
    """
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self._name = name
        self.weight = weight

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class SoftMarginLoss(_Reduced):
    """``log(1 + exp(-label * input))`` for labels 1 / -1 (see `F.soft_margin_loss`).

    Example:
        >>> round(oar.nn.SoftMarginLoss()(oar.to_tensor([0.5, -1.0]), oar.to_tensor([1.0, -1.0])).item(), 5)
        0.39367
    """
    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction)


class CosineEmbeddingLoss(_Reduced):
    """``1 - cos(x1, x2)`` for label 1, ``max(0, cos(x1, x2) - margin)`` for -1 (see `F.cosine_embedding_loss`).

    Example:
        >>> x1, x2 = oar.to_tensor([[1.0, 2.0], [3.0, 5.0]]), oar.to_tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> round(oar.nn.CosineEmbeddingLoss(margin=0.1)(x1, x2, oar.to_tensor([1, -1])).item(), 5)
        0.48786
    """
    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.margin = margin

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class CTCLoss(Layer):
    """CTC loss over unnormalised scores ``[T, N, C]`` (see `F.ctc_loss`).

    Example:
        >>> log_probs = oar.zeros([5, 2, 3])  # [T, N, C]
        >>> labels = oar.to_tensor([[1, 2], [1, 1]], dtype='int32')
        >>> loss = oar.nn.CTCLoss()(log_probs, labels, oar.to_tensor([5, 5]), oar.to_tensor([2, 2]))
        >>> loss.shape
        []
    """

    def __init__(self, blank=0, reduction="mean"):
        super().__init__()
        self.blank, self.reduction = blank, reduction

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction, norm_by_times)


from .loss_extra import (TripletMarginLoss, TripletMarginWithDistanceLoss, MultiMarginLoss,  # noqa: E402,F401
                         GaussianNLLLoss, PoissonNLLLoss, HSigmoidLoss)
