"""Activations written with other ops (no kernel or gradient rule of their own, so higher-order gradients, static
mode and ONNX export come from their parts), and the in-place forms of `paddle.nn.functional`'s activations."""
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from .activation import elu, hardtanh, leaky_relu, silu, softmax, tanh, thresholded_relu


def hardshrink(x, threshold=0.5, name=None):
    """x where |x| >= threshold, else 0 (composed: x times the mask, so the gradient is the mask). Paddle's
    documentation says ``|x| > threshold``; its kernel keeps ``|x| == threshold``, and so does oar.

    Example:
        >>> x = oar.to_tensor([-1.0, -0.3, 0.0, 0.5, 2.0])
        >>> oar.nn.functional.hardshrink(x, threshold=0.5).numpy().tolist()
        [-1.0, -0.0, 0.0, 0.5, 2.0]
    """
    return x * M.cast(M.abs(x) >= float(threshold), x.dtype)


def softshrink(x, threshold=0.5, name=None):
    """x - threshold where x > threshold, x + threshold where x < -threshold, else 0 (``x - clip(x, -t, t)``).

    Example:
        >>> x = oar.to_tensor([-1.0, -0.3, 0.0, 2.0])
        >>> oar.nn.functional.softshrink(x, threshold=0.5).numpy().tolist()
        [-0.5, 0.0, 0.0, 1.5]
    """
    if threshold < 0:
        raise ValueError(f"softshrink: threshold must be >= 0, got {threshold}")
    return x - M.clip(x, -float(threshold), float(threshold))


def swiglu(x, y=None, name=None):
    """``silu(x) * y``; without `y`, `x`'s last dim is split in half into x and y.

    Example:
        >>> out = oar.nn.functional.swiglu(oar.to_tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> [round(v, 4) for v in out.numpy()[0].tolist()]
        [2.1932, 7.0464]
    """
    if y is None:
        if x.shape[-1] % 2:
            raise ValueError(f"swiglu: without y the last dim of x must be even, got shape {list(x.shape)}")
        x, y = S.split(x, 2, axis=-1)
    return silu(x) * y


def celu(x, alpha=1.0, name=None):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example:
        >>> [round(v, 4) for v in oar.nn.functional.celu(oar.to_tensor([-1.0, 2.0]), alpha=2.0).numpy().tolist()]
        [-0.7869, 2.0]
    """
    if alpha == 0:
        raise ZeroDivisionError("celu: alpha must not be 0")
    return M.maximum(x, M.zeros_like(x)) + M.minimum(M.zeros_like(x), alpha * M.expm1(x / alpha))


def maxout(x, groups, axis=1, name=None):
    """The maximum over each run of `groups` consecutive channels of `axis` (1 or -1 for NCHW / NHWC).

    Example:
        >>> x = oar.arange(16, dtype='float32').reshape([1, 4, 2, 2])
        >>> oar.nn.functional.maxout(x, 2).numpy()[0, :, 0, 0].tolist()
        [4.0, 12.0]
    """
    nd = len(x.shape)
    if axis not in (1, -1, nd - 1):
        raise ValueError(f"maxout: axis must be 1 or -1, got {axis}")
    axis = axis % nd
    c = x.shape[axis]
    if c % groups:
        raise ValueError(f"maxout: the channel count {c} is not divisible by groups={groups}")
    shape = list(x.shape[:axis]) + [c // groups, groups] + list(x.shape[axis + 1:])
    return R.max(S.reshape(x, shape), axis=axis + 1)


def tanh_(x, name=None):
    """In-place `tanh`.

    Example:
        >>> x = oar.to_tensor([0.0])
        >>> oar.nn.functional.tanh_(x) is x
        True
    """
    return x._inplace(tanh(x))


def elu_(x, alpha=1.0, name=None):
    """In-place `elu`.

    Example:
        >>> x = oar.to_tensor([-1.0, 1.0])
        >>> [round(v, 4) for v in oar.nn.functional.elu_(x).numpy().tolist()]
        [-0.6321, 1.0]
    """
    return x._inplace(elu(x, alpha))


def softmax_(x, axis=-1, dtype=None, name=None):
    """In-place `softmax`.

    Example:
        >>> x = oar.to_tensor([1.0, 1.0])
        >>> oar.nn.functional.softmax_(x).numpy().tolist()
        [0.5, 0.5]
    """
    return x._inplace(softmax(x, axis, dtype))


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    """In-place `hardtanh`.

    Example:
        >>> oar.nn.functional.hardtanh_(oar.to_tensor([-3.0, 0.5])).numpy().tolist()
        [-1.0, 0.5]
    """
    return x._inplace(hardtanh(x, min, max))


def leaky_relu_(x, negative_slope=0.01, name=None):
    """In-place `leaky_relu`.

    Example:
        >>> oar.nn.functional.leaky_relu_(oar.to_tensor([-2.0, 1.0]), 0.5).numpy().tolist()
        [-1.0, 1.0]
    """
    return x._inplace(leaky_relu(x, negative_slope))


def thresholded_relu_(x, threshold=1.0, name=None):
    """In-place `thresholded_relu`.

    Example:
        >>> oar.nn.functional.thresholded_relu_(oar.to_tensor([0.5, 2.0])).numpy().tolist()
        [0.0, 2.0]
    """
    return x._inplace(thresholded_relu(x, threshold))
