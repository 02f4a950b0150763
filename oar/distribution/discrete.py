"""Discrete distributions: Bernoulli, Binomial, Categorical, Geometric, Poisson."""
import numpy as np

from ..core.state import no_grad
from ..ops import math
from ..ops import reduction
from ..ops.creation import arange
from ..ops.indexing import gather, take_along_axis
from ..ops.manipulation import reshape, transpose
from ..ops.math import cast, exp, floor, log, log1p, minimum, sigmoid, where, zeros_like
from ..ops.nn.activation import softmax
from ..ops.random import multinomial, uniform
from ..ops.special import lgamma
from ..eager.tensor import Tensor, to_tensor
from .distribution import Distribution, ExponentialFamily, draw, to_params, value_like


def _log_choose(n, k):
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution: 1 with probability `probs`, else 0 (``d.probs`` is the parameter, as in Paddle;
    the density is `prob`).

    Example:
        >>> d = oar.distribution.Bernoulli(0.3)
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4), round(d.entropy().item(), 4)
        (-1.204, 0.6109)
    """

    def __init__(self, probs, name=None):
        self.probs = to_params(probs)
        self.logits = log(self.probs) - log1p(-self.probs)
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, shape=()):
        with no_grad():
            u = uniform(list(self._extend_shape(shape)), self.probs.dtype, 0.0, 1.0)
            return cast(u < self.probs, self.probs.dtype)

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed (continuous) samples in (0, 1): ``sigmoid((logits + logistic noise) / temperature)``."""
        u = uniform(list(self._extend_shape(shape)), self.probs.dtype, 1e-7, 1.0 - 1e-7)
        return sigmoid((self.logits + log(u) - log1p(-u)) / temperature)

    def log_prob(self, value):
        v = value_like(value, self.probs)
        p = self.probs
        return v * log(p) + (1 - v) * log1p(-p)

    def cdf(self, value):
        v = value_like(value, self.probs)
        zero = zeros_like(v + self.probs)
        return where(v < 0, zero, where(v < 1, zero + (1 - self.probs), zero + 1))

    def entropy(self):
        p = self.probs
        return -(p * log(p) + (1 - p) * log1p(-p))


class Binomial(Distribution):
    """The number of successes in `total_count` independent trials with success probability `probs`.

    Example:
        >>> d = oar.distribution.Binomial(10, 0.5)
        >>> round(d.prob(oar.to_tensor(5.0)).item(), 4), d.mean.item()
        (0.2461, 5.0)
    """

    def __init__(self, total_count, probs):
        self.total_count, self.probs = to_params(total_count, probs)
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        with no_grad():
            return draw("binomial", self._extend_shape(shape), self.total_count, self.probs)

    def log_prob(self, value):
        k = value_like(value, self.probs)
        n, p = self.total_count, self.probs
        return _log_choose(n, k) + k * log(p) + (n - k) * log1p(-p)

    def entropy(self):
        """Exact entropy by summing over the support 0..max(total_count)."""
        n_max = int(np.max(self.total_count.numpy())) if hasattr(self.total_count, "numpy") else None
        if n_max is None:
            raise ValueError("Binomial.entropy needs total_count known when the program is built")
        ks = reshape(arange(0, n_max + 1, dtype=self.probs.dtype),
                         [n_max + 1] + [1] * len(self._batch_shape))
        inside = ks <= self.total_count
        lp = self.log_prob(minimum(ks, self.total_count))  # clamped: no infinite lgamma (and NaN gradient) outside
        terms = where(inside, -exp(lp) * lp, zeros_like(lp))
        return reduction.sum(terms, axis=0)


