"""Reference outputs of Paddle 3.3.1's `nn.BeamSearchDecoder` + `nn.dynamic_decode` (eager) for
tests/nn/test_beam_search.py: small GRU / LSTM decoders whose weights come from a formula (`weights` below; the test
has the same formula), decoded with several beam sizes, step limits and layouts.

Per case it saves the final sequences (`ids`, after gather_tree), the final states' log_probs / finished / lengths
and cell states, the returned sequence lengths, and the raw per-step outputs (scores, predicted_ids, parent_ids) of a
second run whose decoder skips `finalize`.

Run with Paddle's interpreter: /work/paddle_venv/bin/python tools/paddle_refs/beam_search_refs.py
(writes tests/nn/data/beam_search_refs.npz). The test imports this file for CASES, `weights`, `build` and
`initial_states` (paddle is imported only by `main`)."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "nn", "data", "beam_search_refs.npz")

# (key, cell, batch, beam_size, vocab, embed, hidden, scale, end_bias, max_step_num, output_time_major): the weights
# are the formula times `scale`, the end token's output bias raised by `end_bias`; vocab >= beam_size
# so the first step never has to pick among the tied -1e9 scores of the empty beams (topk breaks ties differently
# in each framework)
CASES = [
    ("gru_b3", "GRU", 2, 3, 7, 4, 5, 2.0, 0.0, None, False),
    ("gru_b3_max6", "GRU", 2, 3, 7, 4, 5, 3.0, 0.0, 6, False),
    ("lstm_b2_tm", "LSTM", 3, 2, 6, 3, 4, 3.0, 0.0, 12, True),
    ("gru_b1", "GRU", 3, 1, 7, 4, 5, 3.0, 0.0, 8, False),
    ("lstm_b4", "LSTM", 1, 4, 9, 5, 6, 3.0, -1.0, 10, False),
]
START, END = 0, 1


def weights(shape, k):
    """Deterministic float32 values in (-0.9, 0.9) from the flat position and a per-tensor key `k`."""
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    return (0.9 * np.sin(0.9 * i + 1.7 * k) * np.cos(0.31 * i + 0.5 * k)).reshape(shape).astype(np.float32)


def build(fw, cell_kind, vocab, embed, hidden, scale, end_bias):
    """(cell, embedding, output layer) of framework `fw` (paddle or oar) with the formula's weights."""
    cell = (fw.nn.GRUCell if cell_kind == "GRU" else fw.nn.LSTMCell)(embed, hidden)
    emb = fw.nn.Embedding(vocab, embed)
    out = fw.nn.Linear(hidden, vocab)
    for k, p in enumerate([emb.weight, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh,
                           out.weight, out.bias]):
        w = weights(p.shape, k) * scale
        if p is out.bias:
            w[END] += end_bias
        p.set_value(w)
    return cell, emb, out


def initial_states(cell_kind, batch, hidden, scale):
    h = weights([batch, hidden], 11) * scale
    return [h] if cell_kind == "GRU" else [h, weights([batch, hidden], 12) * scale]


def main():
    import paddle
    refs = {}

    class NoFinalize(paddle.nn.BeamSearchDecoder):
        def finalize(self, outputs, final_states, sequence_lengths):
            raise NotImplementedError

    for key, kind, batch, beam, vocab, embed, hidden, scale, end_bias, max_steps, tm in CASES:
        cell, emb, out = build(paddle, kind, vocab, embed, hidden, scale, end_bias)
        st = [paddle.to_tensor(s) for s in initial_states(kind, batch, hidden, scale)]
        inits = st[0] if kind == "GRU" else tuple(st)
        for cls, tag in ((paddle.nn.BeamSearchDecoder, ""), (NoFinalize, "raw_")):
            dec = cls(cell, START, END, beam, embedding_fn=emb, output_fn=out)
            outs, states, lengths = paddle.nn.dynamic_decode(dec, inits=inits, max_step_num=max_steps,
                                                             output_time_major=tm, return_length=True)
            if tag:
                for f in ("scores", "predicted_ids", "parent_ids"):
                    refs[f"{key}/raw_{f}"] = getattr(outs, f).numpy()
                continue
            refs[f"{key}/ids"] = outs.numpy()
            refs[f"{key}/lengths"] = lengths.numpy()
            refs[f"{key}/log_probs"] = states.log_probs.numpy()
            refs[f"{key}/finished"] = states.finished.numpy()
            refs[f"{key}/state_lengths"] = states.lengths.numpy()
            cs = states.cell_states
            for j, c in enumerate(cs if kind == "LSTM" else [cs]):
                refs[f"{key}/cell{j}"] = c.numpy()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, paddle_version=np.array(paddle.__version__), **refs)
    for k in sorted(refs):
        if k.endswith("/lengths"):
            print(k, refs[k].tolist())
    print("wrote", os.path.normpath(OUT), os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
