"""`paddle.tensor.creation` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["arange", "assign", "clone", "complex", "diag", "diag_embed", "diagflat", "empty", "empty_like", "eye",
         "fill_constant", "full", "full_like", "linspace", "logspace", "meshgrid", "ones", "ones_like", "polar",
         "to_tensor", "tril", "tril_", "tril_indices", "triu", "triu_", "triu_indices", "zeros", "zeros_like"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
