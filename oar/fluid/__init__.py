"""`oar.fluid`: the few Paddle 1.x ``paddle.fluid`` names that Paddle 2.x still kept as aliases of its 2.x API
(``fluid.dygraph.Layer`` *is* ``paddle.nn.Layer``), so older examples such as the seeds' import lines work.

Everything else of the 1.x API is not provided: reaching for it raises an AttributeError that names the
Paddle 2.x replacement (from Paddle's 1.8 -> 2.0 API mapping) instead of a bare "no attribute"."""
from ..nn.param_attr import ParamAttr
from ..core.state import CPUPlace, CUDAPlace
from ..graph.executor import Executor
from ..graph.program import Program
from ..graph.builder import default_main_program, default_startup_program, program_guard, data
from ..graph.build_strategy import BuildStrategy
from . import core, dygraph, layers
from ._legacy import missing

__all__ = ["ParamAttr", "CPUPlace", "CUDAPlace", "Executor", "Program", "default_main_program",
           "default_startup_program", "program_guard", "data", "BuildStrategy", "core", "dygraph", "layers"]

_MOVED = {"enable_dygraph": "paddle.disable_static", "disable_dygraph": "paddle.enable_static",
          "enable_imperative": "paddle.disable_static", "global_scope": "paddle.static.global_scope",
          "gradients": "paddle.static.gradients", "optimizer": "paddle.optimizer (e.g. AdamOptimizer -> "
          "paddle.optimizer.Adam(learning_rate, parameters=model.parameters()))",
          "initializer": "paddle.nn.initializer (NormalInitializer -> paddle.nn.initializer.Normal)",
          "param_attr": "paddle.ParamAttr", "io": "paddle.io / paddle.static (save/load_inference_model)",
          "embedding": "paddle.nn.functional.embedding", "one_hot": "paddle.nn.functional.one_hot"}


def __getattr__(name):
    raise missing("paddle.fluid", name, _MOVED)
