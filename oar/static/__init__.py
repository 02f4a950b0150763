"""Static graph API (Paddle 2.x `paddle.static`)."""
from .program import Program, Block, Operator
from .variable import Variable
from .builder import (default_main_program, default_startup_program, program_guard, data,
                      enable_static, disable_static, create_global_var)
from .scope import Scope, global_scope, scope_guard
from .executor import Executor, compile_program
from .backward import append_backward, gradients
from .input_spec import InputSpec
from .build_strategy import BuildStrategy
from .compiled_program import CompiledProgram
from .debug_ops import Print
from . import control_flow as _control_flow, cf_grad as _cf_grad  # registers cond / while / while_grad
from . import nn
from .nn import create_parameter
from ..tensor import array as _array  # registers the tensor-array ops
from ..framework.state import CPUPlace, CUDAPlace
from ..metric.metrics import accuracy  # noqa: E402  (paddle.static.accuracy: built from ops, so it builds here too)
from .metric import auc  # noqa: E402
