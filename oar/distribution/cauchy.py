"""`paddle.distribution.cauchy` (Paddle's module path): Cauchy, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Cauchy"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
