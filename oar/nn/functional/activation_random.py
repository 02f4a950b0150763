"""Activations that draw random numbers: randomized leaky ReLU and Gumbel-softmax (samples from oar's generator,
`oar.seed`; they compose other ops, so their gradients follow)."""
from ...ops import indexing as I
from ...ops import math as M
from ...ops import random as RND
from ...ops import search
from ...ops.nn.activation import softmax


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky ReLU: ``x`` where x >= 0, else ``a * x`` with ``a ~ U(lower, upper)`` drawn per element in
    training, ``a = (lower + upper) / 2`` in evaluation.

    Example:
        >>> import oar.nn.functional as F
        >>> [round(v, 4) for v in F.rrelu(oar.to_tensor([-1.0, 2.0]), 0.1, 0.3, training=False).numpy().tolist()]
        [-0.2, 2.0]
    """
    if not 0 <= lower <= upper <= 1:
        raise ValueError(f"rrelu: need 0 <= lower <= upper <= 1, got lower={lower}, upper={upper}")
    if x.dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError(f"rrelu: x must be a floating tensor, got {x.dtype.name}")
    if training:
        slope = RND.uniform(x.shape, dtype=x.dtype, min=lower, max=upper)
    else:
        slope = (lower + upper) / 2.0
    return M.where(x >= 0, x, x * slope)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """``softmax((x + g) / temperature)`` with ``g`` standard Gumbel noise; `hard` returns the one-hot of the argmax
    whose gradient is the soft sample's (straight-through).

    Example:
        >>> import oar.nn.functional as F
        >>> y = F.gumbel_softmax(oar.to_tensor([[1.0, 2.0, 3.0]]), hard=True)
        >>> float(y.sum()), sorted(set(y.numpy().ravel().tolist()))
        (1.0, [0.0, 1.0])
    """
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature must be positive, got {temperature}")
    u = RND.uniform(x.shape, dtype=x.dtype, min=0.0, max=1.0)
    tiny = 1e-20
    g = -M.log(-M.log(u + tiny) + tiny)
    y = softmax((x + g) / temperature, axis=axis)
    if not hard:
        return y
    axis = axis % x.ndim
    idx = search.argmax(y, axis=axis, keepdim=True)
    onehot = I.put_along_axis(M.zeros_like(y), idx, 1.0, axis=axis)
    return onehot - y.detach() + y
