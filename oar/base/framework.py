"""`paddle.base.framework`: the mode queries and static-graph classes model code imports from here."""
from ..core.state import (in_dynamic_mode as in_dygraph_mode, in_dynamic_mode as _non_static_mode,  # noqa: F401
                          in_pir_mode, in_dynamic_or_pir_mode, use_pir_api)
from ..core.dtype import convert_dtype as convert_np_dtype_to_dtype_  # noqa: F401
from ..eager.tensor import Tensor, Parameter, Parameter as EagerParamBase  # noqa: F401
from ..graph.variable import Variable  # noqa: F401
from ..graph.program import Program, Block, Operator  # noqa: F401
from ..graph.builder import default_main_program, default_startup_program, program_guard  # noqa: F401
