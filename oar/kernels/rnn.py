"""Fused recurrent cells: one time step of an LSTM, GRU or simple RNN, forward and backward, in one call each.

Paddle's layout and gate order (``oar.nn.LSTMCell`` etc.): ``W_ih [G*H, I]``, ``W_hh [G*H, H]``, biases ``[G*H]``;
LSTM gates i, f, g, o; GRU ``r, z`` from the sum of both projections, ``c = tanh(x_c + r * h_c)``,
``h' = (h - c) * z + c``. Each forward returns, besides the new states, the activations its backward reads (the
``saved`` array), so the backward does no GEMM of the forward again. Each backward returns the gradients of every
input: ``dx, dh[, dc], dW_ih, dW_hh, db_ih, db_hh``.
"""
import numpy as np

from .elementwise import sigmoid


def _project(x, h, w_ih, w_hh, b_ih, b_hh):
    """``x W_ih^T + b_ih`` and ``h W_hh^T + b_hh`` (kept apart: the GRU reads them separately)."""
    return x @ w_ih.T + b_ih, h @ w_hh.T + b_hh


def _param_grads(dpx, dph, x, h, w_ih, w_hh):
    """dx, dh, dW_ih, dW_hh, db_ih, db_hh from the gradients of the two projections."""
    return dpx @ w_ih, dph @ w_hh, dpx.T @ x, dph.T @ h, dpx.sum(0), dph.sum(0)


def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """Returns ``(h', c', saved)``, saved = the activated gates [i, f, g, o] (``[B, 4H]``)."""
    px, ph = _project(x, h, w_ih, w_hh, b_ih, b_hh)
    gates = px + ph
    n = h.shape[-1]
    act = np.empty_like(gates)
    act[:, :2 * n] = sigmoid(gates[:, :2 * n])
    act[:, 2 * n:3 * n] = np.tanh(gates[:, 2 * n:3 * n])
    act[:, 3 * n:] = sigmoid(gates[:, 3 * n:])
    i, f, g, o = act[:, :n], act[:, n:2 * n], act[:, 2 * n:3 * n], act[:, 3 * n:]
    c_new = f * c + i * g
    return o * np.tanh(c_new), c_new, act


def lstm_cell_grad(x, h, c, w_ih, w_hh, c_new, saved, dh_new, dc_new):
    n = h.shape[-1]
    i, f, g, o = saved[:, :n], saved[:, n:2 * n], saved[:, 2 * n:3 * n], saved[:, 3 * n:]
    tc = np.tanh(c_new)
    dc_all = dc_new + dh_new * o * (1 - tc * tc)
    dp = np.empty_like(saved)
    dp[:, :n] = dc_all * g * i * (1 - i)
    dp[:, n:2 * n] = dc_all * c * f * (1 - f)
    dp[:, 2 * n:3 * n] = dc_all * i * (1 - g * g)
    dp[:, 3 * n:] = dh_new * tc * o * (1 - o)
    dx, dh, dw_ih, dw_hh, db_ih, db_hh = _param_grads(dp, dp, x, h, w_ih, w_hh)
    return dx, dh, dc_all * f, dw_ih, dw_hh, db_ih, db_hh


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    """Returns ``(h', saved)``, saved = [r, z, c, h_c] (``[B, 4H]``: the gates and the hidden candidate part)."""
    px, ph = _project(x, h, w_ih, w_hh, b_ih, b_hh)
    n = h.shape[-1]
    saved = np.empty(px.shape[:-1] + (4 * n,), px.dtype)
    saved[:, :2 * n] = sigmoid(px[:, :2 * n] + ph[:, :2 * n])
    r, z = saved[:, :n], saved[:, n:2 * n]
    hc = ph[:, 2 * n:]
    saved[:, 3 * n:] = hc
    cand = saved[:, 2 * n:3 * n]
    np.tanh(px[:, 2 * n:] + r * hc, out=cand)
    return (h - cand) * z + cand, saved


def gru_cell_grad(x, h, w_ih, w_hh, saved, dh_new):
    n = h.shape[-1]
    r, z, cand, hc = saved[:, :n], saved[:, n:2 * n], saved[:, 2 * n:3 * n], saved[:, 3 * n:]
    dpc = dh_new * (1 - z) * (1 - cand * cand)
    dpx = np.empty(saved.shape[:-1] + (3 * n,), saved.dtype)
    dpx[:, :n] = dpc * hc * r * (1 - r)
    dpx[:, n:2 * n] = dh_new * (h - cand) * z * (1 - z)
    dpx[:, 2 * n:] = dpc
    dph = dpx.copy()
    dph[:, 2 * n:] = dpc * r
    dx, dh, dw_ih, dw_hh, db_ih, db_hh = _param_grads(dpx, dph, x, h, w_ih, w_hh)
    return dx, dh + dh_new * z, dw_ih, dw_hh, db_ih, db_hh


def simple_rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, activation):
    px, ph = _project(x, h, w_ih, w_hh, b_ih, b_hh)
    pre = px + ph
    return np.tanh(pre) if activation == "tanh" else np.maximum(pre, 0)


def simple_rnn_cell_grad(x, h, w_ih, w_hh, h_new, dh_new, activation):
    dp = dh_new * (1 - h_new * h_new) if activation == "tanh" else dh_new * (h_new > 0)
    return _param_grads(dp, dp, x, h, w_ih, w_hh)
