"""KL divergences: `kl_divergence(p, q)` looks up the rule registered with `register_kl` for the most specific
pair of classes (by method resolution order), as Paddle's registry does."""

from ..eager.engine import grad
from ..ops import math
from ..ops import reduction
from ..ops.creation import full_like
from ..ops.logic import logical_and
from ..ops.manipulation import unsqueeze
from ..ops.math import exp, log, log1p, where
from ..ops.special import digamma, lgamma
from .continuous import Beta, Cauchy, Exponential, Gamma, Gumbel, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Categorical, Geometric, Poisson
from .distribution import ExponentialFamily
from .multivariate import Dirichlet
from .transform import _sum_right
from .transformed import Independent, LogNormal

_REGISTRY = {}


def register_kl(cls_p, cls_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of class `cls_p` and q of class `cls_q`.

    Example:
        >>> class MyNormal(oar.distribution.Normal):
        ...     pass
        >>> @oar.distribution.register_kl(MyNormal, MyNormal)
        ... def _kl(p, q):
        ...     return oar.zeros([])
        >>> oar.distribution.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 1.0)).item()
        0.0
    """
    if not (isinstance(cls_p, type) and isinstance(cls_q, type)):
        raise TypeError("register_kl takes two Distribution classes")

    def decorator(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn
    return decorator


def _dispatch(cls_p, cls_q):
    matches = [(i + j, (p, q)) for i, p in enumerate(cls_p.__mro__) for j, q in enumerate(cls_q.__mro__)
               if (p, q) in _REGISTRY]
    if not matches:
        return None
    return _REGISTRY[min(matches, key=lambda m: m[0])[1]]


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], by the registered closed form for the pair's classes.

    Example:
        >>> p, q = oar.distribution.Normal(0.0, 1.0), oar.distribution.Normal(1.0, 2.0)
        >>> round(oar.distribution.kl_divergence(p, q).item(), 4)
        0.4431
    """
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"no KL divergence registered for ({type(p).__name__}, {type(q).__name__}); "
                                  f"add one with oar.distribution.register_kl")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal(p, q):
    r = p.scale / q.scale
    d = (p.loc - q.loc) / q.scale
    return 0.5 * (r * r + d * d) - 0.5 - log(r)


@register_kl(Uniform, Uniform)
def _kl_uniform(p, q):
    inside = logical_and(q.low <= p.low, p.high <= q.high)
    kl = log((q.high - q.low) / (p.high - p.low))
    return where(inside, kl, full_like(kl, float("inf")))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli(p, q):
    a, b = p.probs, q.probs
    return a * (log(a) - log(b)) + (1 - a) * (log1p(-a) - log1p(-b))


@register_kl(Binomial, Binomial)
def _kl_binomial(p, q):
    a, b = p.probs, q.probs
    return p.total_count * (a * (log(a) - log(b)) + (1 - a) * (log1p(-a) - log1p(-b)))


@register_kl(Categorical, Categorical)
def _kl_categorical(p, q):
    lp = p.logits - reduction.max(p.logits, axis=-1, keepdim=True)
    lq = q.logits - reduction.max(q.logits, axis=-1, keepdim=True)
    zp = reduction.sum(exp(lp), axis=-1, keepdim=True)
    zq = reduction.sum(exp(lq), axis=-1, keepdim=True)
    return reduction.sum(exp(lp) / zp * (lp - log(zp) - lq + log(zq)), axis=-1, keepdim=True)


@register_kl(Beta, Beta)
def _kl_beta(p, q):
    a1, b1, a2, b2 = p.alpha, p.beta, q.alpha, q.beta
    s1 = a1 + b1
    return (lgamma(s1) - lgamma(a1) - lgamma(b1) - lgamma(a2 + b2) + lgamma(a2)
            + lgamma(b2) + (a1 - a2) * digamma(a1) + (b1 - b2) * digamma(b1)
            + (a2 - a1 + b2 - b1) * digamma(s1))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    sa = reduction.sum(a, axis=-1)
    return (lgamma(sa) - lgamma(reduction.sum(b, axis=-1)) - reduction.sum(lgamma(a), axis=-1)
            + reduction.sum(lgamma(b), axis=-1)
            + reduction.sum((a - b) * (digamma(a) - unsqueeze(digamma(sa), -1)), axis=-1))


@register_kl(Exponential, Exponential)
def _kl_exponential(p, q):
    r = q.rate / p.rate
    return r - 1 - log(r)


@register_kl(Gamma, Gamma)
def _kl_gamma(p, q):
    a1, b1, a2, b2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * digamma(a1) - lgamma(a1) + lgamma(a2) + a2 * (log(b1) - log(b2))
            + a1 * (b2 - b1) / b1)


@register_kl(Laplace, Laplace)
def _kl_laplace(p, q):
    r = p.scale / q.scale
    d = math.abs(p.loc - q.loc) / q.scale
    return -log(r) + r * exp(-math.abs(p.loc - q.loc) / p.scale) + d - 1


@register_kl(Gumbel, Gumbel)
def _kl_gumbel(p, q):
    r = p.scale / q.scale
    d = (p.loc - q.loc) / q.scale
    return log(q.scale) - log(p.scale) + 0.57721566490153286060 * (r - 1) + exp(-d + lgamma(r + 1)) \
        + d - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy(p, q):
    s = p.scale + q.scale
    d = p.loc - q.loc
    return log(s * s + d * d) - log(4 * p.scale * q.scale)


@register_kl(Geometric, Geometric)
def _kl_geometric(p, q):
    # the true KL of geometric laws (Paddle 3.3.1's is the Bernoulli KL of the probabilities: docs/numerics.md)
    a, b = p.probs, q.probs
    return log(a / b) + (1.0 - a) / a * (log1p(-a) - log1p(-b))


@register_kl(Poisson, Poisson)
def _kl_poisson(p, q):
    return p.rate * (log(p.rate) - log(q.rate)) - p.rate + q.rate


@register_kl(LogNormal, LogNormal)
def _kl_lognormal(p, q):
    return _kl_normal(p._base, q._base)


@register_kl(Independent, Independent)
def _kl_independent(p, q):
    if p.reinterpreted_batch_rank != q.reinterpreted_batch_rank:
        raise NotImplementedError("KL between Independent distributions with different reinterpreted ranks")
    return _sum_right(kl_divergence(p.base, q.base), p.reinterpreted_batch_rank)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family(p, q):
    """The Bregman divergence of the log-normalizer (both of the same family)."""
    if type(p) is not type(q):
        raise NotImplementedError(f"no KL divergence registered for ({type(p).__name__}, {type(q).__name__})")
    etas = [e.detach() for e in p._natural_parameters]
    for e in etas:
        e.stop_gradient = False
    lp = p._log_normalizer(*etas)
    grads = grad(lp.sum(), etas, create_graph=True)
    kl = q._log_normalizer(*q._natural_parameters) - lp
    for ep, eq, g in zip(etas, q._natural_parameters, grads):
        kl = kl - _sum_right((eq - ep) * g, len(p.event_shape))
    return kl


