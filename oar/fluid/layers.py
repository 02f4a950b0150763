"""`fluid.layers`: the 1.x element-wise and reduction names the seeds use, as thin calls of the 2.x ops; other
names raise an error naming their 2.x replacement."""
from ..ops.logic import less_than
from ..ops.manipulation import reshape
from ..ops.math import add, add_n, divide, multiply, subtract
from ..ops.reduction import mean as _mean, sum as _sum
from ._legacy import missing

__all__ = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "sums", "reduce_sum",
           "reduce_mean", "mean", "reshape", "less_than"]

_MOVED = {"data": "paddle.static.data", "fc": "paddle.static.nn.fc / paddle.nn.Linear",
          "expand": "paddle.tile (fluid's expand repeats each dim by a factor)", "cross_entropy":
          "paddle.nn.functional.cross_entropy(logits, label) (fluid's took probabilities)",
          "accuracy": "paddle.metric.accuracy", "IfElse": "paddle.static.nn.cond (or Python if under "
          "@paddle.jit.to_static)", "While": "paddle.static.nn.while_loop", "cond": "paddle.static.nn.cond",
          "concat": "paddle.concat", "softmax": "paddle.nn.functional.softmax", "relu": "paddle.nn.functional.relu",
          "matmul": "paddle.matmul", "transpose": "paddle.transpose", "fill_constant": "paddle.full",
          "reduce_max": "paddle.max", "reduce_min": "paddle.min", "argmax": "paddle.argmax",
          "elementwise_max": "paddle.maximum", "elementwise_min": "paddle.minimum", "cast": "paddle.cast"}


def _axis_check(fn, axis):
    if axis != -1:
        raise ValueError(f"fluid.layers.{fn}: axis={axis} (aligning y to x's dim {axis}) is not supported; "
                         "reshape y so that it broadcasts (paddle.add etc. follow NumPy broadcasting)")


def elementwise_add(x, y, axis=-1, act=None, name=None):
    """``x + y`` with NumPy broadcasting (Paddle 2.x: ``paddle.add``).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.layers.elementwise_add(paddle.ones([2]), paddle.ones([2])).numpy()
        array([2., 2.], dtype=float32)
    """
    _axis_check("elementwise_add", axis)
    return _act(add(x, y), act, "elementwise_add")


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    """``x - y`` (Paddle 2.x: ``paddle.subtract``).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.layers.elementwise_sub(paddle.ones([2]), paddle.ones([2])).numpy()
        array([0., 0.], dtype=float32)
    """
    _axis_check("elementwise_sub", axis)
    return _act(subtract(x, y), act, "elementwise_sub")


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    """``x * y`` (Paddle 2.x: ``paddle.multiply``).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.layers.elementwise_mul(paddle.full([2], 3.0), paddle.full([2], 2.0)).numpy()
        array([6., 6.], dtype=float32)
    """
    _axis_check("elementwise_mul", axis)
    return _act(multiply(x, y), act, "elementwise_mul")


def elementwise_div(x, y, axis=-1, act=None, name=None):
    """``x / y`` (Paddle 2.x: ``paddle.divide``).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.layers.elementwise_div(paddle.full([2], 3.0), paddle.full([2], 2.0)).numpy()
        array([1.5, 1.5], dtype=float32)
    """
    _axis_check("elementwise_div", axis)
    return _act(divide(x, y), act, "elementwise_div")


def _act(out, act, fn):
    if act is None:
        return out
    from ..nn import functional as F
    f = getattr(F, act, None)
    if f is None:
        raise ValueError(f"fluid.layers.{fn}: unknown act {act!r}; use a paddle.nn.functional name such as 'relu'")
    return f(out)


def sums(input, out=None):
    """The element-wise sum of a list of tensors (Paddle 2.x: ``paddle.add_n``).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.layers.sums([paddle.ones([2]), paddle.ones([2]), paddle.ones([2])]).numpy()
        array([3., 3.], dtype=float32)
    """
    if out is not None:
        raise ValueError("fluid.layers.sums: out= is not supported; use the returned tensor")
    return add_n(input)


def reduce_sum(input, dim=None, keep_dim=False, name=None):
    """Sum over ``dim`` (all dims when None) (Paddle 2.x: ``paddle.sum(x, axis, keepdim)``).

    Example:
        >>> import oar.fluid as fluid
        >>> float(fluid.layers.reduce_sum(paddle.ones([2, 3])))
        6.0
    """
    return _sum(input, axis=dim, keepdim=keep_dim)


def reduce_mean(input, dim=None, keep_dim=False, name=None):
    """Mean over ``dim`` (Paddle 2.x: ``paddle.mean(x, axis, keepdim)``).

    Example:
        >>> import oar.fluid as fluid
        >>> fluid.layers.reduce_mean(paddle.to_tensor([[1.0, 3.0]]), dim=1).numpy()
        array([2.], dtype=float32)
    """
    return _mean(input, axis=dim, keepdim=keep_dim)


def mean(x, name=None):
    """The mean of all elements (Paddle 2.x: ``paddle.mean``).

    Example:
        >>> import oar.fluid as fluid
        >>> float(fluid.layers.mean(paddle.to_tensor([1.0, 2.0, 6.0])))
        3.0
    """
    return _mean(x)


def __getattr__(name):
    raise missing("paddle.fluid.layers", name, _MOVED)
