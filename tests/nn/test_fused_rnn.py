"""The fused recurrent ops (`oar/ops/nn/rnn.py`): the same numbers as the composed layers (FLAGS_fused_rnn off),
float64 finite-difference gradients of each op, and the fused path in programs, saved models and ONNX."""
import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.ops.nn import rnn as fused
from nn_gradcheck import check_grad

rng = np.random.default_rng(7)


@pytest.fixture
def unfused():
    """Runs the body with the composed ops; restores the flag."""
    oar.set_flags({"FLAGS_fused_rnn": False})
    yield
    oar.set_flags({"FLAGS_fused_rnn": True})


def _run(net, x, states, lengths, flag):
    """Outputs, final states and every gradient (parameters, input, initial states) with FLAGS_fused_rnn=flag."""
    oar.set_flags({"FLAGS_fused_rnn": flag})
    try:
        xt = oar.to_tensor(x, stop_gradient=False)
        st = None if states is None else [oar.to_tensor(s, stop_gradient=False) for s in states]
        init = None if st is None else (tuple(st) if len(st) == 2 else st[0])
        seq = None if lengths is None else oar.to_tensor(lengths)
        y, final = net(xt, init, seq)
        finals = list(final) if isinstance(final, tuple) else [final]
        r = np.random.default_rng(0)  # the same output weights for both runs
        w = [r.standard_normal(t.shape) for t in [y] + finals]
        loss = sum((t * oar.to_tensor(v.astype(x.dtype))).sum() for t, v in zip([y] + finals, w))
        net.clear_gradients()
        loss.backward()
        return ([y.numpy()] + [f.numpy() for f in finals] + [p.grad.numpy() for p in net.parameters()]
                + [xt.grad.numpy()] + ([] if st is None else [s.grad.numpy() for s in st]))
    finally:
        oar.set_flags({"FLAGS_fused_rnn": True})


LAYERS = [(nn.LSTM, {}), (nn.GRU, {}), (nn.SimpleRNN, {}), (nn.SimpleRNN, {"activation": "relu"})]


@pytest.mark.parametrize("cls, kw", LAYERS)
@pytest.mark.parametrize("direction, time_major, with_lengths, with_states",
                         [("forward", False, False, False), ("bidirect", False, True, True),
                          ("bidirect", True, True, False), ("forward", True, False, True)])
def test_layers_fused_equal_composed(cls, kw, direction, time_major, with_lengths, with_states):
    oar.seed(1)
    net = cls(3, 5, num_layers=2, direction=direction, time_major=time_major, **kw)
    nd = 2 if direction == "bidirect" else 1
    t, b = 6, 4
    x = rng.standard_normal((t, b, 3) if time_major else (b, t, 3)).astype("float32")
    n_states = 2 if cls is nn.LSTM else 1
    states = [rng.standard_normal((2 * nd, b, 5)).astype("float32") for _ in range(n_states)] if with_states \
        else None
    lengths = np.array([6, 2, 4, 1], "int64") if with_lengths else None
    got = _run(net, x, states, lengths, True)
    want = _run(net, x, states, lengths, False)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_dropout_between_layers_draws_as_composed():
    """Dropout on the inputs of layers after the first, as Paddle does: the same draws with and without fusion."""
    net = nn.LSTM(3, 5, num_layers=3, dropout=0.5)
    x = rng.standard_normal((2, 4, 3)).astype("float32")
    outs = []
    for flag in (True, False):
        oar.seed(3)
        outs.append(_run(net, x, None, None, flag))
    for g, w in zip(*outs):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    net.eval()
    y1, _ = net(oar.to_tensor(x))
    y2, _ = net(oar.to_tensor(x))
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())  # no dropout in eval mode


@pytest.mark.parametrize("cell_cls, kw", [(nn.LSTMCell, {}), (nn.GRUCell, {}), (nn.SimpleRNNCell, {}),
                                          (nn.SimpleRNNCell, {"activation": "relu"})])
def test_cells_fused_equal_composed(cell_cls, kw):
    oar.seed(2)
    cell = cell_cls(3, 5, **kw)
    x = rng.standard_normal((4, 3)).astype("float32")
    hs = [rng.standard_normal((4, 5)).astype("float32") for _ in range(2 if cell_cls is nn.LSTMCell else 1)]
    res = []
    for flag in (True, False):
        oar.set_flags({"FLAGS_fused_rnn": flag})
        try:
            xt = oar.to_tensor(x, stop_gradient=False)
            st = [oar.to_tensor(h, stop_gradient=False) for h in hs]
            y, new = cell(xt, tuple(st) if len(st) == 2 else st[0])
            new = list(new) if isinstance(new, tuple) else [new]
            cell.clear_gradients()
            (sum((t * t).sum() for t in new) + y.sum()).backward()
            res.append([y.numpy()] + [t.numpy() for t in new] + [p.grad.numpy() for p in cell.parameters()]
                       + [xt.grad.numpy()] + [s.grad.numpy() for s in st])
        finally:
            oar.set_flags({"FLAGS_fused_rnn": True})
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_fused_path_is_one_op_per_layer_and_direction():
    net = nn.GRU(3, 5, num_layers=2, direction="bidirect")
    prog = oar.jit.to_static(net, input_spec=[oar.static.InputSpec([None, 7, 3], "float32")])
    types = [op.type for op in prog.forward.concrete_program.main_program.global_block().ops]
    assert types.count("gru_seq") == 4 and "sigmoid" not in types and "matmul" not in types


# ---- each op against finite differences, float64 ------------------------------------------------------------------

def _weights(gates, i, h):
    return [rng.standard_normal(s) * 0.5 for s in ([gates * h, i], [gates * h, h], [gates * h], [gates * h])]


