"""`paddle.distribution.multinomial` (Paddle's module path): Multinomial, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Multinomial"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
