"""`paddle.tensor.search` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["argmax", "argmin", "argsort", "assign", "bucketize", "index_sample", "index_select", "kthvalue",
         "masked_select", "mode", "nonzero", "searchsorted", "sort", "topk", "where", "where_"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
