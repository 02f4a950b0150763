"""`paddle.tensor.stat` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["cast", "mean", "median", "nanmedian", "nanquantile", "numel", "quantile", "std", "var"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
