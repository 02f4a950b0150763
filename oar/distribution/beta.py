"""`paddle.distribution.beta` (Paddle's module path): Beta, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Beta"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
