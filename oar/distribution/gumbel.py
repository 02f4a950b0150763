"""`paddle.distribution.gumbel` (Paddle's module path): Gumbel, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Gumbel"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
