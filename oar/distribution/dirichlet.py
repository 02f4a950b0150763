"""`paddle.distribution.dirichlet` (Paddle's module path): Dirichlet, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Dirichlet"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
