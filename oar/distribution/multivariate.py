"""Distributions over vectors: Dirichlet and Multinomial (event shape = the last dim of the parameters)."""
from ..core.state import no_grad
from ..ops import reduction
from ..ops.creation import arange, full
from ..ops.manipulation import reshape
from ..ops.math import exp, log, log1p
from ..ops.special import digamma, lgamma
from .distribution import Distribution, ExponentialFamily, draw, to_params, value_like


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the probability simplex, with `concentration` [..., k].

    Example:
        >>> d = oar.distribution.Dirichlet(oar.to_tensor([1.0, 2.0, 3.0]))
        >>> round(d.log_prob(oar.to_tensor([0.2, 0.3, 0.5])).item(), 4), [round(v, 4) for v in d.mean.tolist()]
        (1.5041, [0.1667, 0.3333, 0.5])
    """

    def __init__(self, concentration):
        self.concentration = to_params(concentration)
        if self.concentration.ndim < 1:
            raise ValueError("Dirichlet: concentration needs at least 1 dim (the categories)")
        c = self.concentration
        super().__init__(tuple(c.shape[:-1]), tuple(c.shape[-1:]))

    @property
    def mean(self):
        return self.concentration / reduction.sum(self.concentration, axis=-1, keepdim=True)

    @property
    def variance(self):
        c = self.concentration
        s = reduction.sum(c, axis=-1, keepdim=True)
        return c * (s - c) / (s * s * (s + 1))

    def sample(self, shape=()):
        with no_grad():
            g = draw("gamma", self._extend_shape(shape), self.concentration)
            return g / reduction.sum(g, axis=-1, keepdim=True)

    def log_prob(self, value):
        v = value_like(value, self.concentration)
        c = self.concentration
        return (reduction.sum((c - 1) * log(v), axis=-1) + lgamma(reduction.sum(c, axis=-1))
                - reduction.sum(lgamma(c), axis=-1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        s = reduction.sum(c, axis=-1)
        return (reduction.sum(lgamma(c), axis=-1) - lgamma(s) + (s - k) * digamma(s)
                - reduction.sum((c - 1) * digamma(c), axis=-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return reduction.sum(lgamma(x), axis=-1) - lgamma(reduction.sum(x, axis=-1))

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Multinomial(Distribution):
    """Counts of `total_count` draws among the categories of `probs` [..., k] (normalized over the last dim).

    Example:
        >>> d = oar.distribution.Multinomial(4, oar.to_tensor([0.5, 0.5]))
        >>> round(d.prob(oar.to_tensor([2.0, 2.0])).item(), 4), d.mean.numpy().tolist()
        (0.375, [2.0, 2.0])
    """

    def __init__(self, total_count, probs):
        if int(total_count) != total_count or total_count < 1:
            raise ValueError(f"Multinomial: total_count must be a positive int, got {total_count}")
        self.total_count = int(total_count)
        probs = to_params(probs)
        self.probs = probs / reduction.sum(probs, axis=-1, keepdim=True)
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        with no_grad():
            n = full([], float(self.total_count), self.probs.dtype)
            return draw("multinomial", self._extend_shape(shape), n, self.probs)

    def log_prob(self, value):
        v = value_like(value, self.probs)
        n = float(self.total_count)
        return (lgamma(full([], n + 1, v.dtype)) - reduction.sum(lgamma(v + 1), axis=-1)
                + reduction.sum(v * log(self.probs), axis=-1))

    def entropy(self):
        """The exact entropy ``n H(p) - log n! + sum_i E[log x_i!]``, with each x_i ~ Binomial(n, p_i)."""
        n = self.total_count
        ks = arange(0, n + 1, dtype=self.probs.dtype)
        ks = reshape(ks, [n + 1] + [1] * self.probs.ndim)
        p = self.probs
        log_binom = (lgamma(full([], n + 1.0, p.dtype)) - lgamma(ks + 1) - lgamma(n - ks + 1)
                     + ks * log(p) + (n - ks) * log1p(-p))
        e_log_fact = reduction.sum(exp(log_binom) * lgamma(ks + 1), axis=0)
        return (-n * reduction.sum(p * log(p), axis=-1) - lgamma(full([], n + 1.0, p.dtype))
                + reduction.sum(e_log_fact, axis=-1))
