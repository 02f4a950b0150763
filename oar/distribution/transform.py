"""Bijections (and the two non-bijective maps Paddle has) used to build new distributions from old ones.

A `Transform` maps x to y with `forward`, back with `inverse`, and gives ``log|dy/dx|`` with
`forward_log_det_jacobian`. `_domain_rank` / `_codomain_rank` say how many trailing dims form one event (0 for
elementwise maps). Calling a transform on a Distribution gives a `TransformedDistribution`, on a Transform a
`ChainTransform`, on a Tensor its `forward`."""
import math

from ..ops import math as math_ops
from ..ops import reduction
from ..ops.creation import arange, full, zeros
from ..ops.manipulation import concat, reshape, stack, unbind
from ..ops.math import exp, log, log1p, sigmoid, tanh, zeros_like
from ..ops.nn.activation import softmax, softplus
from ..ops.reduction import cumprod, cumsum
from ..ops.special import atanh
from .distribution import Distribution


def _sum_right(x, n):
    """Sums the last `n` dims."""
    return reduction.sum(x, axis=list(range(x.ndim - n, x.ndim))) if n > 0 else x


def _softplus(x):
    return softplus(x)


class Transform:
    """Base class of transforms: override `_forward`, `_inverse` and `_forward_log_det_jacobian`.

    Example:
        >>> t = oar.distribution.ExpTransform()
        >>> t.forward(oar.to_tensor(0.0)).item(), t.inverse(oar.to_tensor(1.0)).item()
        (1.0, 0.0)
    """
    _domain_rank = 0
    _codomain_rank = 0
    _bijective = True

    def __call__(self, input):
        if isinstance(input, Distribution):
            from .transformed import TransformedDistribution
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([input, self])
        return self.forward(input)

    def forward(self, x):
        return self._forward(x)

    def inverse(self, y):
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        return self._log_det(x)

    def _log_det(self, x):
        """log|det J| at `x`, one value per element of `x` (what compositions sum over event dims)."""
        if not self._bijective:
            raise NotImplementedError(f"{type(self).__name__} is not a bijection: it has no log-det-Jacobian")
        return self._forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        return -self.forward_log_det_jacobian(self.inverse(y))

    def forward_shape(self, shape):
        return tuple(shape)

    def inverse_shape(self, shape):
        return tuple(shape)

    def _forward(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def _forward_log_det_jacobian(self, x):
        raise NotImplementedError


class AbsTransform(Transform):
    """``y = |x|``; `inverse` returns both preimages ``(-y, y)`` as Paddle's.

    Example:
        >>> t = oar.distribution.AbsTransform()
        >>> t.forward(oar.to_tensor([-1.0, 2.0])).numpy().tolist()
        [1.0, 2.0]
    """
    _bijective = False

    def _forward(self, x):
        return math_ops.abs(x)

    def _inverse(self, y):
        return -y, y

    def inverse_log_det_jacobian(self, y):
        zero = zeros_like(y)
        return zero, zero


class AffineTransform(Transform):
    """``y = loc + scale * x``.

    `forward_log_det_jacobian` / `inverse_log_det_jacobian` return ``log|scale|`` with the parameters' shape, not
    broadcast against the input (Paddle's shapes); compositions use the per-element form.

    Example:
        >>> t = oar.distribution.AffineTransform(oar.to_tensor(1.0), oar.to_tensor(2.0))
        >>> t.forward(oar.to_tensor(3.0)).item(), round(t.forward_log_det_jacobian(oar.to_tensor(3.0)).item(), 4)
        (7.0, 0.6931)
        >>> t.forward_log_det_jacobian(oar.to_tensor([1.0, 2.0, 3.0])).shape
        []
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = loc, scale

    def _forward(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def _forward_log_det_jacobian(self, x):
        return log(math_ops.abs(self.scale)) + zeros_like(x)

    def forward_log_det_jacobian(self, x):
        return log(math_ops.abs(self.scale))

    def inverse_log_det_jacobian(self, y):
        return -log(math_ops.abs(self.scale))


class ExpTransform(Transform):
    """``y = exp(x)``.

    Example:
        >>> oar.distribution.ExpTransform().forward_log_det_jacobian(oar.to_tensor(2.0)).item()
        2.0
    """

    def _forward(self, x):
        return exp(x)

    def _inverse(self, y):
        return log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """``y = x ** power`` (on positive x).

    Example:
        >>> oar.distribution.PowerTransform(oar.to_tensor(2.0)).forward(oar.to_tensor(3.0)).item()
        9.0
    """

    def __init__(self, power):
        self.power = power

    def _forward(self, x):
        return math_ops.pow(x, self.power)

    def _inverse(self, y):
        return math_ops.pow(y, 1.0 / self.power)

    def _forward_log_det_jacobian(self, x):
        return log(math_ops.abs(self.power * math_ops.pow(x, self.power - 1)))


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``.

    Example:
        >>> oar.distribution.SigmoidTransform().forward(oar.to_tensor(0.0)).item()
        0.5
    """

    def _forward(self, x):
        return sigmoid(x)

    def _inverse(self, y):
        return log(y) - log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -_softplus(-x) - _softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``.

    Example:
        >>> round(oar.distribution.TanhTransform().inverse(oar.to_tensor(0.5)).item(), 4)
        0.5493
    """

    def _forward(self, x):
        return tanh(x)

    def _inverse(self, y):
        return atanh(y)

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (not a bijection: `inverse` gives log y, defined up to a constant).

    Example:
        >>> oar.distribution.SoftmaxTransform().forward(oar.to_tensor([0.0, 0.0])).numpy().tolist()
        [0.5, 0.5]
    """
    _domain_rank = 1
    _codomain_rank = 1
    _bijective = False

    def _forward(self, x):
        return softmax(x, axis=-1)

    def _inverse(self, y):
        return log(y)


class StickBreakingTransform(Transform):
    """Maps R^k onto the (k+1)-simplex by stick breaking.

    Example:
        >>> y = oar.distribution.StickBreakingTransform().forward(oar.to_tensor([0.0, 0.0]))
        >>> y.shape, round(y.sum().item(), 4)
        ([3], 1.0)
    """
    _domain_rank = 1
    _codomain_rank = 1

    @staticmethod
    def _offset(x):
        k = x.shape[-1]
        return log(arange(k, 0, -1, dtype=x.dtype))

    def _forward(self, x):
        z = sigmoid(x - self._offset(x))
        rest = cumprod(1 - z, dim=-1)
        return _pad_last(z, 1.0, after=True) * _pad_last(rest, 1.0, after=False)

    def _inverse(self, y):
        head = y[..., :-1]
        remaining = 1 - cumsum(head, axis=-1)
        shifted = _pad_last(remaining[..., :-1], 1.0, after=False)
        z = head / shifted
        return log(z) - log1p(-z) + self._offset(head)

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        xo = x - self._offset(x)
        return reduction.sum(-xo - _softplus(-xo) + log(y[..., :-1]), axis=-1)

    def forward_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] - 1,)


