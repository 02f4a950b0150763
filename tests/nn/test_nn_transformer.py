"""MultiHeadAttention and Transformer stacks against a NumPy reference of Paddle's formulas."""
import numpy as np

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