class Categorical(Distribution):
    """A distribution over the categories ``0..k-1`` of the last dim of `logits`.

    As in Paddle, `probs`/`log_prob` read `logits` as unnormalized probabilities (``logits / sum(logits)``), while
    `sample`, `entropy` and `kl_divergence` use ``softmax(logits)``.

    Example:
        >>> d = oar.distribution.Categorical(oar.to_tensor([1.0, 3.0]))
        >>> d.probs(oar.to_tensor([1])).numpy().tolist(), round(d.entropy().item(), 4)
        ([0.75], 0.3653)
    """

    def __init__(self, logits, name=None):
        self.logits = to_params(logits)
        self._prob = self.logits / reduction.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]))

    def _softmax(self):
        return softmax(self.logits, axis=-1)

    def sample(self, shape=()):
        with no_grad():
            shape = [int(s) for s in ([shape] if isinstance(shape, int) else shape)]
            n = int(np.prod(shape)) if shape else 1
            k = self.logits.shape[-1]
            flat = reshape(self._softmax(), [-1, k])
            idx = multinomial(flat, n, replacement=True)  # [batch, n]
            return reshape(transpose(idx, [1, 0]), shape + list(self._batch_shape))

    def entropy(self):
        logits = self.logits - reduction.max(self.logits, axis=-1, keepdim=True)
        z = reduction.sum(exp(logits), axis=-1, keepdim=True)
        p = exp(logits) / z
        return -reduction.sum(p * (logits - log(z)), axis=-1)

    def probs(self, value):
        """Probabilities of the categories in `value` (int tensor); a 1-D `value` is broadcast over the batch."""
        value = value if isinstance(value, Tensor) or hasattr(value, "block") else to_tensor(value)
        value = cast(value, "int64")
        if self._prob.ndim == 1:
            return reshape(gather(self._prob, reshape(value, [-1])), value.shape)
        if value.ndim == 1:
            value = reshape(value, [1] * (self._prob.ndim - 1) + [-1])
        return take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        return self.probs(value)

    def log_prob(self, value):
        return log(self.probs(value))


class Geometric(Distribution):
    """The number of failures before the first success of Bernoulli(`probs`) trials (k = 0, 1, 2, ...), as in
    Paddle 3.

    `pmf`/`log_pmf`/`cdf` take integer k as Paddle's; `log_prob` is `log_pmf` for tensors; samples are integers
    ``floor(log(u) / log(1 - p))``. The KL divergence (`oar.distribution.kl_divergence`) is the true one of two
    geometric distributions; Paddle 3.3.1's `Geometric.kl_divergence` returns the Bernoulli KL of the probabilities
    instead (docs/numerics.md).

    Example:
        >>> d = oar.distribution.Geometric(0.5)
        >>> d.pmf(2).item(), d.mean.item(), round(d.entropy().item(), 4)
        (0.125, 1.0, 1.3863)
    """

    def __init__(self, probs):
        self.probs = to_params(probs)
        data = getattr(self.probs, "_data", None)
        if data is not None and ((data <= 0).any() or (data > 1).any()):
            raise ValueError("Geometric: probs must be in (0, 1]")
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        return (1.0 - self.probs) / self.probs

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def pmf(self, k):
        """P(X = k) = (1 - p)^k p."""
        k = value_like(k, self.probs)
        return math.pow(1.0 - self.probs, k) * self.probs

    def log_pmf(self, k):
        k = value_like(k, self.probs)
        return k * log1p(-self.probs) + log(self.probs)

    def log_prob(self, value):
        return self.log_pmf(value)

    def cdf(self, k):
        """P(X <= k) = 1 - (1 - p)^(k + 1)."""
        k = value_like(k, self.probs)
        return 1.0 - math.pow(1.0 - self.probs, k + 1.0)

    def sample(self, shape=()):
        with no_grad():
            u = uniform(list(self._extend_shape(shape)), self.probs.dtype, 1e-7, 1.0)
            return floor(log(u) / log1p(-self.probs))

    def entropy(self):
        p = self.probs
        return -((1.0 - p) * log1p(-p) + p * log(p)) / p


class Poisson(ExponentialFamily):
    """The Poisson distribution with `rate`.

    Example:
        >>> d = oar.distribution.Poisson(2.0)
        >>> round(d.prob(oar.to_tensor(1.0)).item(), 4), d.variance.item()
        (0.2707, 2.0)
    """

    def __init__(self, rate):
        self.rate = to_params(rate)
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        with no_grad():
            return draw("poisson", self._extend_shape(shape), self.rate)

    def log_prob(self, value):
        k = value_like(value, self.rate)
        return k * log(self.rate) - self.rate - lgamma(k + 1)

    def entropy(self):
        """Entropy by summing over the support up to where the tail mass is below 1e-12 (as Paddle, a finite sum)."""
        rate_max = float(np.max(self.rate.numpy()))
        upper = int(rate_max + 30 * np.sqrt(rate_max + 1) + 30)
        ks = reshape(arange(0, upper + 1, dtype=self.rate.dtype), [upper + 1] + [1] * len(self._batch_shape))
        lp = self.log_prob(ks)
        return -reduction.sum(exp(lp) * lp, axis=0)
