"""Probability distributions, transforms and KL divergences (Paddle's `paddle.distribution`).

Every distribution is written with oar ops: `log_prob`, `entropy` and `rsample` carry gradients to the parameters
and build static programs as any other op; `sample` draws from oar's seeded generator (`oar.seed`)."""
from .distribution import Distribution, ExponentialFamily
from .continuous import Normal, Uniform, Exponential, Gamma, Beta, Laplace, Gumbel, Cauchy, StudentT
from .discrete import Bernoulli, Binomial, Categorical, Geometric, Poisson
from .multivariate import Dirichlet, Multinomial
from .transformed import TransformedDistribution, Independent, LogNormal
from .transform import (Transform, AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform)
from .kl import kl_divergence, register_kl
from . import transform

__all__ = ["Distribution", "ExponentialFamily", "Normal", "Uniform", "Exponential", "Gamma", "Beta", "Laplace",
           "Gumbel", "Cauchy", "StudentT", "Bernoulli", "Binomial", "Categorical", "Geometric", "Poisson",
           "Dirichlet", "Multinomial", "TransformedDistribution", "Independent", "LogNormal", "kl_divergence",
           "register_kl"] + transform.__all__

# Paddle's module paths (`from paddle.distribution.normal import Normal`)
from . import (bernoulli, beta, binomial, categorical, cauchy, dirichlet, exponential, exponential_family,  # noqa: E402,F401
               gamma, geometric, gumbel, independent, laplace, lognormal, multinomial, normal, poisson, student_t,
               transformed_distribution, uniform)
