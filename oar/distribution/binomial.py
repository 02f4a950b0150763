"""`paddle.distribution.binomial` (Paddle's module path): Binomial, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Binomial"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
