"""Fused recurrent networks: one step of an LSTM, GRU or simple RNN cell (`*_cell`), or a whole sequence
(`*_seq`, one layer in one direction), forward and backward, each in one call.

Paddle's layout and gate order (``oar.nn.LSTMCell`` etc.): ``W_ih [G*H, I]``, ``W_hh [G*H, H]``, biases ``[G*H]``;
LSTM gates i, f, g, o; GRU ``r, z`` from the sum of both projections, ``c = tanh(x_c + r * h_c)``,
``h' = (h - c) * z + c``. Each forward returns, besides the new states, the activations its backward reads (the
``saved`` array), so the backward does no GEMM of the forward again. Each backward returns the gradients of every
differentiable input.

A sequence runs time-major (``x [T, B, I]``), projects every step's input in one GEMM, and with ``mask [T, B, 1]``
(1 inside a sequence, 0 past its end) keeps the states unchanged past the end, as the composed layers do
(``new * m + old * (1 - m)``); the outputs there are the cell's unmasked outputs. Its backward computes the weight
gradients over all steps as one GEMM each.
"""
from .backend import array_module

from .elementwise import sigmoid
from .fused import sigmoid_


# ---- one step from the input projection ``px = x W_ih^T + b_ih``: the cells and the sequences share these ------

def _lstm_step(px, h, c, w_hh, b_hh):
    xp = array_module(px)
    act = h @ w_hh.T
    act += b_hh
    act += px  # the gates' pre-activations, then in place their activations (sigmoid as kernels.elementwise's)
    n = h.shape[-1]
    sigmoid_(act[:, :2 * n])
    sigmoid_(act[:, 3 * n:])
    xp.tanh(act[:, 2 * n:3 * n], out=act[:, 2 * n:3 * n])
    i, f, g, o = act[:, :n], act[:, n:2 * n], act[:, 2 * n:3 * n], act[:, 3 * n:]
    c_new = f * c
    c_new += i * g
    h_new = xp.tanh(c_new)
    h_new *= o
    return h_new, c_new, act


def _lstm_step_grad(c, c_new, act, dh_new, dc_new):
    """The gates' gradient ``dp`` (of both projections) and ``dc`` (the gradient of the previous cell state)."""
    xp = array_module(c)
    n = c.shape[-1]
    i, f, g, o = act[:, :n], act[:, n:2 * n], act[:, 2 * n:3 * n], act[:, 3 * n:]
    tc = xp.tanh(c_new)
    dp = 1 - act
    dp *= act  # sigmoid' = s (1 - s) in the i, f, o slots
    dg = dp[:, 2 * n:3 * n]
    xp.multiply(g, g, out=dg)
    xp.subtract(1, dg, out=dg)  # tanh' = 1 - g^2 in the g slot
    do = dp[:, 3 * n:]
    do *= tc
    do *= dh_new
    tc *= tc
    xp.subtract(1, tc, out=tc)
    tc *= o
    tc *= dh_new
    tc += dc_new  # the gradient of c' (through h' and directly)
    dp[:, :n] *= g
    dp[:, n:2 * n] *= c
    dg *= i
    for k in range(3):
        dp[:, k * n:(k + 1) * n] *= tc
    return dp, tc * f


def _gru_step(px, h, w_hh, b_hh):
    """``h'`` and saved = [r, z, c, h_c] (``[B, 4H]``: the gates, the candidate and its hidden part)."""
    xp = array_module(px)
    ph = h @ w_hh.T + b_hh
    n = h.shape[-1]
    saved = xp.empty(px.shape[:-1] + (4 * n,), px.dtype)
    saved[:, :2 * n] = sigmoid(px[:, :2 * n] + ph[:, :2 * n])
    r, z = saved[:, :n], saved[:, n:2 * n]
    hc = ph[:, 2 * n:]
    saved[:, 3 * n:] = hc
    cand = saved[:, 2 * n:3 * n]
    xp.tanh(px[:, 2 * n:] + r * hc, out=cand)
    return (h - cand) * z + cand, saved


