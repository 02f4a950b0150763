"""`oar.base` (Paddle's `paddle.base`, the renamed `paddle.fluid` of Paddle 2.6+): the modules and names model
libraries import from it (`paddle.base.framework`, `.core`, `.dygraph`, `.param_attr`, `.data_feeder`,
`.unique_name`, `.initializer`) as thin re-exports of oar's own definitions. The rest of Paddle's 1.x-era API is
not provided (`oar.fluid` names the 2.x replacements).

Example:
    >>> from oar.base.framework import in_dygraph_mode, Variable
    >>> from oar.base.data_feeder import convert_dtype
    >>> in_dygraph_mode(), convert_dtype(oar.float32)
    (True, 'float32')
"""
from ..nn.param_attr import ParamAttr
from ..core.state import CPUPlace, CUDAPlace, in_dynamic_mode as in_dygraph_mode, in_pir_mode, in_dynamic_or_pir_mode
from ..core.info import get_flags, set_flags
from ..eager.tensor import Tensor
from ..graph.variable import Variable
from ..graph.program import Program
from ..graph.builder import default_main_program, default_startup_program, program_guard
from ..graph.executor import Executor
from ..graph.scope import Scope, global_scope, scope_guard
from ..graph.backward import append_backward, gradients
from ..graph.build_strategy import BuildStrategy
from ..passes.compiled_program import CompiledProgram
from ..core.state import is_compiled_with_cuda
from ..graph.builder import enable_static as disable_dygraph, disable_static as enable_dygraph
from . import core, data_feeder, dygraph, framework, initializer, param_attr, unique_name  # noqa: F401

__all__ = ["ParamAttr", "CPUPlace", "CUDAPlace", "in_dygraph_mode", "in_pir_mode", "in_dynamic_or_pir_mode",
           "get_flags", "set_flags", "Tensor", "Variable", "Program", "default_main_program",
           "default_startup_program", "program_guard", "Executor", "Scope", "global_scope", "scope_guard",
           "append_backward", "gradients", "BuildStrategy", "CompiledProgram", "is_compiled_with_cuda",
           "enable_dygraph", "disable_dygraph", "core", "data_feeder", "dygraph", "framework", "initializer",
           "param_attr", "unique_name"]
