"""`paddle.distribution.lognormal` (Paddle's module path): LogNormal, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["LogNormal"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