def _gru_step_grad(h, saved, dh_new):
    """The gradients of the input projection, of the hidden projection, and of h through ``h * z``."""
    xp = array_module(h)
    n = h.shape[-1]
    r, z, cand, hc = saved[:, :n], saved[:, n:2 * n], saved[:, 2 * n:3 * n], saved[:, 3 * n:]
    dpc = dh_new * (1 - z) * (1 - cand * cand)
    dpx = xp.empty(saved.shape[:-1] + (3 * n,), saved.dtype)
    dpx[:, :n] = dpc * hc * r * (1 - r)
    dpx[:, n:2 * n] = dh_new * (h - cand) * z * (1 - z)
    dpx[:, 2 * n:] = dpc
    dph = dpx.copy()
    dph[:, 2 * n:] = dpc * r
    return dpx, dph, dh_new * z


def _simple_step(px, h, w_hh, b_hh, activation):
    xp = array_module(px)
    pre = px + (h @ w_hh.T + b_hh)
    return xp.tanh(pre) if activation == "tanh" else xp.maximum(pre, 0)


def _simple_step_grad(h_new, dh_new, activation):
    return dh_new * (1 - h_new * h_new) if activation == "tanh" else dh_new * (h_new > 0)


def _param_grads(dpx, dph, x, h, w_ih, w_hh):
    """dx, dh, dW_ih, dW_hh, db_ih, db_hh from the gradients of the two projections (rows: batch, or time*batch)."""
    return dpx @ w_ih, dph @ w_hh, dpx.T @ x, dph.T @ h, dpx.sum(0), dph.sum(0)


# ---- cells: one step -----------------------------------------------------------------------------------------

def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """Returns ``(h', c', saved)``, saved = the activated gates [i, f, g, o] (``[B, 4H]``)."""
    return _lstm_step(x @ w_ih.T + b_ih, h, c, w_hh, b_hh)


def lstm_cell_grad(x, h, c, w_ih, w_hh, c_new, saved, dh_new, dc_new):
    dp, dc = _lstm_step_grad(c, c_new, saved, dh_new, dc_new)
    dx, dh, dw_ih, dw_hh, db_ih, db_hh = _param_grads(dp, dp, x, h, w_ih, w_hh)
    return dx, dh, dc, dw_ih, dw_hh, db_ih, db_hh


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    """Returns ``(h', saved)``, saved = [r, z, c, h_c] (``[B, 4H]``)."""
    return _gru_step(x @ w_ih.T + b_ih, h, w_hh, b_hh)


def gru_cell_grad(x, h, w_ih, w_hh, saved, dh_new):
    dpx, dph, dh_z = _gru_step_grad(h, saved, dh_new)
    dx, dh, dw_ih, dw_hh, db_ih, db_hh = _param_grads(dpx, dph, x, h, w_ih, w_hh)
    return dx, dh + dh_z, dw_ih, dw_hh, db_ih, db_hh


def simple_rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, activation):
    return _simple_step(x @ w_ih.T + b_ih, h, w_hh, b_hh, activation)


def simple_rnn_cell_grad(x, h, w_ih, w_hh, h_new, dh_new, activation):
    dp = _simple_step_grad(h_new, dh_new, activation)
    return _param_grads(dp, dp, x, h, w_ih, w_hh)


# ---- sequences: one layer, one direction ----------------------------------------------------------------------

def _steps(n, reverse):
    return range(n - 1, -1, -1) if reverse else range(n)


def _input_proj(x, w_ih, b_ih):
    t, b = x.shape[:2]
    return (x.reshape(t * b, -1) @ w_ih.T + b_ih).reshape(t, b, -1)


def _keep(new, old, m):
    return new * m + old * (1 - m)


def _flat(a):
    return a.reshape(-1, a.shape[-1])


def lstm_seq(x, h, c, w_ih, w_hh, b_ih, b_hh, mask, reverse):
    """Returns ``(y [T, B, H], h_T, c_T, saved)``; saved ``[T, B, 7H]`` = gates (4H), h and c before the step,
    the step's unmasked c'."""
    xp = array_module(x)
    px = _input_proj(x, w_ih, b_ih)
    n = h.shape[-1]
    y = xp.empty(x.shape[:2] + (n,), px.dtype)
    saved = xp.empty(x.shape[:2] + (7 * n,), px.dtype)
    for t in _steps(x.shape[0], reverse):
        saved[t, :, 4 * n:5 * n], saved[t, :, 5 * n:6 * n] = h, c
        y[t], c_new, saved[t, :, :4 * n] = _lstm_step(px[t], h, c, w_hh, b_hh)
        saved[t, :, 6 * n:] = c_new
        h, c = _keep(y[t], h, mask[t]), _keep(c_new, c, mask[t])
    return y, h, c, saved


