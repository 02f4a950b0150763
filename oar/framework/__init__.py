"""`oar.framework` (Paddle's `paddle.framework`): the framework-level names Paddle code imports from here.

Example:
    >>> from oar.framework import ParamAttr, get_default_dtype, in_dynamic_mode
    >>> get_default_dtype(), in_dynamic_mode()
    ('float32', True)
"""
from ..core.dtype import get_default_dtype, set_default_dtype
from ..core.state import (seed, in_dynamic_mode, no_grad, CPUPlace, CUDAPlace, set_grad_enabled, is_grad_enabled,
                          get_rng_state, set_rng_state)
from ..eager.tensor import Tensor, Parameter
from ..nn.param_attr import ParamAttr
from ..io.save_load import save, load
from . import io
