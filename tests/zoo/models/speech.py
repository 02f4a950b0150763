"""Speech models written as PaddleSpeech writes them (small sizes): a Conformer encoder (convolutional subsampling,
sinusoidal positions, macaron feed-forward, multi-head self-attention with a padding mask, GLU convolution module)
and DeepSpeech2 (conv front end with hardtanh, stacked GRUs, CTC log-probabilities)."""
import math

import paddle
from paddle import nn
from paddle.nn import functional as F


class Conv2dSubsampling4(nn.Layer):
    def __init__(self, idim, odim, dropout_rate=0.0):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2D(1, odim, 3, 2), nn.ReLU(), nn.Conv2D(odim, odim, 3, 2), nn.ReLU())
        self.out = nn.Sequential(nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim))
        self.subsampling_rate = 4

    def forward(self, x, x_mask):
        x = x.unsqueeze(1)  # (b, c=1, t, f)
        x = self.conv(x)
        b, c, t, f = x.shape
        x = self.out(x.transpose([0, 2, 1, 3]).reshape([b, -1, c * f]))
        return x, x_mask[:, :, :-2:2][:, :, :-2:2]


class PositionalEncoding(nn.Layer):
    def __init__(self, d_model, dropout_rate=0.0, max_len=64):
        super().__init__()
        self.d_model, self.xscale = d_model, math.sqrt(d_model)
        self.dropout = nn.Dropout(p=dropout_rate)
        pe = paddle.zeros([max_len, d_model])
        position = paddle.arange(0, max_len, dtype=paddle.float32).unsqueeze(1)
        div_term = paddle.exp(paddle.arange(0, d_model, 2, dtype=paddle.float32) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = paddle.sin(position * div_term)
        pe[:, 1::2] = paddle.cos(position * div_term)
        self.pe = pe.unsqueeze(0)

    def forward(self, x, offset=0):
        T = paddle.shape(x)[1]
        pos_emb = self.pe[:, offset:offset + T]
        x = x * self.xscale + pos_emb
        return self.dropout(x), self.dropout(pos_emb)


class PositionwiseFeedForward(nn.Layer):
    def __init__(self, idim, hidden_units, dropout_rate=0.0, activation=nn.Swish()):
        super().__init__()
        self.w_1 = nn.Linear(idim, hidden_units)
        self.activation = activation
        self.dropout = nn.Dropout(dropout_rate)
        self.w_2 = nn.Linear(hidden_units, idim)

    def forward(self, xs):
        return self.w_2(self.dropout(self.activation(self.w_1(xs))))


class MultiHeadedAttention(nn.Layer):
    def __init__(self, n_head, n_feat, dropout_rate=0.0):
        super().__init__()
        self.d_k, self.h = n_feat // n_head, n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.dropout = nn.Dropout(p=dropout_rate)

    def forward_qkv(self, query, key, value):
        n_batch = query.shape[0]
        q = self.linear_q(query).reshape([n_batch, -1, self.h, self.d_k]).transpose([0, 2, 1, 3])
        k = self.linear_k(key).reshape([n_batch, -1, self.h, self.d_k]).transpose([0, 2, 1, 3])
        v = self.linear_v(value).reshape([n_batch, -1, self.h, self.d_k]).transpose([0, 2, 1, 3])
        return q, k, v

    def forward_attention(self, value, scores, mask):
        n_batch = value.shape[0]
        mask = mask.unsqueeze(1).equal(paddle.to_tensor(0, dtype=mask.dtype))  # (batch, 1, *, time2)
        scores = scores.masked_fill(mask, -float("inf"))
        attn = paddle.nn.functional.softmax(scores, axis=-1).masked_fill(mask, 0.0)
        x = paddle.matmul(self.dropout(attn), value)
        x = x.transpose([0, 2, 1, 3]).reshape([n_batch, -1, self.h * self.d_k])
        return self.linear_out(x)

    def forward(self, query, key, value, mask):
        q, k, v = self.forward_qkv(query, key, value)
        scores = paddle.matmul(q, k, transpose_y=True) / math.sqrt(self.d_k)
        return self.forward_attention(v, scores, mask)


class ConvolutionModule(nn.Layer):
    def __init__(self, channels, kernel_size=5, activation=nn.ReLU(), bias=True):
        super().__init__()
        self.pointwise_conv1 = nn.Conv1D(channels, 2 * channels, kernel_size=1, stride=1, padding=0,
                                         bias_attr=None if bias else False)
        self.depthwise_conv = nn.Conv1D(channels, channels, kernel_size, stride=1, padding=(kernel_size - 1) // 2,
                                        groups=channels, bias_attr=None if bias else False)
        self.norm = nn.BatchNorm1D(channels)
        self.pointwise_conv2 = nn.Conv1D(channels, channels, kernel_size=1, stride=1, padding=0,
                                         bias_attr=None if bias else False)
        self.activation = activation

    def forward(self, x, mask_pad):
        x = x.transpose([0, 2, 1])  # [B, C, T]
        x = x.masked_fill(mask_pad.logical_not(), 0.0)
        x = nn.functional.glu(self.pointwise_conv1(x), axis=1)
        x = self.activation(self.norm(self.depthwise_conv(x)))
        x = self.pointwise_conv2(x)
        x = x.masked_fill(mask_pad.logical_not(), 0.0)
        return x.transpose([0, 2, 1])


class ConformerEncoderLayer(nn.Layer):
    def __init__(self, size, ff_units=32, n_head=2, kernel_size=5):
        super().__init__()
        self.self_attn = MultiHeadedAttention(n_head, size)
        self.feed_forward = PositionwiseFeedForward(size, ff_units)
        self.feed_forward_macaron = PositionwiseFeedForward(size, ff_units)
        self.conv_module = ConvolutionModule(size, kernel_size, activation=nn.Swish())
        self.norm_ff = nn.LayerNorm(size, epsilon=1e-12)
        self.norm_mha = nn.LayerNorm(size, epsilon=1e-12)
        self.norm_ff_macaron = nn.LayerNorm(size, epsilon=1e-12)
        self.norm_conv = nn.LayerNorm(size, epsilon=1e-12)
        self.norm_final = nn.LayerNorm(size, epsilon=1e-12)
        self.ff_scale = 0.5

    def forward(self, x, mask, mask_pad):
        x = x + self.ff_scale * self.feed_forward_macaron(self.norm_ff_macaron(x))
        residual = x
        x = self.norm_mha(x)
        x = residual + self.self_attn(x, x, x, mask)
        x = x + self.conv_module(self.norm_conv(x), mask_pad)
        x = x + self.ff_scale * self.feed_forward(self.norm_ff(x))
        return self.norm_final(x)


def make_non_pad_mask(lengths, max_len):
    batch_size = lengths.shape[0]
    seq_range = paddle.arange(0, max_len, dtype=paddle.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand([batch_size, max_len])
    return seq_range_expand < lengths.unsqueeze(-1)


class ConformerEncoder(nn.Layer):
    def __init__(self, input_size=20, output_size=16, num_blocks=2):
        super().__init__()
        self.embed = Conv2dSubsampling4(input_size, output_size)
        self.pos_enc = PositionalEncoding(output_size)
        self.after_norm = nn.LayerNorm(output_size, epsilon=1e-12)
        self.encoders = nn.LayerList([ConformerEncoderLayer(output_size) for _ in range(num_blocks)])

    def forward(self, xs, xs_lens):
        masks = make_non_pad_mask(xs_lens, xs.shape[1]).unsqueeze(1)  # (B, 1, L)
        xs, masks = self.embed(xs, masks.astype(xs.dtype))
        xs, pos_emb = self.pos_enc(xs)
        masks = masks.astype(paddle.bool)
        mask_pad = masks
        for layer in self.encoders:
            xs = layer(xs, masks, mask_pad)
        return self.after_norm(xs), masks.astype("int32").sum(-1).squeeze(1)


class ConvBn(nn.Layer):
    def __init__(self, num_channels_in, num_channels_out, kernel_size, stride, padding, act):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.conv = nn.Conv2D(num_channels_in, num_channels_out, kernel_size=kernel_size, stride=stride,
                              padding=padding, weight_attr=None, bias_attr=False, data_format="NCHW")
        self.bn = nn.BatchNorm2D(num_channels_out, data_format="NCHW")
        self.act = F.relu if act == "relu" else paddle.nn.functional.hardtanh

    def forward(self, x):
        x = self.act(self.bn(self.conv(x)), 0, 20) if self.act is not F.relu else self.act(self.bn(self.conv(x)))
        return x


class DeepSpeech2(nn.Layer):
    def __init__(self, feat_size=16, dict_size=10, rnn_size=16, num_rnn_layers=2):
        super().__init__()
        self.conv_in = ConvBn(1, 8, (5, 3), (2, 2), (2, 1), act="brelu")
        self.conv_stack = ConvBn(8, 8, (5, 3), (1, 2), (2, 1), act="brelu")
        self.rnn = nn.GRU(8 * 4, rnn_size, num_layers=num_rnn_layers, direction="forward")
        self.layernorm = nn.LayerNorm(rnn_size)
        self.ctc_lo = nn.Linear(rnn_size, dict_size)

    def forward(self, audio):
        x = audio.unsqueeze(1)  # [B, 1, T, D]
        x = self.conv_stack(self.conv_in(x))
        x = x.transpose([0, 2, 1, 3])  # [B, T, C, D]
        x = x.reshape([0, 0, -1])
        x, _ = self.rnn(x)
        return F.log_softmax(self.ctc_lo(self.layernorm(x)), axis=2)


ZOO = {
    "conformer_encoder": (ConformerEncoder, [("float32", [2, 24, 20]), ("const", "int64", [24, 9])]),
    "deepspeech2": (DeepSpeech2, [("float32", [2, 12, 16])]),
}