def lstm_seq_grad(x, w_ih, w_hh, mask, saved, dy, dh, dc, reverse):
    xp = array_module(x)
    n = dh.shape[-1]
    dp = xp.empty(saved.shape[:2] + (4 * n,), saved.dtype)
    for t in _steps(x.shape[0], not reverse):
        m = mask[t]
        dp[t], dc_prev = _lstm_step_grad(saved[t, :, 5 * n:6 * n], saved[t, :, 6 * n:], saved[t, :, :4 * n],
                                         dh * m + dy[t], dc * m)
        dh = dp[t] @ w_hh + dh * (1 - m)
        dc = dc_prev + dc * (1 - m)
    dx, dw_ih, dw_hh, db_ih, db_hh = _seq_param_grads(dp, dp, x, saved[:, :, 4 * n:5 * n], w_ih)
    return dx, dh, dc, dw_ih, dw_hh, db_ih, db_hh


def _seq_param_grads(dpx, dph, x, hs, w_ih):
    """dx, dW_ih, dW_hh, db_ih, db_hh over all steps (``hs``: the hidden state before each step), one GEMM each."""
    dpx, dph = _flat(dpx), _flat(dph)
    return ((dpx @ w_ih).reshape(x.shape), dpx.T @ _flat(x), dph.T @ _flat(hs), dpx.sum(0), dph.sum(0))


def gru_seq(x, h, w_ih, w_hh, b_ih, b_hh, mask, reverse):
    """Returns ``(y [T, B, H], h_T, saved)``; saved ``[T, B, 5H]`` = r, z, c, h_c, and h before the step."""
    xp = array_module(x)
    px = _input_proj(x, w_ih, b_ih)
    n = h.shape[-1]
    y = xp.empty(x.shape[:2] + (n,), px.dtype)
    saved = xp.empty(x.shape[:2] + (5 * n,), px.dtype)
    for t in _steps(x.shape[0], reverse):
        saved[t, :, 4 * n:] = h
        y[t], saved[t, :, :4 * n] = _gru_step(px[t], h, w_hh, b_hh)
        h = _keep(y[t], h, mask[t])
    return y, h, saved


def gru_seq_grad(x, w_ih, w_hh, mask, saved, dy, dh, reverse):
    xp = array_module(x)
    n = dh.shape[-1]
    dpx = xp.empty(saved.shape[:2] + (3 * n,), saved.dtype)
    dph = xp.empty_like(dpx)
    for t in _steps(x.shape[0], not reverse):
        m = mask[t]
        dpx[t], dph[t], dh_z = _gru_step_grad(saved[t, :, 4 * n:], saved[t, :, :4 * n], dh * m + dy[t])
        dh = dph[t] @ w_hh + dh_z + dh * (1 - m)
    dx, dw_ih, dw_hh, db_ih, db_hh = _seq_param_grads(dpx, dph, x, saved[:, :, 4 * n:], w_ih)
    return dx, dh, dw_ih, dw_hh, db_ih, db_hh


def simple_rnn_seq(x, h, w_ih, w_hh, b_ih, b_hh, mask, reverse, activation):
    """Returns ``(y [T, B, H], h_T, saved)``; saved ``[T, B, H]`` = h before each step (y is the step's output)."""
    xp = array_module(x)
    px = _input_proj(x, w_ih, b_ih)
    y = xp.empty(x.shape[:2] + h.shape[-1:], px.dtype)
    saved = xp.empty_like(y)
    for t in _steps(x.shape[0], reverse):
        saved[t] = h
        y[t] = _simple_step(px[t], h, w_hh, b_hh, activation)
        h = _keep(y[t], h, mask[t])
    return y, h, saved


def simple_rnn_seq_grad(x, w_ih, w_hh, mask, saved, y, dy, dh, reverse, activation):
    xp = array_module(x)
    dp = xp.empty_like(y)
    for t in _steps(x.shape[0], not reverse):
        m = mask[t]
        dp[t] = _simple_step_grad(y[t], dh * m + dy[t], activation)
        dh = dp[t] @ w_hh + dh * (1 - m)
    dx, dw_ih, dw_hh, db_ih, db_hh = _seq_param_grads(dp, dp, x, saved, w_ih)
    return dx, dh, dw_ih, dw_hh, db_ih, db_hh
