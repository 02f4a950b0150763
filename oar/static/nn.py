"""`oar.static.nn` (Paddle's `paddle.static.nn`): control flow, runtime checks and the layer functions of static
programs. Control flow and checks are defined in `oar.graph`, `fc` and `create_parameter` in `oar.nn`."""
from ..graph.control_flow import cond, while_loop, case, switch_case  # noqa: F401
from ..graph.debug_ops import Assert, Print  # noqa: F401
from ..nn.static_functions import (fc, create_parameter, conv2d, conv3d, conv2d_transpose, conv3d_transpose,  # noqa: F401
                                   batch_norm, layer_norm, embedding, bilinear_tensor_product)
