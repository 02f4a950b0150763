"""Distributions built from others: `TransformedDistribution` (a base pushed through transforms), `Independent`
(batch dims reinterpreted as event dims) and `LogNormal` (a Normal through exp)."""

from ..core.state import no_grad
from ..ops.math import exp, expm1
from .continuous import Normal
from .distribution import Distribution
from .transform import ChainTransform, ExpTransform, Transform, _sum_right


class TransformedDistribution(Distribution):
    """The distribution of ``t_n(...t_1(x))`` for x drawn from `base`.

    Example:
        >>> d = oar.distribution.TransformedDistribution(oar.distribution.Normal(0.0, 1.0),
        ...                                              [oar.distribution.ExpTransform()])
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4)
        -0.9189
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: base must be a Distribution, got {type(base).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("TransformedDistribution: transforms must be a list of Transform")
        self.base, self.transforms = base, list(transforms)
        chain = ChainTransform(self.transforms)
        shape = chain.forward_shape(base.batch_shape + base.event_shape)
        rank = max(len(base.event_shape), chain._codomain_rank)
        super().__init__(tuple(shape[:len(shape) - rank]), tuple(shape[len(shape) - rank:]))

    def sample(self, shape=()):
        with no_grad():
            return self.rsample(shape) if _has_rsample(self.base) else self._push(self.base.sample(shape))

    def rsample(self, shape=()):
        return self._push(self.base.rsample(shape))

    def _push(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        rank = len(self.event_shape)
        y, log_det = value, 0.0
        for t in reversed(self.transforms):
            x = t.inverse(y)
            log_det = log_det + _sum_right(t._log_det(x), rank - t._domain_rank)
            y = x
        return _sum_right(self.base.log_prob(y), rank - len(self.base.event_shape)) - log_det


def _has_rsample(d):
    return type(d).rsample is not Distribution.rsample


class Independent(Distribution):
    """`base` with its last `reinterpreted_batch_rank` batch dims treated as one event (log_prob sums over them).

    Example:
        >>> d = oar.distribution.Independent(oar.distribution.Normal(oar.zeros([3]), 1.0), 1)
        >>> d.batch_shape, d.event_shape, round(d.log_prob(oar.zeros([3])).item(), 4)
        ((), (3,), -2.7568)
    """

    def __init__(self, base, reinterpreted_batch_rank):
        r = int(reinterpreted_batch_rank)
        if not 0 < r <= len(base.batch_shape):
            raise ValueError(f"Independent: reinterpreted_batch_rank must be in [1, {len(base.batch_shape)}], "
                             f"got {reinterpreted_batch_rank}")
        self.base, self.reinterpreted_batch_rank = base, r
        cut = len(base.batch_shape) - r
        super().__init__(base.batch_shape[:cut], base.batch_shape[cut:] + base.event_shape)

    @property
    def mean(self):
        return self.base.mean

    @property
    def variance(self):
        return self.base.variance

    def sample(self, shape=()):
        return self.base.sample(shape)

    def rsample(self, shape=()):
        return self.base.rsample(shape)

    def log_prob(self, value):
        return _sum_right(self.base.log_prob(value), self.reinterpreted_batch_rank)

    def entropy(self):
        return _sum_right(self.base.entropy(), self.reinterpreted_batch_rank)


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(x)`` for x ~ Normal(`loc`, `scale`).

    Example:
        >>> d = oar.distribution.LogNormal(0.0, 1.0)
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4), round(d.mean.item(), 4)
        (-0.9189, 1.6487)
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc, scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return exp(self.loc + self.scale * self.scale / 2)

    @property
    def variance(self):
        s2 = self.scale * self.scale
        return expm1(s2) * exp(2 * self.loc + s2)

    def entropy(self):
        return self._base.entropy() + self.loc

    def probs(self, value):
        return self.prob(value)


