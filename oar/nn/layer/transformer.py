"""Multi-head attention and the Transformer encoder/decoder stacks (Paddle 2.x layout: ``[batch, seq, d_model]``)."""

import collections
import copy
import math

from ..param_attr import ParamAttr
from ...ops import manipulation as S
from ...ops.creation import full
from ...ops.matrix import triu
from .. import functional as F
from .common import Dropout, Linear
from ..functional.attention import attention
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm


class MultiHeadAttention(Layer):
    """Attention with `num_heads` heads over query/key/value ``[batch, seq, embed_dim]``.

    `attn_mask` (bool/int: True = attend; float: added to the scores) broadcasts to
    ``[batch, num_heads, len_q, len_k]``.

    Caches (Paddle's incremental decoding): ``gen_cache(key)`` gives an empty `Cache` of projected keys and
    values ``[batch, num_heads, 0, head_dim]``; ``forward(query, ..., cache=c)`` appends this step's projected
    key/value to it and returns ``(out, new_cache)``. ``gen_cache(key, value, type=StaticCache)`` projects
    `key`/`value` once (an encoder's memory); forward then uses them instead of its key/value arguments.

    Example:
        >>> mha = oar.nn.MultiHeadAttention(16, 4)
        >>> mha(oar.ones([2, 5, 16])).shape
        [2, 5, 16]
        >>> cache = mha.gen_cache(oar.ones([2, 1, 16]))
        >>> out, cache = mha(oar.ones([2, 1, 16]), cache=cache)
        >>> out, cache = mha(oar.ones([2, 1, 16]), cache=cache)
        >>> cache.k.shape
        [2, 4, 2, 4]
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim={embed_dim} must be divisible by num_heads={num_heads}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim = embed_dim // num_heads
        self.need_weights = need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        b, l = x.shape[0], x.shape[1]
        return S.transpose(S.reshape(x, [b if b >= 0 else 0, l if l >= 0 else -1, self.num_heads, self.head_dim]),
                           [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """`key` and `value` projected and split into heads: two ``[batch, num_heads, seq, head_dim]`` tensors."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """A cache for `forward`: ``type=MultiHeadAttention.Cache`` with `value` None: empty, for incremental
        self-attention (`key` gives the batch size and dtype); with `value`: `key`/`value` used as the cached
        projected keys and values as they are. ``type=StaticCache``: `key`/`value` (default `key`) projected
        now, for cross-attention over a fixed memory."""
        if type is MultiHeadAttention.StaticCache:
            return type(*self.compute_kv(key, key if value is None else value))
        if type is not MultiHeadAttention.Cache:
            raise TypeError(f"gen_cache: type must be MultiHeadAttention.Cache or .StaticCache, got {type!r}")
        if value is not None:
            return type(key, value)
        k, v = self.compute_kv(key[:, :0], key[:, :0])
        return type(k, v)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        if isinstance(cache, MultiHeadAttention.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
            if isinstance(cache, MultiHeadAttention.Cache):
                k, v = S.concat([cache.k, k], axis=2), S.concat([cache.v, v], axis=2)
                cache = MultiHeadAttention.Cache(k, v)
            elif cache is not None:
                raise TypeError(f"MultiHeadAttention: cache must be a MultiHeadAttention.Cache or StaticCache "
                                f"(see gen_cache), got {type(cache).__name__}")
        out, weights = attention(q, k, v, attn_mask, self.dropout, self.training)
        b = out.shape[0]
        out = S.reshape(S.transpose(out, [0, 2, 1, 3]), [b if b >= 0 else 0, -1, self.embed_dim])
        out = self.out_proj(out)
        outs = [out] + ([weights] if self.need_weights else []) + ([cache] if cache is not None else [])
        return outs[0] if len(outs) == 1 else tuple(outs)


def _convert_param_attr_to_list(param_attr, n):
    """Paddle's per-sublayer attrs (`paddle.nn.layer.transformer._convert_param_attr_to_list`, which model code
    imports): a list of `n` attrs each made a ParamAttr (True -> default, False kept); one attr or bool repeated
    `n` times, a named attr getting ``_0``, ``_1``, ... suffixes so the parts' parameters keep distinct names.

    Example:
        >>> from oar.nn.layer.transformer import _convert_param_attr_to_list
        >>> [a.name for a in _convert_param_attr_to_list(oar.ParamAttr(name='w'), 2)]
        ['w_0', 'w_1']
    """
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise ValueError(f"param_attr as a list must have {n} entries, got {len(param_attr)}")
        return [ParamAttr._to_attr(a) for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(param_attr) for _ in range(n)]
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if attr.name:
            a.name = f"{attr.name}_{i}"
        out.append(a)
    return out


def _residual(x, norm, dropout, normalize_before, fn):
    """One residual sub-block as Paddle writes it: ``x + dropout(fn(norm(x)))`` (pre-norm) or
    ``norm(x + dropout(fn(x)))`` (post-norm)."""
    if normalize_before:
        return x + dropout(fn(norm(x)))
    return norm(x + dropout(fn(x)))


def _act(name):
    fn = getattr(F, name, None)
    if fn is None:
        raise ValueError(f"unknown activation {name!r}")
    return fn


class TransformerEncoderLayer(Layer):
    """Self-attention + feed-forward block with residuals; ``normalize_before`` selects pre-norm.

    Example:
        >>> layer = oar.nn.TransformerEncoderLayer(16, 4, 32)
        >>> layer(oar.ones([2, 5, 16])).shape
        [2, 5, 16]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w = _convert_param_attr_to_list(weight_attr, 2)  # [attention, feed-forward]
        b = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=w[0], bias_attr=b[0])
        self.linear1 = Linear(d_model, dim_feedforward, w[1], bias_attr=b[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[1], bias_attr=b[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _act(activation)

    def forward(self, src, src_mask=None, cache=None):
        """`src` through the layer; with `cache` (from `gen_cache`) the self-attention also attends to the keys and
        values cached so far, and the result is ``(out, new_cache)``."""
        pre = self.normalize_before
        new = []

        def attend(h):
            if cache is None:
                return self.self_attn(h, h, h, src_mask)
            out, c = self.self_attn(h, h, h, src_mask, cache)
            new.append(c)
            return out
        src = _residual(src, self.norm1, self.dropout1, pre, attend)
        out = _residual(src, self.norm2, self.dropout2, pre, self._feed_forward)
        return out if cache is None else (out, new[0])

    def gen_cache(self, src):
        """An empty incremental cache of this layer's self-attention (`src` gives batch size and dtype)."""
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)

    def _feed_forward(self, h):
        return self.linear2(self.dropout(self.activation(self.linear1(h))))


def _clones(layer, n):
    return LayerList([layer if i == 0 else type(layer)(**layer._config) for i in range(n)])


class TransformerEncoder(Layer):
    """`num_layers` copies of `encoder_layer` (fresh parameters each), then an optional `norm`.

    Example:
        >>> layer = oar.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> enc = oar.nn.TransformerEncoder(layer, num_layers=2)
        >>> enc(oar.randn([2, 5, 8])).shape
        [2, 5, 8]
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        """With `cache` (a list of one cache per layer, from `gen_cache`) returns ``(out, new_caches)``."""
        out, new = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask)
            else:
                out, c = layer(out, src_mask, cache[i])
                new.append(c)
        out = self.norm(out) if self.norm is not None else out
        return out if cache is None else (out, new)

    def gen_cache(self, src):
        """One empty incremental cache per layer."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention over `memory`, and feed-forward, each with a residual.

    Example:
        >>> layer = oar.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
        >>> layer(oar.randn([2, 3, 8]), oar.randn([2, 5, 8])).shape
        [2, 3, 8]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w = _convert_param_attr_to_list(weight_attr, 3)  # [self-attention, cross-attention, feed-forward]
        b = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=w[0], bias_attr=b[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=w[1], bias_attr=b[1])
        self.linear1 = Linear(d_model, dim_feedforward, w[2], bias_attr=b[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[2], bias_attr=b[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _act(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """`tgt` through the layer. With `cache` = ``(incremental Cache, StaticCache)`` from `gen_cache`, the
        self-attention appends this step's keys/values to the first and the cross-attention reads `memory`'s
        projections from the second; returns ``(out, (new incremental cache, static cache))``."""
        pre = self.normalize_before
        new = [None, None]

        def attend(which, h, kv, mask):
            attn = self.self_attn if which == 0 else self.cross_attn
            if cache is None:
                return attn(h, kv, kv, mask)
            out, new[which] = attn(h, kv, kv, mask, cache[which])
            return out
        tgt = _residual(tgt, self.norm1, self.dropout1, pre, lambda h: attend(0, h, h, tgt_mask))
        tgt = _residual(tgt, self.norm2, self.dropout2, pre, lambda h: attend(1, h, memory, memory_mask))
        out = _residual(tgt, self.norm3, self.dropout3, pre, self._feed_forward)
        return out if cache is None else (out, tuple(new))

    def gen_cache(self, memory):
        """``(empty incremental Cache of the self-attention, StaticCache of memory's cross-attention keys/values)``."""
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache))

    _feed_forward = TransformerEncoderLayer._feed_forward


class TransformerDecoder(Layer):
    """`num_layers` copies of `decoder_layer`, then an optional `norm`.

    Example:
        >>> layer = oar.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> dec = oar.nn.TransformerDecoder(layer, num_layers=2)
        >>> dec(oar.randn([2, 3, 8]), oar.randn([2, 5, 8])).shape
        [2, 3, 8]
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """With `cache` (one ``(Cache, StaticCache)`` per layer, from `gen_cache`) returns ``(out, new_caches)``:
        feed one step of `tgt` at a time with the caches returned by the previous step."""
        out, new = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask, memory_mask)
            else:
                out, c = layer(out, memory, tgt_mask, memory_mask, cache[i])
                new.append(c)
        out = self.norm(out) if self.norm is not None else out
        return out if cache is None else (out, new)

    def gen_cache(self, memory, do_zip=False):
        """One ``(Cache, StaticCache)`` per layer; ``do_zip=True`` gives ``[all Caches, all StaticCaches]``."""
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return [tuple(c) for c in zip(*cache)] if do_zip else cache


def _split_attrs(attr, what):
    """Transformer's attr lists as Paddle reads them: 1 entry for everything, 2 as [attention, feed-forward],
    3 as the decoder's [self-attention, cross-attention, feed-forward]. Returns (encoder, decoder) attrs."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[1]]
    if len(attr) == 3:
        return [attr[0], attr[2]], list(attr)
    raise ValueError(f"Transformer {what} as a list must have 1, 2 or 3 entries, got {len(attr)}")


class Transformer(Layer):
    """Encoder-decoder Transformer (each stack ends with a LayerNorm, as Paddle).

    Example:
        >>> model = oar.nn.Transformer(16, 4, 1, 1, 32)
        >>> model(oar.ones([2, 5, 16]), oar.ones([2, 3, 16])).shape
        [2, 3, 16]
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        kw = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                  normalize_before=normalize_before)
        (enc_w, dec_w), (enc_b, dec_b) = _split_attrs(weight_attr, "weight_attr"), _split_attrs(bias_attr, "bias_attr")
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, dim_feedforward, weight_attr=enc_w, bias_attr=enc_b, **kw),
            num_encoder_layers, LayerNorm(d_model))
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, dim_feedforward, weight_attr=dec_w, bias_attr=dec_b, **kw),
            num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    @staticmethod
    def generate_square_subsequent_mask(length):
        """A float ``[length, length]`` mask: 0 on and below the diagonal, -inf above."""
        return triu(full([length, length], -math.inf, "float32"), 1)
