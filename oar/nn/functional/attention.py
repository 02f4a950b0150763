"""Attention helpers shared by `MultiHeadAttention` and the Transformer layers."""
from ...kernels.linalg import tri_ones
from ...ops import manipulation as S
from ...ops import math as M
from ...ops.common import operand
from ...ops.nn.activation import softmax
from ...ops.nn.common import dropout


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 training=True, name=None):
    """softmax(q k^T / sqrt(d) + mask) v for ``[batch, seq, heads, head_dim]`` inputs (Paddle's layout).

    A boolean `attn_mask` keeps positions where it is True; a float mask is added to the scores.

    Example:
        >>> import oar.nn.functional as F
        >>> q = oar.ones([2, 5, 4, 8])  # [batch, seq, heads, head_dim]
        >>> F.scaled_dot_product_attention(q, q, q, is_causal=True).shape
        [2, 5, 4, 8]
    """
    q = S.transpose(query, [0, 2, 1, 3])
    k = S.transpose(key, [0, 2, 1, 3])
    v = S.transpose(value, [0, 2, 1, 3])
    out, _ = attention(q, k, v, attn_mask, dropout_p, training, is_causal)
    return S.transpose(out, [0, 2, 1, 3])


def attention(q, k, v, attn_mask=None, dropout_p=0.0, training=True, is_causal=False):
    """``[batch, heads, seq, head_dim]`` attention; returns ``(output, attention weights)``."""
    d = q.shape[-1]
    scores = M.matmul(q * (float(d) ** -0.5), k, transpose_y=True)
    if is_causal:
        lq, lk = scores.shape[-2], scores.shape[-1]
        scores = scores + operand((tri_ones(lq, lk, 1, False) * -1e9).astype(scores.dtype.np), scores)
    if attn_mask is not None:
        scores = scores + mask_to_bias(attn_mask, scores.dtype)
    w = softmax(scores, axis=-1)
    if dropout_p:
        w = dropout(w, dropout_p, training=training)
    return M.matmul(w, v), w


def mask_to_bias(mask, dtype):
    """Boolean/integer masks (True = attend) become 0 / -1e9 additive biases; float masks pass through."""
    if mask.dtype.kind in "biu":
        m = M.cast(mask, dtype)
        return (m - 1.0) * 1e9
    return M.cast(mask, dtype) if mask.dtype is not dtype else mask
