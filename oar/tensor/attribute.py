"""`paddle.tensor.attribute` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["assign", "imag", "is_complex", "is_floating_point", "is_integer", "rank", "real", "shape"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
