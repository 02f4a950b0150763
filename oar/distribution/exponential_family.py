"""`paddle.distribution.exponential_family` (Paddle's module path): ExponentialFamily,
the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["ExponentialFamily"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
