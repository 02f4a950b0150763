"""`nn.BeamSearchDecoder` + `nn.dynamic_decode` against Paddle 3.3.1 (tests/nn/data/beam_search_refs.npz, made by
tools/paddle_refs/beam_search_refs.py from GRU / LSTM decoders whose weights are a formula), and their semantics:
greedy decoding at beam size 1, finished beams padded with end_token, lengths, impute_finished, max_step_num,
output_time_major, argument errors, and the same results inside `oar.jit.to_static` (one `while` op)."""
import importlib.util
import os
import warnings

import numpy as np
import pytest

import oar
from oar.static import InputSpec

HERE = os.path.dirname(__file__)
_spec = importlib.util.spec_from_file_location(
    "beam_search_refs", os.path.join(HERE, "..", "..", "tools", "paddle_refs", "beam_search_refs.py"))
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)  # CASES and the weight formula; paddle is imported only by its main()
REFS = np.load(os.path.join(HERE, "data", "beam_search_refs.npz"))
CASES = {c[0]: c for c in R.CASES}


class NoFinalize(oar.nn.BeamSearchDecoder):
    """Keeps the raw per-step outputs (scores, predicted_ids, parent_ids), as the reference's second run."""

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError


def _model(key, cls=oar.nn.BeamSearchDecoder, **over):
    _, kind, batch, beam, vocab, embed, hidden, scale, end_bias, _, _ = CASES[key]
    cell, emb, out = R.build(oar, kind, vocab, embed, hidden, scale, end_bias)
    st = [oar.to_tensor(s) for s in R.initial_states(kind, batch, hidden, scale)]
    args = dict(beam_size=beam, embedding_fn=emb, output_fn=out)
    args.update(over)
    dec = cls(cell, R.START, R.END, **args)
    return dec, (st[0] if kind == "GRU" else tuple(st))


def _decode(key, cls=oar.nn.BeamSearchDecoder, **kw):
    dec, inits = _model(key, cls)
    _, _, _, _, _, _, _, _, _, max_steps, tm = CASES[key]
    args = dict(max_step_num=max_steps, output_time_major=tm, return_length=True)
    args.update(kw)
    return oar.nn.dynamic_decode(dec, inits=inits, **args)


def _check_against_paddle(key, ids, states, lengths):
    ref = lambda f: REFS[f"{key}/{f}"]  # noqa: E731
    np.testing.assert_array_equal(ids.numpy(), ref("ids"))
    assert ids.dtype == oar.int64 and lengths.dtype == oar.int64
    np.testing.assert_array_equal(lengths.numpy(), ref("lengths"))
    np.testing.assert_array_equal(states.lengths.numpy(), ref("state_lengths"))
    np.testing.assert_array_equal(states.finished.numpy(), ref("finished"))
    np.testing.assert_allclose(states.log_probs.numpy(), ref("log_probs"), rtol=0, atol=1e-5)
    cells = states.cell_states if isinstance(states.cell_states, tuple) else (states.cell_states,)
    for j, c in enumerate(cells):
        np.testing.assert_allclose(c.numpy(), ref(f"cell{j}"), rtol=0, atol=1e-5)


@pytest.mark.parametrize("key", sorted(CASES))
def test_matches_paddle(key):
    ids, states, lengths = _decode(key)
    assert isinstance(states, oar.nn.BeamSearchDecoder.StateWrapper)
    _check_against_paddle(key, ids, states, lengths)


@pytest.mark.parametrize("key", sorted(CASES))
def test_step_outputs_match_paddle(key):
    """Without finalize the stacked OutputWrapper comes back: Paddle's scores, ids and parents per step."""
    out, _, _ = _decode(key, NoFinalize)
    assert isinstance(out, oar.nn.BeamSearchDecoder.OutputWrapper)
    np.testing.assert_allclose(out.scores.numpy(), REFS[f"{key}/raw_scores"], rtol=0, atol=1e-5)
    np.testing.assert_array_equal(out.predicted_ids.numpy(), REFS[f"{key}/raw_predicted_ids"])
    np.testing.assert_array_equal(out.parent_ids.numpy(), REFS[f"{key}/raw_parent_ids"])


def _first_end(seq):
    hits = np.flatnonzero(seq == R.END)
    return hits[0] if hits.size else None


@pytest.mark.parametrize("key", sorted(CASES))
def test_finished_beams_padded_with_end_token(key):
    ids, states, lengths = _decode(key, output_time_major=False)
    ids, lengths = ids.numpy(), lengths.numpy()
    for b in range(ids.shape[0]):
        for k in range(ids.shape[2]):
            seq = ids[b, :, k]
            e = _first_end(seq)
            if e is None:  # stopped by max_step_num: every step counted, not finished
                assert lengths[b, k] == len(seq) and not states.finished.numpy()[b, k]
            else:  # the end step counts; every later step repeats end_token
                assert lengths[b, k] == e + 1 and (seq[e:] == R.END).all()


