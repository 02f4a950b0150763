"""Continuous univariate distributions: Normal, Uniform, Exponential, Gamma, Beta, Laplace, Gumbel, Cauchy, StudentT.

Every method is written with oar ops, so log_prob/entropy/rsample carry gradients to the parameters and work in
static programs too."""
import math

from ..core.dtype import float64
from ..core.state import no_grad
from ..ops import math as math_ops
from ..ops.creation import full_like
from ..ops.logic import logical_and
from ..ops.math import atan, erf, exp, expm1, log, log1p, ones_like, sign, tan, where
from ..ops.random import gaussian, uniform
from ..ops.special import digamma, erfinv, lgamma
from .distribution import Distribution, ExponentialFamily, draw, to_params, value_like

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.57721566490153286060


def _uniform01(shape, dtype, low=0.0):
    """Uniform samples in (low, 1): the open interval keeps log() finite."""
    tiny = 1e-12 if dtype is float64 else 1e-7
    return uniform(list(shape), dtype, max(low, tiny), 1.0)


class Normal(Distribution):
    """The normal (Gaussian) distribution with mean `loc` and standard deviation `scale`.

    Args:
        loc, scale: numbers, lists, arrays or Tensors (broadcast together; scale > 0).

    Example:
        >>> d = oar.distribution.Normal(0.0, 2.0)
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4), round(d.entropy().item(), 4)
        (-1.7371, 2.1121)
    """

    def __init__(self, loc, scale, name=None):
        self.loc, self.scale = to_params(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale * self.scale

    def sample(self, shape=(), seed=0):
        """Samples of ``shape + batch_shape``; a non-zero `seed` gives the same samples at every call."""
        with no_grad():
            return self.rsample(shape, seed)

    def rsample(self, shape=(), seed=0):
        eps = gaussian(list(self._extend_shape(shape)), 0.0, 1.0, seed, self.loc.dtype)
        return self.loc + self.scale * eps

    def log_prob(self, value):
        v = value_like(value, self.loc)
        z = (v - self.loc) / self.scale
        return -0.5 * z * z - log(self.scale) - _LOG_SQRT_2PI

    def entropy(self):
        return 0.5 + _LOG_SQRT_2PI + log(self.scale)

    def cdf(self, value):
        v = value_like(value, self.loc)
        return 0.5 * (1 + erf((v - self.loc) / (self.scale * math.sqrt(2.0))))

    def icdf(self, value):
        v = value_like(value, self.loc)
        return self.loc + self.scale * math.sqrt(2.0) * erfinv(2 * v - 1)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``; log_prob is -inf outside (Paddle's open bounds).

    Example:
        >>> d = oar.distribution.Uniform(1.0, 3.0)
        >>> round(d.log_prob(oar.to_tensor(2.0)).item(), 4), d.mean.item(), round(d.entropy().item(), 4)
        (-0.6931, 2.0, 0.6931)
    """

    def __init__(self, low, high, name=None):
        self.low, self.high = to_params(low, high)
        super().__init__(self.low.shape)

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def variance(self):
        w = self.high - self.low
        return w * w / 12

    def sample(self, shape=(), seed=0):
        """Samples of ``shape + batch_shape``; a non-zero `seed` gives the same samples at every call."""
        with no_grad():
            return self.rsample(shape, seed)

    def rsample(self, shape=(), seed=0):
        u = uniform(list(self._extend_shape(shape)), self.low.dtype, 0.0, 1.0, seed)
        return self.low + (self.high - self.low) * u

    def log_prob(self, value):
        v = value_like(value, self.low)
        inside = logical_and(self.low < v, v < self.high)
        dens = -log(self.high - self.low)
        return where(inside, dens + v * 0, full_like(v + dens, float("-inf")))

    def entropy(self):
        return log(self.high - self.low)


class Exponential(ExponentialFamily):
    """The exponential distribution with `rate` (density ``rate * exp(-rate * x)`` for x >= 0).

    Example:
        >>> d = oar.distribution.Exponential(2.0)
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4), d.mean.item()
        (-1.3069, 0.5)
    """

    def __init__(self, rate):
        self.rate = to_params(rate)
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return 1.0 / self.rate

    @property
    def variance(self):
        return 1.0 / (self.rate * self.rate)

    def rsample(self, shape=()):
        return -log(_uniform01(self._extend_shape(shape), self.rate.dtype)) / self.rate

    def log_prob(self, value):
        v = value_like(value, self.rate)
        return where(v >= 0, log(self.rate) - self.rate * v, full_like(v * self.rate, float("-inf")))

    def entropy(self):
        return 1.0 - log(self.rate)

    def cdf(self, value):
        v = value_like(value, self.rate)
        return 1 - exp(-self.rate * v)

    def icdf(self, value):
        v = value_like(value, self.rate)
        return -log1p(-v) / self.rate

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, eta):
        return -log(-eta)

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Gamma(ExponentialFamily):
    """The gamma distribution with shape `concentration` and `rate`.

    Example:
        >>> d = oar.distribution.Gamma(2.0, 1.0)
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4), d.mean.item(), d.variance.item()
        (-1.0, 2.0, 2.0)
    """

    def __init__(self, concentration, rate):
        self.concentration, self.rate = to_params(concentration, rate)
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / (self.rate * self.rate)

    def sample(self, shape=()):
        with no_grad():
            shape = self._extend_shape(shape)
            return draw("gamma", shape, self.concentration) / self.rate

    def log_prob(self, value):
        v = value_like(value, self.rate)
        a, b = self.concentration, self.rate
        return a * log(b) + (a - 1) * log(v) - b * v - lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - log(self.rate) + lgamma(a) + (1 - a) * digamma(a)

    @property
    def _natural_parameters(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * log(-1.0 / y)

    @property
    def _mean_carrier_measure(self):
        return 0.0


def _lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(a + b)


class Beta(ExponentialFamily):
    """The beta distribution on (0, 1) with shapes `alpha` and `beta`.

    Example:
        >>> d = oar.distribution.Beta(2.0, 3.0)
        >>> round(d.log_prob(oar.to_tensor(0.5)).item(), 4), d.mean.item()
        (0.4055, 0.4000000059604645)
    """

    def __init__(self, alpha, beta):
        self.alpha, self.beta = to_params(alpha, beta)
        super().__init__(self.alpha.shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1))

    def sample(self, shape=()):
        with no_grad():
            shape = self._extend_shape(shape)
            x = draw("gamma", shape, self.alpha)
            y = draw("gamma", shape, self.beta)
            return x / (x + y)

    def log_prob(self, value):
        v = value_like(value, self.alpha)
        a, b = self.alpha, self.beta
        return (a - 1) * log(v) + (b - 1) * log1p(-v) - _lbeta(a, b)

    def entropy(self):
        a, b = self.alpha, self.beta
        return (_lbeta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                + (a + b - 2) * digamma(a + b))

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return _lbeta(x, y)

    @property
    def _mean_carrier_measure(self):
        return 0.0


class Laplace(Distribution):
    """The Laplace distribution with location `loc` and scale `scale`.

    Example:
        >>> d = oar.distribution.Laplace(0.0, 1.0)
        >>> round(d.log_prob(oar.to_tensor(1.0)).item(), 4), d.variance.item()
        (-1.6931, 2.0)
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = to_params(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale * self.scale

    def rsample(self, shape=()):
        u = uniform(list(self._extend_shape(shape)), self.loc.dtype, -1.0 + 1e-7, 1.0)
        return self.loc - self.scale * sign(u) * log1p(-math_ops.abs(u))

    def log_prob(self, value):
        v = value_like(value, self.loc)
        return -log(2 * self.scale) - math_ops.abs(v - self.loc) / self.scale

    def entropy(self):
        return 1 + log(2 * self.scale)

    def cdf(self, value):
        v = value_like(value, self.loc)
        z = v - self.loc
        return 0.5 - 0.5 * sign(z) * expm1(-math_ops.abs(z) / self.scale)

    def icdf(self, value):
        v = value_like(value, self.loc)
        t = v - 0.5
        return self.loc - self.scale * sign(t) * log1p(-2 * math_ops.abs(t))


class Gumbel(Distribution):
    """The Gumbel (type-I extreme value) distribution with location `loc` and scale `scale`.

    Example:
        >>> d = oar.distribution.Gumbel(0.0, 1.0)
        >>> round(d.log_prob(oar.to_tensor(0.0)).item(), 4), round(d.mean.item(), 4)
        (-1.0, 0.5772)
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = to_params(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def variance(self):
        return (math.pi ** 2 / 6) * self.scale * self.scale

    def rsample(self, shape=()):
        u = _uniform01(self._extend_shape(shape), self.loc.dtype)
        return self.loc - self.scale * log(-log(u))

    def log_prob(self, value):
        z = (value_like(value, self.loc) - self.loc) / self.scale
        return -(z + exp(-z)) - log(self.scale)

    def entropy(self):
        return log(self.scale) + 1 + _EULER

    def cdf(self, value):
        z = (value_like(value, self.loc) - self.loc) / self.scale
        return exp(-exp(-z))


class Cauchy(Distribution):
    """The Cauchy distribution with location `loc` and scale `scale` (it has no mean or variance).

    Example:
        >>> d = oar.distribution.Cauchy(0.0, 1.0)
        >>> round(d.log_prob(oar.to_tensor(0.0)).item(), 4), round(d.cdf(oar.to_tensor(1.0)).item(), 4)
        (-1.1447, 0.75)
    """

    def __init__(self, loc, scale, name=None):
        self.loc, self.scale = to_params(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no standard deviation")

    def rsample(self, shape=()):
        u = _uniform01(self._extend_shape(shape), self.loc.dtype)
        return self.loc + self.scale * tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        z = (value_like(value, self.loc) - self.loc) / self.scale
        return -math.log(math.pi) - log(self.scale) - log1p(z * z)

    def entropy(self):
        return log(4 * math.pi * self.scale)

    def cdf(self, value):
        z = (value_like(value, self.loc) - self.loc) / self.scale
        return atan(z) / math.pi + 0.5


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, location `loc` and scale `scale`.

    Example:
        >>> d = oar.distribution.StudentT(3.0, 0.0, 1.0)
        >>> round(d.log_prob(oar.to_tensor(0.0)).item(), 4), d.variance.item()
        (-1.0009, 3.0)
    """

    def __init__(self, df, loc, scale, name=None):
        self.df, self.loc, self.scale = to_params(df, loc, scale)
        super().__init__(self.df.shape)

    @property
    def mean(self):
        return where(self.df > 1, self.loc, full_like(self.loc, float("nan")))

    @property
    def variance(self):
        df = self.df
        finite = self.scale * self.scale * df / where(df > 2, df - 2, ones_like(df))
        return where(df > 2, finite, where(df > 1, full_like(df, float("inf")),
                                                   full_like(df, float("nan"))))

    def sample(self, shape=()):
        with no_grad():
            return self.loc + self.scale * draw("student_t", self._extend_shape(shape), self.df)

    def log_prob(self, value):
        df = self.df
        z = (value_like(value, self.loc) - self.loc) / self.scale
        return (lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * math.pi) - log(self.scale)
                - (df + 1) / 2 * log1p(z * z / df))

    def entropy(self):
        df = self.df
        return ((df + 1) / 2 * (digamma((df + 1) / 2) - digamma(df / 2)) + 0.5 * log(df)
                + _lbeta(df / 2, full_like(df, 0.5)) + log(self.scale))
