"""`paddle.distribution.laplace` (Paddle's module path): Laplace, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Laplace"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