def test_beam_size_one_is_greedy_decoding():
    key = "gru_b1"
    dec, h = _model(key)
    ids, states, lengths = oar.nn.dynamic_decode(dec, inits=h, max_step_num=CASES[key][9], return_length=True)
    cell, emb, out = dec.cell, dec.embedding_fn, dec.output_fn
    batch = h.shape[0]
    tok = np.full([batch], R.START)
    done, score, want = np.zeros(batch, bool), np.zeros(batch), []
    for _ in range(ids.shape[1]):
        y, h = cell(emb(oar.to_tensor(tok)), h)
        logp = oar.nn.functional.log_softmax(out(y)).numpy()
        nxt = np.where(done, R.END, logp.argmax(-1))
        score = score + np.where(done, 0.0, logp[np.arange(batch), nxt])
        done |= nxt == R.END
        tok = nxt
        want.append(nxt)
    np.testing.assert_array_equal(ids.numpy()[:, :, 0], np.stack(want, 1))
    np.testing.assert_allclose(states.log_probs.numpy()[:, 0], score, rtol=0, atol=1e-5)


def test_max_step_num_runs_that_many_steps_plus_one():
    full, _, _ = _decode("gru_b3", NoFinalize, max_step_num=None)  # stops by itself after 4 steps
    assert full.predicted_ids.shape[1] == 4
    for m in (0, 1, 2):
        part, states, lengths = _decode("gru_b3", NoFinalize, max_step_num=m)
        assert part.predicted_ids.shape[1] == m + 1
        for f in ("predicted_ids", "parent_ids"):
            np.testing.assert_array_equal(getattr(part, f).numpy(), getattr(full, f).numpy()[:, :m + 1])
        np.testing.assert_array_equal(states.log_probs.numpy(), part.scores.numpy()[:, -1])
    long, _, _ = _decode("gru_b3", NoFinalize, max_step_num=50)  # a limit not reached changes nothing
    np.testing.assert_array_equal(long.predicted_ids.numpy(), full.predicted_ids.numpy())


def test_output_time_major_and_return_length():
    tm, states, lengths = _decode("gru_b3", output_time_major=True)
    bm, states2 = _decode("gru_b3", output_time_major=False, return_length=False)
    np.testing.assert_array_equal(tm.numpy().transpose(1, 0, 2), bm.numpy())
    assert tm.shape == [4, 2, 3] and bm.shape == [2, 4, 3]
    np.testing.assert_array_equal(states2.lengths.numpy(), lengths.numpy())


def test_tile_beam_merge_with_batch():
    x = oar.to_tensor(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    y = oar.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 3)
    np.testing.assert_array_equal(y.numpy(), np.repeat(x.numpy(), 3, axis=0))


def test_split_batch_beams_with_unknown_dims():
    dec = oar.nn.BeamSearchDecoder(oar.nn.GRUCell(3, 4), 0, 1, 2)
    x = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    main = oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, oar.static.Program()):
            v = oar.static.data("x", [None, None, 2], "float32")
            y = dec._split_batch_beams(v)
            z = dec._merge_batch_beams(y)
        got = oar.static.Executor().run(main, feed={"x": x}, fetch_list=[y, z])
    finally:
        oar.disable_static()
    np.testing.assert_array_equal(got[0], x.reshape(2, 2, 3, 2))
    np.testing.assert_array_equal(got[1], x)


# ---- a decoder that leaves finished tracking to dynamic_decode -----------------------------------------------------

class Countdown(oar.nn.decode.Decoder):
    """Emits its state and counts it down; an entry finishes when its state reaches 0."""

    def initialize(self, inits):
        return inits, inits, oar.all(inits <= 0, axis=-1) if inits.ndim > 1 else inits <= 0

    def step(self, time, inputs, states, **kwargs):
        nxt = states - 1
        return states, nxt, inputs, oar.all(nxt <= 0, axis=-1) if nxt.ndim > 1 else nxt <= 0


def test_dynamic_decode_tracks_finished_and_lengths():
    out, states, lengths = oar.nn.dynamic_decode(Countdown(), oar.to_tensor([2, 3]), return_length=True)
    assert out.numpy().tolist() == [[2, 1, 0], [3, 2, 1]]
    # the step that finishes an entry counts (Paddle's static loop; its eager loop gives [1, 2])
    assert lengths.numpy().tolist() == [2, 3]
    assert states.numpy().tolist() == [-1, 0]


