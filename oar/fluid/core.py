"""`fluid.core`: only the build queries older examples call."""
from ..core.state import is_compiled_with_cuda
from ._legacy import missing

__all__ = ["is_compiled_with_cuda"]


def __getattr__(name):
    raise missing("paddle.fluid.core", name, {})
