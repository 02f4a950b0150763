"""`paddle.distribution.student_t` (Paddle's module path): StudentT, the objects of `oar.distribution`."""
from .. import distribution as _distribution

NAMES = ["StudentT"]
globals().update({n: getattr(_distribution, n) for n in NAMES})
