"""Incremental decoding with caches (Paddle's Cache/StaticCache API): step-by-step outputs equal a full causal
pass (issue 25: the layers accepted `cache=` and ignored it; MultiHeadAttention raised)."""
import numpy as np
import pytest

import oar
from oar.nn import MultiHeadAttention


def _causal(n):
    return oar.nn.Transformer.generate_square_subsequent_mask(n)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_steps_with_caches_equal_the_full_causal_pass(normalize_before):
    oar.seed(0)
    layer = oar.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, normalize_before=normalize_before)
    dec = oar.nn.TransformerDecoder(layer, 2, norm=oar.nn.LayerNorm(16)).eval()
    tgt, memory = oar.randn([2, 5, 16]), oar.randn([2, 7, 16])
    full = dec(tgt, memory, tgt_mask=_causal(5)).numpy()
    cache = dec.gen_cache(memory)
    assert len(cache) == 2 and isinstance(cache[0][0], MultiHeadAttention.Cache)
    assert isinstance(cache[0][1], MultiHeadAttention.StaticCache) and cache[0][0].k.shape == [2, 4, 0, 4]
    steps = []
    for t in range(5):
        out, cache = dec(tgt[:, t:t + 1], memory, cache=cache)
        steps.append(out.numpy())
    assert cache[1][0].k.shape == [2, 4, 5, 4] and cache[1][1].k.shape == [2, 4, 7, 4]
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, rtol=1e-5, atol=1e-5)
    zipped = dec.gen_cache(memory, do_zip=True)
    assert len(zipped) == 2 and all(isinstance(c, MultiHeadAttention.Cache) for c in zipped[0])


def test_encoder_layer_cache_attends_to_earlier_steps():
    oar.seed(1)
    enc = oar.nn.TransformerEncoder(oar.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2).eval()
    src = oar.randn([3, 4, 8])
    full = enc(src, src_mask=_causal(4)).numpy()
    cache = enc.gen_cache(src)
    steps = []
    for t in range(4):
        out, cache = enc(src[:, t:t + 1], cache=cache)
        steps.append(out.numpy())
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, rtol=1e-5, atol=1e-5)


def test_multi_head_attention_caches():
    oar.seed(2)
    mha = MultiHeadAttention(8, 2, need_weights=True).eval()
    q, mem = oar.randn([1, 3, 8]), oar.randn([1, 6, 8])
    static = mha.gen_cache(mem, mem, type=MultiHeadAttention.StaticCache)
    out, weights, same = mha(q, None, None, cache=static)  # keys/values from the cache, not from q
    assert same is static and weights.shape == [1, 2, 3, 6]
    np.testing.assert_allclose(out.numpy(), mha(q, mem, mem)[0].numpy(), rtol=1e-6)
    k, v = mha.compute_kv(mem, mem)
    given = mha.gen_cache(k, v)  # a Cache of projected keys/values as they are
    out, _, grown = mha(q, cache=given)
    assert grown.k.shape == [1, 2, 9, 4]
    with pytest.raises(TypeError, match="cache must be a MultiHeadAttention.Cache or StaticCache"):
        mha(q, cache=(k, v))