def _pad_last(x, value, after):
    one = full(x.shape[:-1] + [1], value, x.dtype)
    return concat([x, one] if after else [one, x], axis=-1)


class ChainTransform(Transform):
    """Applies `transforms` in order.

    Example:
        >>> t = oar.distribution.ChainTransform([oar.distribution.AffineTransform(0.0, 2.0),
        ...                                      oar.distribution.ExpTransform()])
        >>> round(t.forward(oar.to_tensor(1.0)).item(), 4)
        7.3891
    """

    def __init__(self, transforms):
        self.transforms = list(transforms)
        self._domain_rank = max([t._domain_rank for t in self.transforms] + [0])
        self._codomain_rank = max([t._codomain_rank for t in self.transforms] + [0])
        self._bijective = all(t._bijective for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total = 0.0
        for t in self.transforms:
            total = total + _sum_right(t._log_det(x), self._domain_rank - t._domain_rank)
            x = t.forward(x)
        return total

    def forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class IndependentTransform(Transform):
    """`base` with its last `reinterpreted_batch_rank` batch dims made event dims (the log-det sums over them).

    Example:
        >>> t = oar.distribution.IndependentTransform(oar.distribution.ExpTransform(), 1)
        >>> t.forward_log_det_jacobian(oar.to_tensor([1.0, 2.0])).item()
        3.0
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"reinterpreted_batch_rank must be positive, got {reinterpreted_batch_rank}")
        self.base, self.reinterpreted_batch_rank = base, int(reinterpreted_batch_rank)
        self._domain_rank = base._domain_rank + self.reinterpreted_batch_rank
        self._codomain_rank = base._codomain_rank + self.reinterpreted_batch_rank
        self._bijective = base._bijective

    def _forward(self, x):
        return self.base.forward(x)

    def _inverse(self, y):
        return self.base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return _sum_right(self.base._log_det(x), self.reinterpreted_batch_rank)

    def forward_shape(self, shape):
        return self.base.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the event part of the shape from `in_event_shape` to `out_event_shape` (same size).

    Example:
        >>> t = oar.distribution.ReshapeTransform((2, 3), (3, 2))
        >>> t.forward(oar.ones([4, 2, 3])).shape, t.forward_shape((4, 2, 3))
        ([4, 3, 2], (4, 3, 2))
    """

    def __init__(self, in_event_shape, out_event_shape):
        self.in_event_shape, self.out_event_shape = tuple(in_event_shape), tuple(out_event_shape)
        if math.prod(self.in_event_shape) != math.prod(self.out_event_shape):
            raise ValueError(f"ReshapeTransform: {self.in_event_shape} and {self.out_event_shape} differ in size")
        self._domain_rank, self._codomain_rank = len(self.in_event_shape), len(self.out_event_shape)

    def _forward(self, x):
        batch = x.shape[:x.ndim - len(self.in_event_shape)]
        return reshape(x, list(batch) + list(self.out_event_shape))

    def _inverse(self, y):
        batch = y.shape[:y.ndim - len(self.out_event_shape)]
        return reshape(y, list(batch) + list(self.in_event_shape))

    def _forward_log_det_jacobian(self, x):
        batch = x.shape[:x.ndim - len(self.in_event_shape)]
        return zeros(list(batch), x.dtype)

    def forward_shape(self, shape):
        return tuple(shape[:len(shape) - len(self.in_event_shape)]) + self.out_event_shape

    def inverse_shape(self, shape):
        return tuple(shape[:len(shape) - len(self.out_event_shape)]) + self.in_event_shape


class StackTransform(Transform):
    """Applies ``transforms[i]`` to slice i along `axis`.

    Example:
        >>> t = oar.distribution.StackTransform([oar.distribution.ExpTransform(),
        ...                                      oar.distribution.AffineTransform(0.0, 2.0)], axis=0)
        >>> [round(v, 4) for v in t.forward(oar.to_tensor([1.0, 1.0])).numpy().tolist()]
        [2.7183, 2.0]
    """

    def __init__(self, transforms, axis=0):
        self.transforms, self.axis = list(transforms), int(axis)

    def _map(self, x, method):
        parts = unbind(x, self.axis)
        if len(parts) != len(self.transforms):
            raise ValueError(f"StackTransform: {len(self.transforms)} transforms for {len(parts)} slices")
        return stack([getattr(t, method)(p) for t, p in zip(self.transforms, parts)], self.axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "_log_det")


__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform"]
