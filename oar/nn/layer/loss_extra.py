"""Loss layers over the margin, likelihood and hierarchical-sigmoid losses of `oar.nn.functional` (Paddle keeps
them in `paddle.nn.layer.loss`, which re-exports them)."""
from .. import functional as F
from .layers import Layer
from .loss import _Reduced


class TripletMarginLoss(_Reduced):
    """`F.triplet_margin_loss` as a layer: forward(input, positive, negative).

    Example:
        >>> a, p, n = oar.to_tensor([[1.0, 0.0]]), oar.to_tensor([[1.0, 1.0]]), oar.to_tensor([[0.0, 0.0]])
        >>> round(float(oar.nn.TripletMarginLoss(epsilon=0.0)(a, p, n)), 4)
        1.0
    """

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p, self.epsilon, self.swap,
                                     self.reduction)


class TripletMarginWithDistanceLoss(_Reduced):
    """`F.triplet_margin_with_distance_loss` as a layer.

    Example:
        >>> a, p, n = oar.to_tensor([[1.0, 0.0]]), oar.to_tensor([[1.0, 1.0]]), oar.to_tensor([[0.0, 0.0]])
        >>> loss = oar.nn.TripletMarginWithDistanceLoss(lambda x, y: (x - y).abs().sum(-1), margin=0.5)
        >>> float(loss(a, p, n))
        0.5
    """

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative, self.distance_function, self.margin,
                                                   self.swap, self.reduction)


class MultiMarginLoss(_Reduced):
    """`F.multi_margin_loss` as a layer: forward(input, label).

    Example:
        >>> round(float(oar.nn.MultiMarginLoss()(oar.to_tensor([[1.0, 0.5, 2.0]]), oar.to_tensor([0]))), 4)
        0.8333
    """

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.p, self.margin, self.weight = p, margin, weight

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight, self.reduction)


class GaussianNLLLoss(_Reduced):
    """`F.gaussian_nll_loss` as a layer: forward(input, label, variance).

    Example:
        >>> x, y, var = oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 4.0]), oar.to_tensor([1.0, 2.0])
        >>> round(float(oar.nn.GaussianNLLLoss()(x, y, var)), 4)
        0.6733
    """

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.full, self.epsilon = full, epsilon

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon, self.reduction)


class PoissonNLLLoss(_Reduced):
    """`F.poisson_nll_loss` as a layer: forward(input, label).

    Example:
        >>> round(float(oar.nn.PoissonNLLLoss()(oar.to_tensor([0.0, 1.0]), oar.to_tensor([1.0, 2.0]))), 4)
        0.8591
    """

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__(reduction, name)
        self.log_input, self.full, self.epsilon = log_input, full, epsilon

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon, self.reduction)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid with its own weight ([num_classes - 1, feature_size], or [num_classes, feature_size]
    for a custom tree) and bias; forward(input, label, path_table=None, path_code=None) -> [N, 1].

    Example:
        >>> layer = oar.nn.HSigmoidLoss(2, 4, weight_attr=oar.nn.initializer.Constant(0.0))
        >>> round(float(layer(oar.ones([1, 2]), oar.to_tensor([1]))), 4)
        1.3863
    """

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False,
                 is_sparse=False, name=None):
        super().__init__()
        self._name = name
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: num_classes must be >= 2, got {num_classes}")
        self._num_classes, self._is_custom, self._is_sparse = num_classes, is_custom, is_sparse
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        if self._is_custom != (path_table is not None):
            raise ValueError("HSigmoidLoss: a custom tree (is_custom=True) needs path_table and path_code, and "
                             "only it takes them")
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table, path_code,
                               self._is_sparse)
