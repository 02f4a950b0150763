"""MultiHeadAttention and Transformer stacks against a NumPy reference of Paddle's formulas."""
import numpy as np
import pytest

import oar
import oar.nn as nn

rng = np.random.default_rng(6)


def np_mha(q_in, k_in, v_in, layer, mask=None):
    p = {n: t.numpy().astype(np.float64) for n, t in layer.named_parameters()}
    h, d = layer.num_heads, layer.head_dim

    def proj(x, name):
        y = x @ p[name + ".weight"] + p[name + ".bias"]
        b, l, _ = y.shape
        return y.reshape(b, l, h, d).transpose(0, 2, 1, 3)
    q, k, v = proj(q_in, "q_proj"), proj(k_in, "k_proj"), proj(v_in, "v_proj")
    s = (q * d ** -0.5) @ k.transpose(0, 1, 3, 2)
    if mask is not None:
        s = s + (mask.astype(np.float64) - 1) * 1e9 if mask.dtype == bool else s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    o = (w @ v).transpose(0, 2, 1, 3).reshape(q_in.shape[0], -1, h * d)
    return o @ p["out_proj.weight"] + p["out_proj.bias"]


def test_multi_head_attention_matches_numpy():
    mha = nn.MultiHeadAttention(8, 2, kdim=6, vdim=5)
    mha.to(dtype="float64")
    q, k, v = rng.normal(size=(2, 3, 8)), rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 5))
    out = mha(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v))
    np.testing.assert_allclose(out.numpy(), np_mha(q, k, v, mha), rtol=1e-10)
    mask = rng.random((2, 1, 3, 4)) > 0.3
    mask[..., 0] = True
    out = mha(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v), attn_mask=oar.to_tensor(mask))
    np.testing.assert_allclose(out.numpy(), np_mha(q, k, v, mha, mask), rtol=1e-10)
    fmask = nn.Transformer.generate_square_subsequent_mask(3).numpy()
    assert fmask[0, 1] == -np.inf and fmask[1, 0] == 0
    mha.need_weights = True
    _, w = mha(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v))
    np.testing.assert_allclose(w.numpy().sum(-1), 1.0, rtol=1e-12)


def test_encoder_layer_matches_numpy_post_norm():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    layer.to(dtype="float64")
    x = rng.normal(size=(2, 5, 8))
    p = {n: t.numpy() for n, t in layer.named_parameters()}

    def ln(v, name):
        m = v.mean(-1, keepdims=True)
        s = ((v - m) ** 2).mean(-1, keepdims=True)
        return (v - m) / np.sqrt(s + 1e-5) * p[name + ".weight"] + p[name + ".bias"]
    h = ln(x + np_mha(x, x, x, layer.self_attn), "norm1")
    ff = np.maximum(h @ p["linear1.weight"] + p["linear1.bias"], 0) @ p["linear2.weight"] + p["linear2.bias"]
    ref = ln(h + ff, "norm2")
    np.testing.assert_allclose(layer(oar.to_tensor(x)).numpy(), ref, rtol=1e-9)


def test_stacks_have_fresh_parameters_and_shapes():
    enc_layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(enc_layer, 3, nn.LayerNorm(8))
    w0, w1 = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert w0 is not w1 and not np.allclose(w0.numpy(), w1.numpy())
    assert enc(oar.ones([2, 4, 8])).shape == [2, 4, 8]
    model = nn.Transformer(8, 2, 2, 2, 16)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert model(oar.ones([2, 4, 8]), oar.ones([2, 3, 8]), tgt_mask=tgt_mask).shape == [2, 3, 8]
    keys = list(model.state_dict())
    assert "encoder.layers.1.self_attn.q_proj.weight" in keys and "decoder.norm.bias" in keys


def np_ln(v, p, name):
    m = v.mean(-1, keepdims=True)
    s = ((v - m) ** 2).mean(-1, keepdims=True)
    return (v - m) / np.sqrt(s + 1e-5) * p[name + ".weight"] + p[name + ".bias"]


def np_ffn(v, p, pre=""):
    h = np.maximum(v @ p[pre + "linear1.weight"] + p[pre + "linear1.bias"], 0)
    return h @ p[pre + "linear2.weight"] + p[pre + "linear2.bias"]


def np_encoder_layer(x, layer, mask=None):
    p = {n: t.numpy() for n, t in layer.named_parameters()}
    if layer.normalize_before:
        x = x + np_mha(*[np_ln(x, p, "norm1")] * 3, layer.self_attn, mask)
        return x + np_ffn(np_ln(x, p, "norm2"), p)
    x = np_ln(x + np_mha(x, x, x, layer.self_attn, mask), p, "norm1")
    return np_ln(x + np_ffn(x, p), p, "norm2")