@pytest.mark.parametrize("mode, reverse, masked", [("LSTM", False, True), ("LSTM", True, True), ("GRU", True, True),
                                                   ("GRU", False, False), ("RNN", True, True)])
def test_seq_ops_finite_differences(mode, reverse, masked):
    t, b, i, h = 4, 3, 2, 3
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[mode]
    x = rng.standard_normal((t, b, i))
    mask = (np.arange(t)[:, None] < np.array([4, 1, 3])[None, :]).astype("float64")[..., None] if masked \
        else np.ones((t, 1, 1))
    states = [rng.standard_normal((b, h)) for _ in range(2 if mode == "LSTM" else 1)]
    arrays = [x] + states + _weights(gates, i, h) + [mask]
    ns = len(states)

    def fn(x, *rest):
        st = tuple(rest[:ns]) if ns == 2 else rest[0]
        y, final = fused.rnn_seq(mode, x, st, rest[ns:ns + 4], rest[-1], reverse)
        finals = list(final) if isinstance(final, tuple) else [final]
        # one output mixing y and the final states (each weighted differently)
        return oar.concat([y.reshape([-1])] + [f.reshape([-1]) * (k + 2.0) for k, f in enumerate(finals)])
    check_grad(fn, arrays, wrt=list(range(len(arrays) - 1)), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("op", ["lstm", "gru", "relu", "tanh"])
def test_cell_ops_finite_differences(op):
    b, i, h = 3, 2, 4
    gates = {"lstm": 4, "gru": 3}.get(op, 1)
    states = [rng.standard_normal((b, h)) for _ in range(2 if op == "lstm" else 1)]
    arrays = [rng.standard_normal((b, i))] + states + _weights(gates, i, h)
    if op == "lstm":
        def fn(x, hh, c, *w):
            h2, c2 = fused.lstm_cell(x, hh, c, *w)
            return oar.concat([h2, c2 * 3.0], axis=1)
    elif op == "gru":
        def fn(x, hh, *w):
            return fused.gru_cell(x, hh, *w)
    else:
        def fn(x, hh, *w):
            return fused.simple_rnn_cell(x, hh, *w, activation=op)
    check_grad(fn, arrays, rtol=1e-5, atol=1e-7)


def test_second_order_raises_naming_the_op_and_the_switch():
    cell = nn.GRUCell(2, 3)
    x = oar.to_tensor(rng.standard_normal((2, 2)).astype("float32"), stop_gradient=False)
    (gx,) = oar.grad(cell(x)[0].sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match="gru_cell_grad.*FLAGS_fused_rnn"):
        oar.grad(gx.sum(), x)


def test_second_order_through_composed_form(unfused):
    cell = nn.GRUCell(2, 3)
    x = oar.to_tensor(rng.standard_normal((2, 2)).astype("float32"), stop_gradient=False)
    (gx,) = oar.grad(cell(x)[0].sum(), x, create_graph=True)
    (ggx,) = oar.grad((gx * gx).sum(), x)
    assert np.isfinite(ggx.numpy()).all()


# ---- programs, saved models ---------------------------------------------------------------------------------------

class Seq2Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.enc = nn.LSTM(3, 6, direction="bidirect")
        self.dec = nn.GRUCell(3, 12)
        self.out = nn.Linear(12, 2)

    def forward(self, src, lengths):
        _, (h, c) = self.enc(src, sequence_length=lengths)
        state = oar.concat([h[0], h[1]], axis=-1)
        ys = []
        for t in range(3):
            y, state = self.dec(src[:, t], state)
            ys.append(self.out(y))
        return oar.stack(ys, axis=1)


def test_program_training_and_saved_model_match_eager(tmp_path):
    oar.seed(4)
    net = Seq2Seq()
    src = rng.standard_normal((4, 5, 3)).astype("float32")
    lengths = np.array([5, 3, 2, 5], "int64")
    want = net(oar.to_tensor(src), oar.to_tensor(lengths))
    want.sum().backward()
    grads = [p.grad.numpy().copy() for p in net.parameters()]
    net.clear_gradients()
    spec = [oar.static.InputSpec([None, 5, 3], "float32"), oar.static.InputSpec([None], "int64")]
    static = oar.jit.to_static(net, input_spec=spec)
    got = static(oar.to_tensor(src), oar.to_tensor(lengths))
    got.sum().backward()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    for g, p in zip(grads, net.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-4, atol=1e-5)
    path = str(tmp_path / "s2s")
    oar.jit.save(static, path)
    loaded = oar.jit.load(path)
    np.testing.assert_allclose(loaded(oar.to_tensor(src), oar.to_tensor(lengths)).numpy(), want.numpy(), rtol=1e-5,
                               atol=1e-6)
    from oar.inference import Config, create_predictor
    pred = create_predictor(Config(path + ".pdmodel", path + ".pdiparams"))
    names = pred.get_input_names()
    for name, a in zip(names, (src, lengths)):
        pred.get_input_handle(name).copy_from_cpu(a)
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out, want.numpy(), rtol=1e-5, atol=1e-6)


def test_lazy_mode_and_trace_run_the_fused_ops():
    oar.seed(5)
    net = nn.GRU(3, 4, num_layers=2, direction="bidirect")
    x = oar.to_tensor(rng.standard_normal((2, 5, 3)).astype("float32"))
    want = net(x)[0].numpy()
    with oar.lazy():
        got = net(x)[0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    traced = oar.jit.trace(lambda x: net(x)[0], check=True)
    traced(x)
    out = traced(x)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    assert "gru_seq" in str(traced.concrete_program.main_program)
