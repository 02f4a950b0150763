"""Normalization kernels used outside the ops: batch norm's inference affine (for folding it into a layer)."""
import numpy as np


def batch_norm_affine(mean, var, gamma, beta, eps):
    """(scale, shift) per channel with ``batch_norm(x) == x * scale + shift`` at inference; gamma/beta None: 1/0."""
    gamma = gamma if gamma is not None else np.ones(mean.shape[0], mean.dtype)
    beta = beta if beta is not None else np.zeros(mean.shape[0], mean.dtype)
    scale = gamma / np.sqrt(var + eps)
    return scale, beta - mean * scale
