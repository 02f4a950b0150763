"""`paddle.distribution.geometric` (Paddle's module path): Geometric, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Geometric"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
