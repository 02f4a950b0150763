"""NLP models written as PaddleNLP writes them (small sizes): a BERT encoder with pooler, a GPT decoder generating
greedily with a key/value cache in a ``while`` loop, an LSTM seq2seq with attention, a Transformer translation model
over ``nn.Transformer``, and a BiGRU + CNN text classifier."""
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle import ParamAttr
from paddle.nn.initializer import Normal, Uniform
from paddle.nn.layer.transformer import _convert_param_attr_to_list


class BertEmbeddings(nn.Layer):
    def __init__(self, vocab_size, hidden_size=16, max_position_embeddings=32, type_vocab_size=2):
        super(BertEmbeddings, self).__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(max_position_embeddings, hidden_size)
        self.token_type_embeddings = nn.Embedding(type_vocab_size, hidden_size)
        self.layer_norm = nn.LayerNorm(hidden_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids, token_type_ids=None, position_ids=None):
        if position_ids is None:
            ones = paddle.ones_like(input_ids, dtype="int64")
            seq_length = paddle.cumsum(ones, axis=-1)
            position_ids = seq_length - ones
            position_ids.stop_gradient = True
        if token_type_ids is None:
            token_type_ids = paddle.zeros_like(input_ids, dtype="int64")
        embeddings = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        embeddings = embeddings + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.layer_norm(embeddings))


class BertPooler(nn.Layer):
    def __init__(self, hidden_size):
        super(BertPooler, self).__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.activation = nn.Tanh()

    def forward(self, hidden_states):
        return self.activation(self.dense(hidden_states[:, 0]))


class BertModel(nn.Layer):
    def __init__(self, vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=32, pad_token_id=0):
        super(BertModel, self).__init__()
        self.pad_token_id = pad_token_id
        weight_attr = paddle.ParamAttr(initializer=nn.initializer.TruncatedNormal(mean=0.0, std=0.02))
        self.embeddings = BertEmbeddings(vocab_size, hidden_size)
        encoder_layer = nn.TransformerEncoderLayer(hidden_size, num_attention_heads, intermediate_size, dropout=0.1,
                                                   activation="gelu", attn_dropout=0.1, act_dropout=0,
                                                   weight_attr=weight_attr, normalize_before=False)
        self.encoder = nn.TransformerEncoder(encoder_layer, num_hidden_layers)
        self.pooler = BertPooler(hidden_size)

    def forward(self, input_ids, token_type_ids=None):
        attention_mask = paddle.unsqueeze(
            (input_ids == self.pad_token_id).astype(self.pooler.dense.weight.dtype) * -1e4, axis=[1, 2])
        embedding_output = self.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
        sequence_output = self.encoder(embedding_output, attention_mask)
        return sequence_output, self.pooler(sequence_output)


class GPTAttention(nn.Layer):
    """Causal self-attention; ``cache`` is the (keys, values) of the tokens before, returned grown by this call's."""

    def __init__(self, embed_dim, num_heads, weight_attr=None):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, embed_dim // num_heads
        self.qkv_proj = nn.Linear(embed_dim, 3 * embed_dim, weight_attr)
        self.out_proj = nn.Linear(embed_dim, embed_dim, weight_attr)

    def forward(self, x, attn_mask=None, cache=None):
        mix = self.qkv_proj(x)
        mix = paddle.reshape_(mix, [0, 0, self.num_heads, 3 * self.head_dim])
        mix = paddle.transpose(mix, [0, 2, 1, 3])
        q, k, v = paddle.split(mix, num_or_sections=3, axis=-1)
        if cache is not None:
            k = paddle.concat([cache[0], k], axis=2)
            v = paddle.concat([cache[1], v], axis=2)
        product = paddle.matmul(x=q, y=k, transpose_y=True) * self.head_dim ** -0.5
        if attn_mask is not None:
            product = product + attn_mask
        weights = F.softmax(product)
        out = paddle.matmul(weights, v)
        out = paddle.transpose(out, perm=[0, 2, 1, 3])
        out = paddle.reshape(x=out, shape=[0, 0, out.shape[2] * out.shape[3]])
        return self.out_proj(out), (k, v)


