"""`oar.static.nn` (Paddle's `paddle.static.nn`): control flow, runtime checks and the layer functions of static
programs. Control flow, checks, `py_func` and `static_pylayer` are defined in `oar.graph`, the layer functions in
`oar.nn` (`static_functions`, `static_norms`) and `deform_conv2d` in `oar.vision`."""
from ..graph.control_flow import cond, while_loop, case, switch_case  # noqa: F401
from ..graph.debug_ops import Assert, Print  # noqa: F401
from ..graph.py_func import py_func  # noqa: F401
from ..graph.static_pylayer import static_pylayer  # noqa: F401
from ..nn.static_functions import (fc, create_parameter, conv2d, conv3d, conv2d_transpose, conv3d_transpose,  # noqa: F401
                                   batch_norm, layer_norm, embedding, bilinear_tensor_product, row_conv)
from ..nn.static_norms import group_norm, instance_norm, prelu, spectral_norm  # noqa: F401
from ..vision.detection.deform import static_deform_conv2d as deform_conv2d  # noqa: F401
