"""`paddle.distribution.poisson` (Paddle's module path): Poisson, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Poisson"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