class GPTDecoderLayer(nn.Layer):
    def __init__(self, d_model, nhead, dim_feedforward, weight_attr=None, bias_attr=None):
        super().__init__()
        weight_attrs = _convert_param_attr_to_list(weight_attr, 3)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = GPTAttention(d_model, nhead, weight_attr=weight_attrs[0])
        self.linear1 = nn.Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.linear2 = nn.Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = nn.LayerNorm(d_model, epsilon=1e-5)
        self.norm2 = nn.LayerNorm(d_model, epsilon=1e-5)

    def forward(self, tgt, tgt_mask=None, cache=None):
        residual = tgt
        tgt, cache = self.self_attn(self.norm1(tgt), tgt_mask, cache)
        tgt = residual + tgt
        residual = tgt
        tgt = residual + self.linear2(F.gelu(self.linear1(self.norm2(tgt)), approximate=True))
        return tgt, cache


class GPTForGeneration(nn.Layer):
    def __init__(self, vocab_size=40, hidden_size=16, num_layers=2, num_heads=2, max_position=32, max_new_tokens=4):
        super().__init__()
        self.max_new_tokens = max_new_tokens
        init = ParamAttr(initializer=Normal(mean=0.0, std=0.02))
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size, weight_attr=init)
        self.position_embeddings = nn.Embedding(max_position, hidden_size, weight_attr=init)
        self.layers = nn.LayerList([GPTDecoderLayer(hidden_size, num_heads, 2 * hidden_size, weight_attr=init)
                                    for _ in range(num_layers)])
        self.norm = nn.LayerNorm(hidden_size)

    def step(self, ids, caches, start):
        length = paddle.shape(ids)[1]
        position_ids = paddle.arange(start, start + length, dtype="int64").unsqueeze(0)
        h = self.word_embeddings(ids) + self.position_embeddings(position_ids)
        mask = None
        if caches is None:
            mask = paddle.triu(paddle.full([length, length], -1e4, dtype=h.dtype), diagonal=1)
        new_caches = []
        for i, layer in enumerate(self.layers):
            h, c = layer(h, mask, None if caches is None else caches[i])
            new_caches.append(c)
        h = self.norm(h)
        logits = paddle.matmul(h, self.word_embeddings.weight, transpose_y=True)
        return logits, new_caches

    def forward(self, input_ids):
        logits, caches = self.step(input_ids, None, 0)
        next_tokens = paddle.argmax(logits[:, -1, :], axis=-1, keepdim=True)
        generated = next_tokens
        cur_len = paddle.shape(input_ids)[1]
        step = paddle.full([1], 1, dtype="int64")
        scores = F.log_softmax(logits[:, -1, :])
        while step < self.max_new_tokens:
            step_logits, caches = self.step(next_tokens, caches, cur_len)
            step_logits = step_logits[:, -1, :]
            scores = scores + F.log_softmax(step_logits)
            next_tokens = paddle.argmax(step_logits, axis=-1, keepdim=True)
            generated = paddle.concat([generated, next_tokens], axis=1)
            cur_len = cur_len + 1
            step = step + 1
        return generated, logits, scores


class Seq2SeqEncoder(nn.Layer):
    def __init__(self, vocab_size, embed_dim, hidden_size):
        super(Seq2SeqEncoder, self).__init__()
        self.embedder = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(input_size=embed_dim, hidden_size=hidden_size, num_layers=1, direction="bidirectional")

    def forward(self, sequence):
        encoder_output, (h, c) = self.lstm(self.embedder(sequence))
        return encoder_output, h, c


class AttentionLayer(nn.Layer):
    def __init__(self, hidden_size):
        super(AttentionLayer, self).__init__()
        self.input_proj = nn.Linear(2 * hidden_size, hidden_size)
        self.output_proj = nn.Linear(2 * hidden_size, hidden_size)

    def forward(self, hidden, encoder_output):
        encoder_output = self.input_proj(encoder_output)
        attn_scores = paddle.matmul(paddle.unsqueeze(hidden, [1]), encoder_output, transpose_y=True)
        attn_scores = F.softmax(attn_scores)
        attn_out = paddle.squeeze(paddle.matmul(attn_scores, encoder_output), [1])
        attn_out = paddle.concat([attn_out, hidden], 1)
        return self.output_proj(attn_out)


