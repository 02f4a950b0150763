"""`paddle.distribution.gamma` (Paddle's module path): Gamma, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Gamma"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
