"""`oar.jit` (Paddle's `paddle.jit`): dynamic-to-static conversion (`to_static`), tracing (`trace`, `TracedLayer`),
and saving/loading converted models.

The conversion machinery lives in this package's modules (`api`, `static_function`, `transformers/`, `analysis/`,
the `convert_*` runtime, ...); the namespace lists only the public API. Saving/loading and tracing are imported on
first use (`oar.jit.save`, `oar.jit.trace`, ...), so a first `to_static` call does not pay for them.

Example:
    >>> sorted(oar.jit.__all__)[:4]
    ['ConcreteProgram', 'ProgramRunner', 'StaticFunction', 'TraceGuardError']
"""
import importlib
import threading

from .api import to_static, not_to_static, ignore_module, enable_to_static, set_code_level, set_verbosity
from .static_function import StaticFunction, ConcreteProgram
from .runner import ProgramRunner

# public name -> the module of this package defining it, imported on first access
_LAZY_NAMES = {"save": "save_load", "load": "save_load", "TranslatedLayer": "translated", "trace": "traced",
               "TracedFunction": "traced", "TraceGuardError": "traced", "TracedLayer": "traced_layer"}
_LAZY_LOCK = threading.RLock()

__all__ = ["save", "load", "to_static", "ignore_module", "TranslatedLayer", "set_code_level", "set_verbosity",
           "not_to_static", "enable_to_static", "StaticFunction", "ConcreteProgram", "ProgramRunner", "trace",
           "TracedLayer", "TracedFunction", "TraceGuardError"]


def __getattr__(name):
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'oar.jit' has no attribute {name!r}")
    with _LAZY_LOCK:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return list(__all__)
