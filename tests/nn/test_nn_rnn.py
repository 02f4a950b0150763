"""Recurrent layers against NumPy implementations of Paddle's equations, plus gradient checks."""
import numpy as np
import pytest

import oar
import oar.nn as nn
from nn_gradcheck import check_layer_grad

rng = np.random.default_rng(3)


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_lstm_cell(x, h, c, p):
    g = x @ p["weight_ih"].T + p["bias_ih"] + h @ p["weight_hh"].T + p["bias_hh"]
    i, f, gg, o = np.split(g, 4, axis=-1)
    c = sig(f) * c + sig(i) * np.tanh(gg)
    h = sig(o) * np.tanh(c)
    return h, c


def np_gru_cell(x, h, p):
    xg = x @ p["weight_ih"].T + p["bias_ih"]
    hg = h @ p["weight_hh"].T + p["bias_hh"]
    xr, xz, xc = np.split(xg, 3, axis=-1)
    hr, hz, hc = np.split(hg, 3, axis=-1)
    r, z = sig(xr + hr), sig(xz + hz)
    c = np.tanh(xc + r * hc)
    return (h - c) * z + c


def np_rnn_cell(x, h, p):
    return np.tanh(x @ p["weight_ih"].T + p["bias_ih"] + h @ p["weight_hh"].T + p["bias_hh"])


def params(cell):
    return {k: v.numpy().astype(np.float64) for k, v in cell.named_parameters()}


def run_np(kind, cell_params, x, lengths=None, reverse=False):
    b, t, _ = x.shape
    hsz = cell_params["weight_hh"].shape[1]
    h, c = np.zeros((b, hsz)), np.zeros((b, hsz))
    outs = np.zeros((b, t, hsz))
    steps = range(t - 1, -1, -1) if reverse else range(t)
    for s in steps:
        if kind == "lstm":
            nh, nc = np_lstm_cell(x[:, s], h, c, cell_params)
        elif kind == "gru":
            nh, nc = np_gru_cell(x[:, s], h, cell_params), c
        else:
            nh, nc = np_rnn_cell(x[:, s], h, cell_params), c
        if lengths is not None:
            m = (s < lengths)[:, None]
            nh, nc = np.where(m, nh, h), np.where(m, nc, c)
        outs[:, s] = nh if lengths is None else nh * (s < lengths)[:, None]  # padded steps output zeros
        h, c = nh, nc
    return outs, h, c


@pytest.mark.parametrize("kind,cls", [("lstm", nn.LSTM), ("gru", nn.GRU), ("rnn", nn.SimpleRNN)])
def test_against_numpy(kind, cls):
    model = cls(3, 4, num_layers=2)
    model.to(dtype="float64")
    x = rng.normal(size=(2, 5, 3))
    y, st = model(oar.to_tensor(x))
    h_list, ref = [], x
    for layer in model:
        ref, h, c = run_np(kind, params(layer.cell), ref)
        h_list.append((h, c))
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10, atol=1e-12)
    hs = st[0].numpy() if kind == "lstm" else st.numpy()
    np.testing.assert_allclose(hs, np.stack([h for h, _ in h_list]), rtol=1e-10)
    if kind == "lstm":
        np.testing.assert_allclose(st[1].numpy(), np.stack([c for _, c in h_list]), rtol=1e-10)


@pytest.mark.parametrize("kind,cls", [("lstm", nn.LSTM), ("gru", nn.GRU)])
def test_bidirectional_with_lengths(kind, cls):
    model = cls(3, 2, direction="bidirect")
    model.to(dtype="float64")
    x = rng.normal(size=(3, 4, 3))
    lengths = np.array([4, 2, 3])
    y, st = model(oar.to_tensor(x), sequence_length=oar.to_tensor(lengths))
    fw, bw = model[0].cell_fw, model[0].cell_bw
    yf, hf, _ = run_np(kind, params(fw), x, lengths)
    yb, hb, _ = run_np(kind, params(bw), x, lengths, reverse=True)
    np.testing.assert_allclose(y.numpy(), np.concatenate([yf, yb], -1), rtol=1e-10, atol=1e-12)
    hs = st[0].numpy() if kind == "lstm" else st.numpy()
    np.testing.assert_allclose(hs, np.stack([hf, hb]), rtol=1e-10)
    keys = list(model.state_dict())
    assert keys[0] == "weight_ih_l0" and "0.cell_bw.bias_hh" in keys and "bias_hh_l0_reverse" in keys  # Paddle's names