def np_decoder_layer(t, mem, layer, tgt_mask=None, mem_mask=None):
    """Paddle's TransformerDecoderLayer: self-attention, cross-attention, feed-forward; post- or pre-norm."""
    p = {n: v.numpy() for n, v in layer.named_parameters()}
    if layer.normalize_before:
        t = t + np_mha(*[np_ln(t, p, "norm1")] * 3, layer.self_attn, tgt_mask)
        t = t + np_mha(np_ln(t, p, "norm2"), mem, mem, layer.cross_attn, mem_mask)
        return t + np_ffn(np_ln(t, p, "norm3"), p)
    t = np_ln(t + np_mha(t, t, t, layer.self_attn, tgt_mask), p, "norm1")
    t = np_ln(t + np_mha(t, mem, mem, layer.cross_attn, mem_mask), p, "norm2")
    return np_ln(t + np_ffn(t, p), p, "norm3")


@pytest.mark.parametrize("pre", [False, True])
def test_encoder_and_decoder_layers_match_numpy(pre):
    enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=pre).to(dtype="float64")
    dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=pre).to(dtype="float64")
    x, t = rng.normal(size=(2, 5, 8)), rng.normal(size=(2, 3, 8))
    causal = nn.Transformer.generate_square_subsequent_mask(3).numpy().astype(np.float64)
    mem_mask = rng.random((2, 1, 3, 5)) > 0.3
    mem_mask[..., 0] = True
    np.testing.assert_allclose(enc(oar.to_tensor(x)).numpy(), np_encoder_layer(x, enc), rtol=1e-9, atol=1e-12)
    got = dec(oar.to_tensor(t), oar.to_tensor(x), oar.to_tensor(causal), oar.to_tensor(mem_mask)).numpy()
    np.testing.assert_allclose(got, np_decoder_layer(t, x, dec, causal, mem_mask), rtol=1e-9, atol=1e-12)


def test_transformer_matches_numpy_stacks():
    model = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0).to(dtype="float64")
    src, tgt = rng.normal(size=(2, 4, 8)), rng.normal(size=(2, 3, 8))
    causal = nn.Transformer.generate_square_subsequent_mask(3).numpy().astype(np.float64)
    p = {n: v.numpy() for n, v in model.named_parameters()}
    mem = src
    for layer in model.encoder.layers:
        mem = np_encoder_layer(mem, layer)
    mem = np_ln(mem, p, "encoder.norm")
    out = tgt
    for layer in model.decoder.layers:
        out = np_decoder_layer(out, mem, layer, causal)
    ref = np_ln(out, p, "decoder.norm")
    got = model(oar.to_tensor(src), oar.to_tensor(tgt), tgt_mask=oar.to_tensor(causal)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
    dec_only = model.decoder(oar.to_tensor(tgt), oar.to_tensor(mem), oar.to_tensor(causal)).numpy()
    np.testing.assert_allclose(dec_only, ref, rtol=1e-9, atol=1e-12)


def test_attr_lists_follow_paddle():
    const = nn.initializer.Constant
    enc = nn.TransformerEncoderLayer(4, 2, 8, weight_attr=[oar.ParamAttr(initializer=const(0.5)), None],
                                     bias_attr=[False, None])
    assert np.all(enc.self_attn.q_proj.weight.numpy() == 0.5) and enc.self_attn.q_proj.bias is None
    assert not np.all(enc.linear1.weight.numpy() == 0.5) and enc.linear1.bias is not None
    dec = nn.TransformerDecoderLayer(4, 2, 8, bias_attr=[None, False, None])
    assert dec.self_attn.k_proj.bias is not None and dec.cross_attn.k_proj.bias is None
    model = nn.Transformer(4, 2, 1, 1, 8, bias_attr=[None, False])  # [attention, feed-forward]
    assert model.encoder.layers[0].linear2.bias is None and model.decoder.layers[0].linear2.bias is None
    assert model.decoder.layers[0].cross_attn.out_proj.bias is not None
    named = nn.TransformerEncoderLayer(4, 2, 8, weight_attr=oar.ParamAttr(name="w"))
    assert named.self_attn.q_proj.weight.name == "w_0" and named.linear1.weight.name == "w_1"
    with pytest.raises(ValueError, match="3 entries"):
        nn.TransformerDecoderLayer(4, 2, 8, weight_attr=[None, None])
