"""`oar.framework` (Paddle's `paddle.framework`): the framework-level names Paddle code imports from here.

Example:
    >>> from oar.framework import ParamAttr, get_default_dtype, in_dynamic_mode
    >>> get_default_dtype(), in_dynamic_mode()
    ('float32', True)
"""
from ..core.dtype import get_default_dtype, set_default_dtype, DType as dtype
from ..core.dtype import convert_dtype as convert_np_dtype_to_dtype_
from ..core.state import (seed, in_dynamic_mode, no_grad, CPUPlace, CUDAPlace, set_grad_enabled, is_grad_enabled,
                          get_rng_state, set_rng_state, use_pir_api, in_pir_mode, in_dynamic_or_pir_mode)
from ..core.info import get_flags, set_flags
from ..eager.tensor import Tensor, Parameter
from ..eager.engine import grad
from ..graph.program import Program, Block
from ..graph.builder import enable_static, disable_static
from ..nn.param_attr import ParamAttr
from ..io.save_load import save, load
from ..base import core  # noqa: F401  (paddle.framework.core is paddle.base.core)
from ..io import save_load as io