def test_cells_and_initial_states():
    cell = nn.LSTMCell(3, 2)
    x = oar.ones([4, 3])
    h, (h2, c) = cell(x)
    assert h.shape == [4, 2] and c.shape == [4, 2]
    k = 1 / np.sqrt(2)
    assert np.abs(cell.weight_ih.numpy()).max() <= k
    gru = nn.GRU(3, 2, time_major=True)
    init = oar.to_tensor(rng.normal(size=(1, 5, 2)).astype(np.float32))
    y, h = gru(oar.ones([6, 5, 3]), init)
    assert y.shape == [6, 5, 2] and h.shape == [1, 5, 2]
    rnn = nn.SimpleRNN(3, 2, activation="relu")
    assert (rnn(oar.ones([2, 3, 3]))[0].numpy() >= 0).all()
    with pytest.raises(ValueError):
        nn.LSTM(3, 2, direction="sideways")


@pytest.mark.parametrize("make", [lambda: nn.SimpleRNNCell(2, 3), lambda: nn.LSTMCell(2, 3),
                                  lambda: nn.GRUCell(2, 3)])
def test_cell_gradients(make):
    check_layer_grad(make(), [rng.normal(size=(2, 2))], rtol=1e-5)


@pytest.mark.parametrize("make", [lambda: nn.LSTM(2, 2, num_layers=2), lambda: nn.GRU(2, 2, direction="bidirect"),
                                  lambda: nn.SimpleRNN(2, 2)])
def test_network_gradients(make):
    check_layer_grad(make(), [rng.normal(size=(2, 3, 2))], rtol=1e-5)


@pytest.mark.parametrize("kind,cls", [("lstm", nn.LSTM), ("gru", nn.GRU), ("rnn", nn.SimpleRNN)])
def test_two_layer_bidirectional_with_lengths_time_major(kind, cls):
    """Layer 2 reads the concatenated [forward, backward] outputs of layer 1; final states are
    ``[num_layers * 2, batch, hidden]`` ordered layer by layer, forward first."""
    model = cls(3, 2, num_layers=2, direction="bidirectional", time_major=True)
    model.to(dtype="float64")
    x = rng.normal(size=(5, 3, 3))  # [time, batch, input]
    lengths = np.array([5, 2, 4])
    y, st = model(oar.to_tensor(x), sequence_length=oar.to_tensor(lengths))
    ref, hs, cs = x.transpose(1, 0, 2), [], []
    for layer in model:
        yf, hf, cf = run_np(kind, params(layer.cell_fw), ref, lengths)
        yb, hb, cb = run_np(kind, params(layer.cell_bw), ref, lengths, reverse=True)
        ref = np.concatenate([yf, yb], -1)
        hs += [hf, hb]
        cs += [cf, cb]
    np.testing.assert_allclose(y.numpy(), ref.transpose(1, 0, 2), rtol=1e-10, atol=1e-12)
    h = st[0].numpy() if kind == "lstm" else st.numpy()
    np.testing.assert_allclose(h, np.stack(hs), rtol=1e-10, atol=1e-12)
    if kind == "lstm":
        np.testing.assert_allclose(st[1].numpy(), np.stack(cs), rtol=1e-10, atol=1e-12)


def test_gradients_with_sequence_length():
    lengths = oar.to_tensor(np.array([3, 1]))
    model = nn.LSTM(2, 2, direction="bidirect")

    class WithLengths(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = model

        def forward(self, x):
            return self.rnn(x, sequence_length=lengths)[0]
    check_layer_grad(WithLengths(), [rng.normal(size=(2, 3, 2))], rtol=1e-5)


def test_lstm_proj_size_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="proj_size"):
        oar.nn.LSTM(4, 8, proj_size=2)
    with pytest.raises(NotImplementedError, match="proj_size"):
        oar.nn.LSTMCell(4, 8, proj_size=2)