class Seq2SeqAttnModel(nn.Layer):
    def __init__(self, vocab_size=30, embed_dim=8, hidden_size=8):
        super(Seq2SeqAttnModel, self).__init__()
        self.hidden_size = hidden_size
        self.encoder = Seq2SeqEncoder(vocab_size, embed_dim, hidden_size)
        self.embedder = nn.Embedding(vocab_size, embed_dim)
        self.lstm_cell = nn.LSTMCell(input_size=embed_dim + hidden_size, hidden_size=hidden_size)
        self.attention = AttentionLayer(hidden_size)
        self.output_layer = nn.Linear(hidden_size, vocab_size,
                                      weight_attr=ParamAttr(initializer=Uniform(low=-0.1, high=0.1)))

    def forward(self, src, trg):
        encoder_output, h, c = self.encoder(src)
        state = (h[0] + h[1], c[0] + c[1])
        input_feed = paddle.zeros([paddle.shape(src)[0], self.hidden_size], dtype="float32")
        trg_emb = self.embedder(trg)
        outputs = []
        for i in range(trg.shape[1]):
            step_input = paddle.concat([trg_emb[:, i, :], input_feed], 1)
            out, state = self.lstm_cell(step_input, state)
            input_feed = self.attention(out, encoder_output)
            outputs.append(self.output_layer(input_feed))
        return paddle.stack(outputs, axis=1)


def position_encoding_init(n_position, d_pos_vec):
    channels = d_pos_vec
    position = np.arange(n_position)
    num_timescales = channels // 2
    log_timescale_increment = np.log(float(1e4) / float(1)) / (num_timescales - 1)
    inv_timescales = np.exp(np.arange(num_timescales) * -log_timescale_increment)
    scaled_time = np.expand_dims(position, 1) * np.expand_dims(inv_timescales, 0)
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return signal.astype("float32")


class PositionalEmbedding(nn.Layer):
    def __init__(self, emb_dim, max_length):
        super(PositionalEmbedding, self).__init__()
        self.emb_dim = emb_dim
        self.pos_encoder = nn.Embedding(
            num_embeddings=max_length, embedding_dim=self.emb_dim,
            weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
                position_encoding_init(max_length, self.emb_dim))))

    def forward(self, pos):
        pos_emb = self.pos_encoder(pos)
        pos_emb.stop_gradient = True
        return pos_emb


class TransformerNMT(nn.Layer):
    def __init__(self, vocab_size=30, d_model=16, n_head=2, d_inner_hid=32, max_length=16, bos_id=0):
        super(TransformerNMT, self).__init__()
        self.bos_id, self.d_model = bos_id, d_model
        self.src_word_embedding = nn.Embedding(vocab_size, d_model, weight_attr=paddle.ParamAttr(
            initializer=nn.initializer.Normal(0.0, d_model ** -0.5)))
        self.src_pos_embedding = PositionalEmbedding(d_model, max_length)
        self.transformer = paddle.nn.Transformer(d_model=d_model, nhead=n_head, num_encoder_layers=1,
                                                 num_decoder_layers=1, dim_feedforward=d_inner_hid, dropout=0.1,
                                                 activation="relu", normalize_before=True)

    def forward(self, src_word, trg_word):
        src_max_len = paddle.shape(src_word)[-1]
        trg_max_len = paddle.shape(trg_word)[-1]
        src_slf_attn_bias = paddle.cast(src_word == self.bos_id, dtype=paddle.get_default_dtype()).unsqueeze(
            [1, 2]) * -1e9
        src_slf_attn_bias.stop_gradient = True
        trg_slf_attn_bias = self.transformer.generate_square_subsequent_mask(trg_max_len)
        trg_slf_attn_bias.stop_gradient = True
        trg_src_attn_bias = src_slf_attn_bias
        src_pos = paddle.cast(src_word != self.bos_id, dtype=src_word.dtype) * paddle.arange(start=0,
                                                                                              end=src_max_len)
        trg_pos = paddle.cast(trg_word != self.bos_id, dtype=src_word.dtype) * paddle.arange(start=0,
                                                                                              end=trg_max_len)
        src_emb = self.src_word_embedding(src_word) * self.d_model ** 0.5 + self.src_pos_embedding(src_pos)
        trg_emb = self.src_word_embedding(trg_word) * self.d_model ** 0.5 + self.src_pos_embedding(trg_pos)
        dec_output = self.transformer(src_emb, trg_emb, src_mask=src_slf_attn_bias, tgt_mask=trg_slf_attn_bias,
                                      memory_mask=trg_src_attn_bias)
        return paddle.matmul(x=dec_output, y=self.src_word_embedding.weight, transpose_y=True)


