"""`paddle.distribution.independent` (Paddle's module path): Independent, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Independent"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
