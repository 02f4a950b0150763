"""`oar.jit` (Paddle's `paddle.jit`): dynamic-to-static conversion (`to_static`), tracing (`trace`, `TracedLayer`),
and saving/loading converted models.

The conversion machinery lives in this package's modules (`api`, `static_function`, `transformers/`, `analysis/`,
the `convert_*` runtime, ...); the namespace lists only the public API.

Example:
    >>> sorted(oar.jit.__all__)[:4]
    ['ConcreteProgram', 'ProgramRunner', 'StaticFunction', 'TraceGuardError']
"""
from .api import to_static, not_to_static, ignore_module, enable_to_static, set_code_level, set_verbosity
from .static_function import StaticFunction, ConcreteProgram
from .runner import ProgramRunner
from .save_load import save, load
from .translated import TranslatedLayer
from .traced import trace, TracedFunction, TraceGuardError
from .traced_layer import TracedLayer

__all__ = ["save", "load", "to_static", "ignore_module", "TranslatedLayer", "set_code_level", "set_verbosity",
           "not_to_static", "enable_to_static", "StaticFunction", "ConcreteProgram", "ProgramRunner", "trace",
           "TracedLayer", "TracedFunction", "TraceGuardError"]


def __dir__():
    return list(__all__)
