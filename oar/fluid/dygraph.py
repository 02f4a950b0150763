"""`fluid.dygraph`: ``guard``, ``to_variable`` and ``Layer`` as Paddle 2.x kept them; other names point to 2.x."""
import contextlib

from ..core.state import STATE
from ..nn.layer import Layer
from ..eager.tensor import Tensor, to_tensor
from ._legacy import missing

__all__ = ["guard", "to_variable", "Layer"]

_MOVED = {"Linear": "paddle.nn.Linear", "FC": "paddle.nn.Linear", "Conv2D": "paddle.nn.Conv2D(in_channels, "
          "out_channels, kernel_size, ...) followed by an activation", "Pool2D": "paddle.nn.MaxPool2D / AvgPool2D",
          "BatchNorm": "paddle.nn.BatchNorm2D", "Embedding": "paddle.nn.Embedding", "Dropout": "paddle.nn.Dropout",
          "to_static": "paddle.jit.to_static", "declarative": "paddle.jit.to_static",
          "TracedLayer": "paddle.jit.to_static + paddle.jit.save", "save_dygraph": "paddle.save",
          "load_dygraph": "paddle.load", "no_grad": "paddle.no_grad", "enabled": "paddle.in_dynamic_mode"}


@contextlib.contextmanager
def guard(place=None):
    """Runs the body in dynamic-graph mode (the default in Paddle 2.x, so this is only needed after
    ``paddle.enable_static()``); the previous mode comes back on exit.

    Example:
        >>> import oar.fluid as fluid
        >>> with fluid.dygraph.guard():
        ...     x = fluid.dygraph.to_variable(np.ones([2], np.float32))
        ...     print(x.numpy())
        [1. 1.]
    """
    was_static = STATE.static
    if was_static:
        from ..graph.builder import disable_static
        disable_static()
    try:
        yield
    finally:
        if was_static:
            from ..graph.builder import enable_static
            enable_static()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A Tensor from a NumPy array, list or Tensor (Paddle 2.x: ``paddle.to_tensor``; stop_gradient stays True).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.dygraph.to_variable(np.arange(3)).shape
        [3]
    """
    if isinstance(value, Tensor):
        return value if dtype is None else value.astype(dtype)
    t = to_tensor(value, dtype=dtype)
    if name is not None:
        t.name = name
    return t


def __getattr__(name):
    raise missing("paddle.fluid.dygraph", name, _MOVED)
