"""Static graph API (Paddle 2.x `paddle.static`)."""
from ..graph.program import Program, Block, Operator
from ..graph.variable import Variable
from ..graph.builder import (default_main_program, default_startup_program, program_guard, data, enable_static,
                             disable_static, create_global_var)
from ..graph.scope import Scope, global_scope, scope_guard
from ..graph.executor import Executor, compile_program
from ..graph.backward import append_backward, gradients
from ..graph.input_spec import InputSpec
from ..graph.build_strategy import BuildStrategy
from ..passes.compiled_program import CompiledProgram
from ..graph.debug_ops import Print
from ..graph.py_func import py_func
from ..graph.moving_average import ExponentialMovingAverage
from .guards import cpu_places, device_guard, name_scope
from ..graph import control_flow as _control_flow, cf_grad as _cf_grad  # registers cond / while / while_grad
from ..graph import tensor_array as _array  # registers the tensor-array ops
from ..core.state import CPUPlace, CUDAPlace
from ..metric.metrics import accuracy  # noqa: E402  (paddle.static.accuracy: built from ops, so it builds here too)
from ..graph.metric import auc, ctr_metric_bundle  # noqa: E402


_MODEL_FILES = ("save_inference_model", "load_inference_model", "normalize_program", "serialize_program",
                "deserialize_program", "serialize_persistables", "deserialize_persistables", "save_to_file",
                "load_from_file")
_CHECKPOINTS = ("save", "load", "load_program_state", "set_program_state")


def __getattr__(name):
    """`paddle.static.nn`, `create_parameter`, `amp` and the inference-model functions load `oar.nn` / `oar.jit` on
    first use, so that `oar.lite` (which imports this namespace through `oar`) runs saved models without the
    layers."""
    import importlib
    if name == "WeightNormParamAttr":
        return importlib.import_module("oar.nn.param_attr").WeightNormParamAttr
    if name in ("nn", "create_parameter"):
        nn = importlib.import_module(".nn", __name__)
        return nn if name == "nn" else nn.create_parameter
    if name in _MODEL_FILES:
        return getattr(importlib.import_module("oar.jit.inference_model"), name)
    if name in _CHECKPOINTS:
        return getattr(importlib.import_module("oar.io.static_checkpoint"), name)
    if name == "amp":
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'oar.static' has no attribute {name!r}")
