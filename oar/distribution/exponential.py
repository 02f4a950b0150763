"""`paddle.distribution.exponential` (Paddle's module path): Exponential, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Exponential"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
