from .tensor import Tensor, Parameter, to_tensor, is_tensor
from .methods import TensorMethods
from .array import create_array, array_write, array_read, array_length, array_to_tensor, tensor_array_to_tensor


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of `shape` filled with `value` (Paddle's `paddle.tensor.fill_constant`); with `out`, the value
    is written into that tensor.

    Example:
        >>> oar.tensor.fill_constant([2], "int64", 3).numpy().tolist()
        [3, 3]
    """
    from ..ops.creation import assign, full
    result = full(shape, value, dtype)
    if out is not None:
        assign(result, out)
        return out
    return result


def __getattr__(name):
    """`paddle.tensor.<fn>`: Paddle keeps its tensor functions (creation, math, manipulation, ...) in this
    module too; here they are the top-level `oar.<fn>`."""
    import oar
    if not name.startswith("_") and name in getattr(oar, "__all__", dir(oar)):
        value = getattr(oar, name)
        if callable(value):
            return value
    raise AttributeError(f"module 'oar.tensor' has no attribute '{name}'")