def test_impute_finished_keeps_finished_states():
    _, states, lengths = oar.nn.dynamic_decode(Countdown(), oar.to_tensor([2, 3]), impute_finished=True,
                                               return_length=True)
    assert states.numpy().tolist() == [0, 0] and lengths.numpy().tolist() == [2, 3]
    x = oar.to_tensor([[1.0, 2.0], [3.0, 3.0]])  # rank-2 states: the mask covers each entry's row
    _, states = oar.nn.dynamic_decode(Countdown(), x, impute_finished=True)
    assert states.numpy().tolist() == [[-1.0, 0.0], [0.0, 0.0]]  # entry 0 finished at step 1, kept at step 2
    _, states = oar.nn.dynamic_decode(Countdown(), x)
    assert states.numpy().tolist() == [[-2.0, -1.0], [0.0, 0.0]]
    # BeamSearchDecoder tracks its own finished flags: impute_finished does not apply (as in Paddle)
    a, sa = _decode("gru_b3", impute_finished=True, return_length=False)
    b, sb = _decode("gru_b3", return_length=False)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(sa.cell_states.numpy(), sb.cell_states.numpy())


def test_kwargs_reach_the_cell():
    seen = []

    class Cell(oar.nn.GRUCell):
        def forward(self, inputs, states=None, scale=None):
            seen.append(scale)
            return super().forward(inputs * scale, states)

    dec = oar.nn.BeamSearchDecoder(Cell(3, 4), 0, 1, 2, embedding_fn=oar.nn.Embedding(5, 3),
                                   output_fn=oar.nn.Linear(4, 5))
    oar.nn.dynamic_decode(dec, oar.zeros([1, 4]), max_step_num=2, scale=0.5)
    assert seen == [0.5] * len(seen) and 1 <= len(seen) <= 3


class ReshapingDecoder(oar.nn.BeamSearchDecoder):
    """A subclass in PaddleNLP's style (its TransformerBeamSearchDecoder): its own step reshapes with the
    `batch_size` tensor `initialize` keeps and calls `_split_batch_beams` and `_beam_search_step` by keyword."""

    def step(self, time, inputs, states, **kwargs):
        merged = oar.reshape(inputs, [self.batch_size * self.beam_size, inputs.shape[-1]])
        h = oar.reshape(states.cell_states, [self.batch_size * self.beam_size, states.cell_states.shape[-1]])
        out, h = self.cell(merged, h)
        logits = self.output_fn(self._split_batch_beams(out))
        output, state = self._beam_search_step(time=time, logits=logits, next_cell_states=self._split_batch_beams(h),
                                               beam_state=states)
        return output, state, self.embedding_fn(output.predicted_ids), state.finished


def test_paddle_style_subclass():
    ids, states, lengths = _decode("gru_b3", ReshapingDecoder)
    _check_against_paddle("gru_b3", ids, states, lengths)
    dec, h = _model("gru_b3", ReshapingDecoder)
    oar.nn.dynamic_decode(dec, h)
    assert int(dec.batch_size) == 2 and dec.vocab_size == 7  # Paddle's attributes, kept after an eager decode
    dec, h = _model("gru_b3", ReshapingDecoder)
    fn = oar.jit.to_static(lambda x: oar.nn.dynamic_decode(dec, x, return_length=True),
                           input_spec=[InputSpec([None, 5], "float32")])
    _check_against_paddle("gru_b3", *fn(h))
    # the static values it kept while the program was built do not outlive the build
    assert not any(isinstance(v, oar.static.Variable) for v in vars(dec).values())


# ---- errors -------------------------------------------------------------------------------------------------------

