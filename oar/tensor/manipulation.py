"""`paddle.tensor.manipulation` (Paddle's module path, which model code imports): the functions Paddle's module has
that oar has, the objects of `oar.tensor`."""
from .. import tensor as _tensor

NAMES = ["as_complex", "as_real", "as_strided", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors",
         "broadcast_to", "cast", "cast_", "chunk", "column_stack", "concat", "crop", "dsplit", "dstack", "expand",
         "expand_as", "fill_constant", "flatten", "flatten_", "flip", "gather", "gather_nd", "hsplit", "hstack",
         "index_add", "index_add_", "index_put", "index_put_", "masked_fill", "moveaxis", "put_along_axis",
         "put_along_axis_", "repeat_interleave", "reshape", "reshape_", "roll", "rot90", "row_stack", "scatter",
         "scatter_", "scatter_nd", "scatter_nd_add", "shard_index", "slice", "split", "squeeze", "squeeze_",
         "stack", "strided_slice", "take_along_axis", "tensor_array_to_tensor", "tensor_split", "tensordot", "tile",
         "tolist", "transpose", "unbind", "unflatten", "unfold", "unique", "unique_consecutive", "unsqueeze",
         "unsqueeze_", "unstack", "view", "view_as", "vsplit", "vstack", "zeros"]
globals().update({n: getattr(_tensor, n) for n in NAMES})
