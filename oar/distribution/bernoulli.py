"""`paddle.distribution.bernoulli` (Paddle's module path): Bernoulli, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Bernoulli"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
