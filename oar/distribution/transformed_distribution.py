"""`paddle.distribution.transformed_distribution` (Paddle's module path): TransformedDistribution,
the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["TransformedDistribution"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
