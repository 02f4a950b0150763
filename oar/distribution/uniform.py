"""`paddle.distribution.uniform` (Paddle's module path): Uniform, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["Uniform"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