class InferTransformerModel(nn.Layer):
    """Greedy translation as PaddleNLP's inference model runs it: the encoder once, then the decoder one token per
    step in a ``while`` loop, its self-attention keys/values carried in the incremental caches that
    ``nn.TransformerDecoder.gen_cache`` makes (cross-attention ones computed once, static)."""

    def __init__(self, vocab_size=30, d_model=16, n_head=2, max_out_len=4, bos_id=1, pad_id=0):
        super().__init__()
        self.d_model, self.max_out_len, self.bos_id, self.pad_id = d_model, max_out_len, bos_id, pad_id
        self.word_embedding = nn.Embedding(vocab_size, d_model)
        self.pos_embedding = PositionalEmbedding(d_model, 32)
        self.transformer = nn.Transformer(d_model=d_model, nhead=n_head, num_encoder_layers=1, num_decoder_layers=2,
                                          dim_feedforward=2 * d_model, dropout=0.0, normalize_before=True)
        self.linear = nn.Linear(d_model, vocab_size)

    def forward(self, src_word):
        src_max_len = paddle.shape(src_word)[-1]
        src_slf_attn_bias = paddle.cast(src_word == self.pad_id, dtype="float32").unsqueeze([1, 2]) * -1e9
        src_pos = paddle.arange(0, src_max_len, dtype="int64")
        enc_input = self.word_embedding(src_word) * self.d_model ** 0.5 + self.pos_embedding(src_pos)
        enc_output = self.transformer.encoder(enc_input, src_slf_attn_bias)
        caches = self.transformer.decoder.gen_cache(enc_output, do_zip=False)
        trg_word = paddle.full_like(src_word[:, :1], self.bos_id)
        out_ids = trg_word
        scores = paddle.zeros([paddle.shape(src_word)[0]], dtype="float32")
        step = paddle.zeros([1], dtype="int64")
        while step < self.max_out_len:
            trg_pos = paddle.zeros_like(trg_word) + step
            dec_input = self.word_embedding(trg_word) * self.d_model ** 0.5 + self.pos_embedding(trg_pos)
            dec_output, caches = self.transformer.decoder(dec_input, enc_output, None, src_slf_attn_bias, caches)
            logits = self.linear(dec_output[:, -1, :])
            log_probs = F.log_softmax(logits, axis=-1)
            trg_word = paddle.argmax(log_probs, axis=-1, keepdim=True)
            scores = scores + paddle.max(log_probs, axis=-1)
            out_ids = paddle.concat([out_ids, trg_word], axis=1)
            step = step + 1
        return out_ids, scores


class TextClassifier(nn.Layer):
    """A BiGRU over non-padding tokens (``sequence_length``) beside a CNN over the embeddings."""

    def __init__(self, vocab_size=40, emb_dim=8, hidden=8, num_classes=3, padding_idx=0):
        super().__init__()
        self.padding_idx = padding_idx
        self.embedder = nn.Embedding(vocab_size, emb_dim, padding_idx=padding_idx)
        self.gru = nn.GRU(emb_dim, hidden, num_layers=2, direction="bidirect")
        self.convs = nn.LayerList([nn.Conv1D(emb_dim, 4, k, padding="same") for k in (2, 3)])
        self.fc = nn.Linear(2 * hidden + 8, num_classes)

    def forward(self, text):
        seq_len = (text != self.padding_idx).astype("int64").sum(axis=1)
        emb = self.embedder(text)
        out, last = self.gru(emb, sequence_length=seq_len)
        rnn = paddle.concat([last[-2], last[-1]], axis=-1)
        conv_in = emb.transpose([0, 2, 1])
        cnn = paddle.concat([paddle.max(F.relu(conv(conv_in)), axis=-1) for conv in self.convs], axis=-1)
        return self.fc(paddle.concat([rnn, cnn], axis=-1))


PADDED = ("const", "int64", [[5, 7, 9, 11, 3, 0, 0, 0], [2, 4, 6, 8, 10, 12, 14, 16]])
ZOO = {
    "bert": (BertModel, [PADDED]),
    "gpt_kv_cache_generate": (GPTForGeneration, [("int64", [2, 5], 40)]),
    "seq2seq_lstm_attention": (Seq2SeqAttnModel, [("int64", [2, 6], 30), ("int64", [2, 5], 30)]),
    "transformer_nmt": (TransformerNMT, [("int64", [2, 7], 30), ("int64", [2, 6], 30)]),
    "bigru_cnn_classifier": (TextClassifier, [PADDED]),
    "transformer_cached_greedy_decode": (InferTransformerModel, [PADDED]),
}
