"""Op-table rows of the fused recurrent ops (`oar/ops/nn/rnn.py`) against NumPy written from Paddle's equations:
forward, float64 finite-difference gradients (through the `*_grad` kernels), static == eager."""
import numpy as np

from oar.ops.nn import rnn as fused
from op_table import add, generators

__all__ = []
randn = generators(43, "randn")
B, I, H, T = 3, 2, 4, 4


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _lstm(x, h, c, wi, wh, bi, bh):
    i, f, g, o = np.split(x @ wi.T + bi + h @ wh.T + bh, 4, axis=-1)
    c = _sig(f) * c + _sig(i) * np.tanh(g)
    return _sig(o) * np.tanh(c), c


def _gru(x, h, wi, wh, bi, bh):
    xr, xz, xc = np.split(x @ wi.T + bi, 3, axis=-1)
    hr, hz, hc = np.split(h @ wh.T + bh, 3, axis=-1)
    r, z = _sig(xr + hr), _sig(xz + hz)
    c = np.tanh(xc + r * hc)
    return (h - c) * z + c


def _rnn(act):
    return lambda x, h, wi, wh, bi, bh: act(x @ wi.T + bi + h @ wh.T + bh)


def _relu(x):
    return np.maximum(x, 0)


def _weights(gates):
    return (randn(gates * H, I) * 0.5, randn(gates * H, H) * 0.5, randn(gates * H) * 0.5, randn(gates * H) * 0.5)


def _seq_ref(step, lstm, reverse):
    """The composed layers' loop: states kept past each sequence's end, outputs the cell's own."""
    def ref(x, *rest):
        states, w, mask = list(rest[:2 if lstm else 1]), rest[-5:-1], rest[-1]
        ys = np.zeros(x.shape[:2] + (H,))
        for t in (range(T - 1, -1, -1) if reverse else range(T)):
            new = step(x[t], *states, *w)
            new = list(new) if lstm else [new]
            ys[t] = new[0]
            states = [n * mask[t] + s * (1 - mask[t]) for n, s in zip(new, states)]
        return (ys, *states)
    return ref


_MASK = (np.arange(T)[:, None] < np.array([4, 1, 3])[None, :]).astype("float64")[..., None]

add("lstm_cell", fused.lstm_cell, _lstm, (randn(B, I), randn(B, H), randn(B, H)) + _weights(4))
add("gru_cell", fused.gru_cell, _gru, (randn(B, I), randn(B, H)) + _weights(3))
add("simple_rnn_cell", fused.simple_rnn_cell, _rnn(np.tanh), (randn(B, I), randn(B, H)) + _weights(1))
add("simple_rnn_cell_relu", lambda *a: fused.simple_rnn_cell(*a, activation="relu"), _rnn(_relu),
    (randn(B, I), randn(B, H)) + _weights(1))
for _reverse in (False, True):
    _tag = "_reverse" if _reverse else ""
    add("lstm_seq" + _tag, lambda x, h, c, *r, rv=_reverse: (lambda y, s: (y, *s))(
        *fused.rnn_seq("LSTM", x, (h, c), r[:4], r[4], rv)), _seq_ref(_lstm, True, _reverse),
        (randn(T, B, I), randn(B, H), randn(B, H)) + _weights(4) + (_MASK,), diff=tuple(range(7)))
    add("gru_seq" + _tag, lambda x, h, *r, rv=_reverse: fused.rnn_seq("GRU", x, h, r[:4], r[4], rv),
        _seq_ref(_gru, False, _reverse), (randn(T, B, I), randn(B, H)) + _weights(3) + (_MASK,),
        diff=tuple(range(6)))
    add("simple_rnn_seq" + _tag, lambda x, h, *r, rv=_reverse: fused.rnn_seq("RNN", x, h, r[:4], r[4], rv),
        _seq_ref(_rnn(np.tanh), False, _reverse), (randn(T, B, I), randn(B, H)) + _weights(1) + (_MASK,),
        diff=tuple(range(6)))
