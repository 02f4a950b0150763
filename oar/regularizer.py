"""Weight-decay regularizers: added to a parameter's gradient by the optimizer before its update.

`L2Decay(coeff)` adds ``coeff * param``; `L1Decay(coeff)` adds ``coeff * sign(param)``. A parameter's own
``regularizer`` (from `ParamAttr`) overrides the optimizer's ``weight_decay``.

Example:
    >>> opt = oar.optimizer.SGD(0.1, parameters=layer.parameters(), weight_decay=oar.regularizer.L2Decay(1e-4))
"""


class WeightDecayRegularizer:
    """Base class: ``reg(param, grad) -> grad`` built from ops, so it works eagerly and in static programs."""

    def __init__(self, coeff=0.0):
        self._coeff = float(coeff)

    @property
    def coeff(self):
        return self._coeff

    def __call__(self, param, grad):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self._coeff})"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: the gradient gets ``coeff * param`` added (``loss + coeff/2 * ||param||^2``).

    Example:
        >>> reg = oar.regularizer.L2Decay(coeff=0.01)
    """

    def __call__(self, param, grad):
        if self._coeff == 0.0:
            return grad
        from .ops.math import scale
        return grad + scale(param, self._coeff)


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: the gradient gets ``coeff * sign(param)`` added.

    Example:
        >>> reg = oar.regularizer.L1Decay(coeff=0.01)
    """

    def __call__(self, param, grad):
        if self._coeff == 0.0:
            return grad
        from .ops.math import scale, sign
        return grad + scale(sign(param), self._coeff)
