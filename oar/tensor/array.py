"""`oar.tensor.array` (Paddle's `paddle.tensor.array`): tensor arrays, defined in `oar.graph.tensor_array`."""
from ..graph.tensor_array import (create_array, array_write, array_read, array_length, array_to_tensor,  # noqa: F401
                                  tensor_array_to_tensor)
