"""`paddle.tensor.logic` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["allclose", "bitwise_and", "bitwise_and_", "bitwise_not", "bitwise_not_", "bitwise_or", "bitwise_or_",
         "bitwise_xor", "bitwise_xor_", "broadcast_shape", "equal", "equal_", "equal_all", "full", "greater_equal",
         "greater_equal_", "greater_than", "greater_than_", "is_empty", "is_tensor", "isclose", "less_equal",
         "less_equal_", "less_than", "less_than_", "logical_and", "logical_and_", "logical_not", "logical_not_",
         "logical_or", "logical_or_", "logical_xor", "logical_xor_", "not_equal", "not_equal_"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
