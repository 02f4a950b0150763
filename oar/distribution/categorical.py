"""`paddle.distribution.categorical` (Paddle's module path): Categorical, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Categorical"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
