"""Normalization kernels: batch norm (batch or running statistics) and its first-order gradient, and its
inference affine (for folding it into a layer)."""
from .backend import array_module


def batch_norm_affine(mean, var, gamma, beta, eps):
    """(scale, shift) per channel with ``batch_norm(x) == x * scale + shift`` at inference; gamma/beta None: 1/0."""
    xp = array_module(mean, var, gamma, beta, eps)
    gamma = gamma if gamma is not None else xp.ones(mean.shape[0], mean.dtype)
    beta = beta if beta is not None else xp.zeros(mean.shape[0], mean.dtype)
    scale = gamma / xp.sqrt(var + eps)
    return scale, beta - mean * scale


def batch_norm_axes(ndim, data_format):
    ch = ndim - 1 if data_format[-1] == "C" and ndim > 2 else 1
    return tuple(i for i in range(ndim) if i != ch), ch


def broadcast_shape(ndim, ch, c):
    s = [1] * ndim
    s[ch] = c
    return s


def batch_norm(x, mean, var, scale, bias, momentum, epsilon, training, data_format, use_global_stats):
    xp = array_module(x, mean, var, scale, bias, momentum, epsilon, training, data_format, use_global_stats)
    axes, ch = batch_norm_axes(x.ndim, data_format)
    if training and not use_global_stats:
        m = x.mean(axis=axes)
        v = xp.maximum((x * x).mean(axis=axes) - m * m, 0) if x.dtype != xp.float64 else x.var(axis=axes)
        mean_out = (momentum * mean + (1 - momentum) * m).astype(mean.dtype, copy=False)
        var_out = (momentum * var + (1 - momentum) * v).astype(var.dtype, copy=False)
    else:
        m, v = mean, var
        mean_out, var_out = mean, var
    inv = (1.0 / xp.sqrt(v + epsilon)).astype(x.dtype, copy=False)
    bs = broadcast_shape(x.ndim, ch, x.shape[ch])
    a = (scale * inv).reshape(bs)
    b = (bias - m * scale * inv).reshape(bs)
    out = x * a + b
    return out.astype(x.dtype, copy=False), mean_out, var_out, xp.asarray(m, x.dtype), inv


def batch_norm_grad(x, scale, saved_mean, saved_inv, g, epsilon, training, data_format, use_global_stats, momentum):
    axes, ch = batch_norm_axes(x.ndim, data_format)
    bs = broadcast_shape(x.ndim, ch, x.shape[ch])
    xhat = (x - saved_mean.reshape(bs)) * saved_inv.reshape(bs)
    dbias = g.sum(axis=axes)
    dscale = (g * xhat).sum(axis=axes)
    if training and not use_global_stats:
        n = x.size // x.shape[ch]
        dx = (scale * saved_inv / n).reshape(bs) * (n * g - dbias.reshape(bs) - xhat * dscale.reshape(bs))
    else:
        dx = g * (scale * saved_inv).reshape(bs)
    return dx.astype(g.dtype, copy=False), dscale.astype(scale.dtype), dbias.astype(scale.dtype)
