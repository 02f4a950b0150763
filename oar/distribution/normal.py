"""`paddle.distribution.normal` (Paddle's module path): Normal, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Normal"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