def test_bad_arguments():
    cell = oar.nn.GRUCell(3, 4)
    for bad, err in ((0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(err, match="beam_size must be an int >= 1"):
            oar.nn.BeamSearchDecoder(cell, 0, 1, bad)
    with pytest.raises(ValueError, match="start_token must be an int >= 0, got -1"):
        oar.nn.BeamSearchDecoder(cell, -1, 1, 2)
    with pytest.raises(TypeError, match="end_token must be an int >= 0, got str '1'"):
        oar.nn.BeamSearchDecoder(cell, 0, "1", 2)
    with pytest.raises(TypeError, match="cell must be callable"):
        oar.nn.BeamSearchDecoder("gru", 0, 1, 2)
    with pytest.raises(TypeError, match="output_fn must be callable or None"):
        oar.nn.BeamSearchDecoder(cell, 0, 1, 2, output_fn=3)
    dec = oar.nn.BeamSearchDecoder(cell, 0, 9, 2, embedding_fn=oar.nn.Embedding(5, 3), output_fn=oar.nn.Linear(4, 5))
    with pytest.raises(ValueError, match="end_token 9 is outside the vocabulary of 5"):
        oar.nn.dynamic_decode(dec, oar.zeros([1, 4]))
    dec.end_token = 1
    for bad, err in ((-1, ValueError), (2.0, TypeError), (True, TypeError), ("3", TypeError)):
        with pytest.raises(err, match="max_step_num must be None or an int >= 0"):
            oar.nn.dynamic_decode(dec, oar.zeros([1, 4]), max_step_num=bad)
    with pytest.raises(TypeError, match="decoder must have a callable initialize"):
        oar.nn.dynamic_decode(cell, oar.zeros([1, 4]))
    with pytest.raises(ValueError, match="initial_cell_states must hold tensors"):
        dec.initialize([])
    with pytest.raises(ValueError, match="nothing to decode"):
        oar.nn.dynamic_decode(Countdown(), oar.to_tensor([0, -1]))
    with pytest.raises(NotImplementedError, match="must implement step"):
        oar.nn.dynamic_decode(type("Half", (oar.nn.decode.Decoder,), {
            "initialize": lambda self, x: (x, x, x < 0)})(), oar.to_tensor([1]))


def test_own_finished_without_lengths_warns():
    class NoLengths(Countdown):
        tracks_own_finished = True

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _, _, lengths = oar.nn.dynamic_decode(NoLengths(), oar.to_tensor([2, 3]), return_length=True)
    assert any("no `lengths` attribute" in str(x.message) for x in w)
    assert lengths.numpy().tolist() == [0, 0]


# ---- inside to_static ----------------------------------------------------------------------------------------------

def _while_ops(fn):
    return [op.type for op in fn.concrete_program.main_program.global_block().ops if op.type == "while"]


@pytest.mark.parametrize("key", ["gru_b3", "gru_b3_max6", "lstm_b2_tm"])
def test_to_static_matches_paddle(key):
    dec, inits = _model(key)
    _, _, _, _, _, _, _, _, _, max_steps, tm = CASES[key]
    leaves = list(inits) if isinstance(inits, tuple) else [inits]

    @oar.jit.to_static(input_spec=[InputSpec([None, s.shape[1]], "float32") for s in leaves])
    def decode(*st):
        init = st[0] if len(st) == 1 else tuple(st)
        return oar.nn.dynamic_decode(dec, inits=init, max_step_num=max_steps, output_time_major=tm,
                                     return_length=True)

    ids, states, lengths = decode(*leaves)
    _check_against_paddle(key, ids, states, lengths)
    assert _while_ops(decode) == ["while"]  # the tensor-dependent stop is a while op, not an unrolled trace


def test_to_static_own_decoder_and_impute_equal_eager():
    x = oar.to_tensor([[1.0, 2.0], [3.0, 3.0], [0.5, 4.0]])
    for impute in (False, True):
        fn = oar.jit.to_static(lambda t: oar.nn.dynamic_decode(Countdown(), t, impute_finished=impute,
                                                               return_length=True))
        got = fn(x)
        want = oar.nn.dynamic_decode(Countdown(), x, impute_finished=impute, return_length=True)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        assert _while_ops(fn) == ["while"]


def test_to_static_error_names_the_user_line():
    dec = oar.nn.BeamSearchDecoder(oar.nn.GRUCell(3, 4), 0, 9, 2, embedding_fn=oar.nn.Embedding(5, 3),
                                   output_fn=oar.nn.Linear(4, 5))

    @oar.jit.to_static
    def decode(h):
        return oar.nn.dynamic_decode(dec, h)  # the line the error names

    with pytest.raises(ValueError, match="end_token 9 is outside the vocabulary of 5") as e:
        decode(oar.zeros([1, 4]))
    note = "".join(getattr(e.value, "__notes__", []))
    assert "the line the error names" in note and "test_beam_search.py" in note


def test_to_static_nothing_to_decode_raises_when_run():
    fn = oar.jit.to_static(lambda t: oar.nn.dynamic_decode(Countdown(), t))
    with pytest.raises(ValueError, match="nothing to decode"):
        fn(oar.to_tensor([0, -1]))
    assert fn(oar.to_tensor([1, 2]))[0].numpy().tolist() == [[1, 0], [2, 1]]


def test_static_program_equals_eager():
    dec, h = _model("gru_b3_max6")
    want = oar.nn.dynamic_decode(dec, h, max_step_num=6, return_length=True)
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("h", [None, h.shape[1]], "float32")
            ids, states, lengths = oar.nn.dynamic_decode(dec, x, max_step_num=6, return_length=True, is_test=True)
        exe = oar.static.Executor()
        exe.run(startup)
        got = exe.run(main, feed={"h": h.numpy()}, fetch_list=[ids, states.log_probs, lengths])
    finally:
        oar.disable_static()
    assert [op.type for op in main.global_block().ops].count("while") == 1
    np.testing.assert_array_equal(got[0], want[0].numpy())
    np.testing.assert_allclose(got[1], want[1].log_probs.numpy(), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(got[2], want[2].numpy())
