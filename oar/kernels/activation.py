"""Activation kernels: each forward ``f(x, **attrs)`` and its first-order gradient ``f_grad(x, out, g, **attrs)``
(``g * f'(x)``, from `x` or the forward's `out`, whichever is cheaper). The second-order rules are written with
ops in `oar/ops/nn/activation.py`."""
import math


from .elementwise import erf, sigmoid
from .backend import array_module

SQRT_2_PI = math.sqrt(2.0 / math.pi)


def relu(x):
    xp = array_module(x)
    return xp.maximum(x, 0)


def relu_grad(x, out, g):
    return g * (out > 0)


def relu6(x):
    xp = array_module(x)
    return xp.clip(x, 0, 6)


def relu6_grad(x, out, g):
    return g * ((x > 0) & (x < 6))


def leaky_relu(x, alpha):
    xp = array_module(x, alpha)
    return xp.where(x > 0, x, x * alpha)


def leaky_relu_grad(x, out, g, alpha):
    xp = array_module(x, out, g, alpha)
    return xp.where(x > 0, g, g * alpha)


def elu(x, alpha):
    xp = array_module(x, alpha)
    return xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0)))


def elu_grad(x, out, g, alpha):
    xp = array_module(x, out, g, alpha)
    return xp.where(x > 0, g, g * alpha * xp.exp(xp.minimum(x, 0)))


def selu(x, scale, alpha):
    return scale * elu(x, alpha)


def selu_grad(x, out, g, scale, alpha):
    xp = array_module(x, out, g, scale, alpha)
    return g * scale * xp.where(x > 0, 1.0, alpha * xp.exp(xp.minimum(x, 0)))


def gelu(x, approximate):
    xp = array_module(x, approximate)
    if approximate:
        return 0.5 * x * (1 + xp.tanh(SQRT_2_PI * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + erf(x / math.sqrt(2.0)))


def gelu_grad(x, out, g, approximate):
    xp = array_module(x, out, g, approximate)
    if approximate:
        t = xp.tanh(SQRT_2_PI * (x + 0.044715 * x ** 3))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_PI * (1 + 3 * 0.044715 * x * x))
    cdf = 0.5 * (1 + erf(x / math.sqrt(2.0)))
    return g * (cdf + x * xp.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


def swish(x, beta):
    return x * sigmoid(beta * x)


def swish_grad(x, out, g, beta):
    s = sigmoid(beta * x)
    return g * (s * (1 + beta * x * (1 - s)))


def silu(x):
    return swish(x, 1.0)


def silu_grad(x, out, g):
    return swish_grad(x, out, g, 1.0)


def softplus(x, beta, threshold):
    xp = array_module(x, beta, threshold)
    bx = x * beta
    return xp.where(bx > threshold, x, xp.logaddexp(0, bx) / beta)


def softplus_grad(x, out, g, beta, threshold):
    xp = array_module(x, out, g, beta, threshold)
    return g * xp.where(x * beta > threshold, 1.0, sigmoid(x * beta))


def mish(x, threshold):
    xp = array_module(x, threshold)
    return x * xp.tanh(softplus(x, 1.0, threshold))


def mish_grad(x, out, g, threshold):
    xp = array_module(x, out, g, threshold)
    t = xp.tanh(softplus(x, 1.0, threshold))
    return g * (t + x * (1 - t * t) * sigmoid(x))


def hardswish(x):
    xp = array_module(x)
    return x * xp.clip(x + 3, 0, 6) / 6


def hardswish_grad(x, out, g):
    xp = array_module(x, out, g)
    return g * xp.where(x < -3, 0.0, xp.where(x > 3, 1.0, (2 * x + 3) / 6))


def hardsigmoid(x, slope, offset):
    xp = array_module(x, slope, offset)
    return xp.clip(x * slope + offset, 0, 1)


def hardsigmoid_grad(x, out, g, slope, offset):
    return g * slope * ((out > 0) & (out < 1))


def hardtanh(x, min, max):
    xp = array_module(x, min, max)
    return xp.clip(x, min, max)


def hardtanh_grad(x, out, g, min, max):
    return g * ((x > min) & (x < max))


def softsign(x):
    xp = array_module(x)
    return x / (1 + xp.abs(x))


def softsign_grad(x, out, g):
    xp = array_module(x, out, g)
    return g / (1 + xp.abs(x)) ** 2


def log_sigmoid(x):
    xp = array_module(x)
    return -xp.logaddexp(0, -x)


def log_sigmoid_grad(x, out, g):
    return g * sigmoid(-x)


def tanh_shrink(x):
    xp = array_module(x)
    return x - xp.tanh(x)


def tanh_shrink_grad(x, out, g):
    xp = array_module(x, out, g)
    return g * xp.tanh(x) ** 2


def thresholded_relu(x, threshold):
    xp = array_module(x, threshold)
    return xp.where(x > threshold, x, 0)


def thresholded_relu_grad(x, out, g, threshold):
    return g * (x > threshold)


def softmax(x, axis):
    xp = array_module(x, axis)
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmax_grad(x, out, g, axis):
    return out * (g - (g * out).sum(axis=axis, keepdims=True))


def log_softmax(x, axis):
    xp = array_module(x, axis)
    s = x - x.max(axis=axis, keepdims=True)
    return s - xp.log(xp.exp(s).sum(axis=axis, keepdims=True))


def log_softmax_grad(x, out, g, axis):
    xp = array_module(x, out, g, axis)
    return g - xp.exp(out) * g.sum(axis=axis, keepdims=True)


def prelu_weight(x, w, data_format):
    """`w` (one slope or one per channel) shaped to broadcast against `x`."""
    if w.size == 1:
        return w.reshape(())
    shape = [1] * x.ndim
    shape[1 if data_format.startswith("NC") else x.ndim - 1] = w.size
    return w.reshape(shape)


def prelu(x, w, data_format):
    xp = array_module(x, w, data_format)
    return xp.where(x > 0, x, x * prelu_weight(x, w, data_format)).astype(x.dtype)


def prelu_grad(x, w, g, data_format):
    """(dx, dw)."""
    xp = array_module(x, w, g, data_format)
    dx = xp.where(x > 0, g, g * prelu_weight(x, w, data_format))
    dw_full = xp.where(x > 0, 0, g * x)
    if w.size == 1:
        dw = dw_full.sum().reshape(w.shape)
    else:
        ch = 1 if data_format.startswith("NC") else x.ndim - 1
        dw = dw_full.sum(axis=tuple(i for i in range(x.ndim) if i != ch)).reshape(w.shape)
    return dx.astype(g.dtype), dw.astype(w.dtype)


def cast_like(out, like):
    """`out` (an array or a scalar) in `like`'s dtype, without a copy when it already is."""
    xp = array_module(out, like)
    return xp.asarray(out).astype(like.dtype, copy=False)
