"""Fused recurrent networks (issue 26): the cells `lstm_cell`, `gru_cell`, `simple_rnn_cell` (one op per time step)
and the sequences `lstm_seq`, `gru_seq`, `simple_rnn_seq` (one op per layer and direction, `rnn_seq`).

The layers of `oar.nn.layer.rnn` run these instead of the ~15 ops per step of their composed forms (two matmuls,
bias adds, a split, the gate activations and products) while ``FLAGS_fused_rnn`` is on (the default): one op
forward, one gradient op backward, the same numbers. Each forward also returns the activations its gradient reads
(``saved``, not differentiable), so the gradient recomputes no GEMM; a sequence's gradient runs backward through
time in one kernel and computes each weight gradient as one GEMM over all steps. In ONNX a cell is written out in
the composed form (MatMul, Add, Split, Sigmoid, Tanh, Mul) and a sequence unrolled over its steps.

The gradient ops are not differentiable a second time (set ``FLAGS_fused_rnn`` to False for gradients of gradients
through a recurrent layer: the composed form has them).
"""
import numpy as np

from ...kernels import rnn as K
from ..common import not_differentiable_again
from ..registry import apply, defop

_WEIGHTS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
_SECOND = "a fused recurrent gradient kernel"
_HINT = "oar.set_flags({'FLAGS_fused_rnn': False}) runs recurrent layers as composed ops, which have them"


def _none_if_stopped(grads, inputs):
    return tuple(None if t.stop_gradient else g for g, t in zip(grads, inputs))


# ---- LSTM --------------------------------------------------------------------------------------------------------

LSTM_CELL_GRAD = defop("lstm_cell_grad", K.lstm_cell_grad,
                       inputs=("x", "h", "c", "weight_ih", "weight_hh", "c_new", "saved", "h_new_grad",
                               "c_new_grad"),
                       outputs=("x_grad", "h_grad", "c_grad", "weight_ih_grad", "weight_hh_grad", "bias_ih_grad",
                                "bias_hh_grad"),
                       infer=lambda m, **a: [m[0], m[1], m[2], m[3], m[4], ([m[3][0][0]], m[3][1]),
                                             ([m[3][0][0]], m[3][1])],
                       grad=not_differentiable_again("lstm_cell_grad", _SECOND, _HINT))


def _lstm_grad(g, out, x, h, c, w_ih, w_hh, b_ih, b_hh):
    grads = apply(LSTM_CELL_GRAD, (x, h, c, w_ih, w_hh, out[1], out[2], g[0], g[1]))
    return _none_if_stopped(grads, (x, h, c, w_ih, w_hh, b_ih, b_hh))


def _lstm_infer(m, **a):
    (hs, dt), (ws, _) = m[1], m[3]
    return [(hs, dt), (hs, dt), ([hs[0], ws[0]], dt)]


LSTM_CELL = defop("lstm_cell", K.lstm_cell, inputs=("x", "h", "c") + _WEIGHTS, outputs=("h_new", "c_new", "saved"),
                  infer=_lstm_infer, grad=_lstm_grad, nondiff_out=(2,),
                  grad_reads=("x", "h", "c", "weight_ih", "weight_hh", "bias_ih.shape", "bias_hh.shape",
                              "out[1]", "out[2]"))


def lstm_cell(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh):
    """One LSTM step in Paddle's layout and gate order (i, f, g, o): returns ``(h', c')``.

    Example:
        >>> from oar.ops.nn.rnn import lstm_cell
        >>> x, h = oar.ones([2, 3]), oar.zeros([2, 4])
        >>> w_ih, w_hh, b = oar.full([16, 3], 0.1), oar.full([16, 4], 0.1), oar.zeros([16])
        >>> h2, c2 = lstm_cell(x, h, h, w_ih, w_hh, b, b)
        >>> round(float(c2[0, 0]), 4)
        0.3649
    """
    h_new, c_new, _ = apply(LSTM_CELL, (x, h, c, weight_ih, weight_hh, bias_ih, bias_hh))
    return h_new, c_new


# ---- GRU ---------------------------------------------------------------------------------------------------------

GRU_CELL_GRAD = defop("gru_cell_grad", K.gru_cell_grad,
                      inputs=("x", "h", "weight_ih", "weight_hh", "saved", "h_new_grad"),
                      outputs=("x_grad", "h_grad", "weight_ih_grad", "weight_hh_grad", "bias_ih_grad",
                               "bias_hh_grad"),
                      infer=lambda m, **a: [m[0], m[1], m[2], m[3], ([m[2][0][0]], m[2][1]),
                                            ([m[2][0][0]], m[2][1])],
                      grad=not_differentiable_again("gru_cell_grad", _SECOND, _HINT))


def _gru_grad(g, out, x, h, w_ih, w_hh, b_ih, b_hh):
    grads = apply(GRU_CELL_GRAD, (x, h, w_ih, w_hh, out[1], g[0]))
    return _none_if_stopped(grads, (x, h, w_ih, w_hh, b_ih, b_hh))


def _gru_infer(m, **a):
    (hs, dt) = m[1]
    return [(hs, dt), ([hs[0], 4 * hs[1] if hs[1] >= 0 else -1], dt)]


GRU_CELL = defop("gru_cell", K.gru_cell, inputs=("x", "h") + _WEIGHTS, outputs=("h_new", "saved"),
                 infer=_gru_infer, grad=_gru_grad, nondiff_out=(1,),
                 grad_reads=("x", "h", "weight_ih", "weight_hh", "bias_ih.shape", "bias_hh.shape", "out[1]"))


def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """One GRU step with Paddle's formula (the reset gate multiplies the hidden projection): returns ``h'``.

    Example:
        >>> from oar.ops.nn.rnn import gru_cell
        >>> x, h = oar.ones([2, 3]), oar.zeros([2, 4])
        >>> h2 = gru_cell(x, h, oar.full([12, 3], 0.1), oar.full([12, 4], 0.1), oar.zeros([12]), oar.zeros([12]))
        >>> round(float(h2[0, 0]), 4)
        0.1239
    """
    return apply(GRU_CELL, (x, h, weight_ih, weight_hh, bias_ih, bias_hh))[0]


# ---- simple RNN --------------------------------------------------------------------------------------------------

SIMPLE_RNN_CELL_GRAD = defop("simple_rnn_cell_grad", K.simple_rnn_cell_grad,
                             inputs=("x", "h", "weight_ih", "weight_hh", "h_new", "h_new_grad"),
                             outputs=("x_grad", "h_grad", "weight_ih_grad", "weight_hh_grad", "bias_ih_grad",
                                      "bias_hh_grad"),
                             infer=lambda m, **a: [m[0], m[1], m[2], m[3], ([m[2][0][0]], m[2][1]),
                                                   ([m[2][0][0]], m[2][1])],
                             grad=not_differentiable_again("simple_rnn_cell_grad", _SECOND, _HINT))


def _simple_grad(g, out, x, h, w_ih, w_hh, b_ih, b_hh, activation):
    grads = apply(SIMPLE_RNN_CELL_GRAD, (x, h, w_ih, w_hh, out, g), {"activation": activation})
    return _none_if_stopped(grads, (x, h, w_ih, w_hh, b_ih, b_hh))


SIMPLE_RNN_CELL = defop("simple_rnn_cell", K.simple_rnn_cell, inputs=("x", "h") + _WEIGHTS, outputs=("h_new",),
                        infer=lambda m, activation: [m[1]], grad=_simple_grad,
                        grad_reads=("x", "h", "weight_ih", "weight_hh", "bias_ih.shape", "bias_hh.shape", "out"))


def simple_rnn_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh, activation="tanh"):
    """One Elman RNN step, ``act(x W_ih^T + b_ih + h W_hh^T + b_hh)`` with act 'tanh' or 'relu'.

    Example:
        >>> from oar.ops.nn.rnn import simple_rnn_cell
        >>> h = simple_rnn_cell(oar.ones([2, 3]), oar.zeros([2, 4]), oar.full([4, 3], 0.1), oar.full([4, 4], 0.1),
        ...                     oar.zeros([4]), oar.zeros([4]), activation='relu')
        >>> round(float(h[0, 0]), 4)
        0.3
    """
    return apply(SIMPLE_RNN_CELL, (x, h, weight_ih, weight_hh, bias_ih, bias_hh), {"activation": activation})


# ---- sequences: one layer in one direction, one op --------------------------------------------------------------

def _seq_grad_infer(m, **a):
    x, w_ih, w_hh = m[0], m[1], m[2]
    b = ([w_ih[0][0]], w_ih[1])
    return [x, _state_meta(x, w_hh)] + ([_state_meta(x, w_hh)] if a.get("lstm") else []) + [w_ih, w_hh, b, b]


def _state_meta(x, w_hh):
    return [x[0][1], w_hh[0][1]], x[1]


def _seq_infer(saved_width, lstm):
    def infer(m, **a):
        x, w_hh = m[0], m[4 if lstm else 3]
        t, b, n = x[0][0], x[0][1], w_hh[0][1]
        states = [([b, n], x[1])] * (2 if lstm else 1)
        return [([t, b, n], x[1])] + states + [([t, b, saved_width * n], x[1])]
    return infer


def _seq_grad_rule(grad_op):
    def rule(g, out, x, *rest, **a):
        inputs = (x,) + rest[:-1]  # all but the mask
        w_ih, w_hh = rest[-5], rest[-4]
        extra = (out[0],) if grad_op is SIMPLE_RNN_SEQ_GRAD else ()
        grads = apply(grad_op, (x, w_ih, w_hh, rest[-1], out[-1]) + extra + tuple(g[:-1]), a)
        return _none_if_stopped(grads, inputs) + (None,)
    return rule


LSTM_SEQ_GRAD = defop("lstm_seq_grad", K.lstm_seq_grad,
                      inputs=("x", "weight_ih", "weight_hh", "mask", "saved", "y_grad", "h_grad", "c_grad"),
                      outputs=("x_grad", "h0_grad", "c0_grad", "weight_ih_grad", "weight_hh_grad", "bias_ih_grad",
                               "bias_hh_grad"),
                      infer=lambda m, **a: _seq_grad_infer(m, lstm=True),
                      grad=not_differentiable_again("lstm_seq_grad", _SECOND, _HINT))
GRU_SEQ_GRAD = defop("gru_seq_grad", K.gru_seq_grad,
                     inputs=("x", "weight_ih", "weight_hh", "mask", "saved", "y_grad", "h_grad"),
                     outputs=("x_grad", "h0_grad", "weight_ih_grad", "weight_hh_grad", "bias_ih_grad",
                              "bias_hh_grad"),
                     infer=lambda m, **a: _seq_grad_infer(m), grad=not_differentiable_again("gru_seq_grad", _SECOND,
                                                                                           _HINT))
SIMPLE_RNN_SEQ_GRAD = defop("simple_rnn_seq_grad", K.simple_rnn_seq_grad,
                            inputs=("x", "weight_ih", "weight_hh", "mask", "saved", "y", "y_grad", "h_grad"),
                            outputs=("x_grad", "h0_grad", "weight_ih_grad", "weight_hh_grad", "bias_ih_grad",
                                     "bias_hh_grad"),
                            infer=lambda m, **a: _seq_grad_infer(m),
                            grad=not_differentiable_again("simple_rnn_seq_grad", _SECOND, _HINT))

_SEQ_READS = ("x", "weight_ih", "weight_hh", "bias_ih.shape", "bias_hh.shape", "mask")
LSTM_SEQ = defop("lstm_seq", K.lstm_seq, inputs=("x", "h0", "c0") + _WEIGHTS + ("mask",),
                 outputs=("y", "h", "c", "saved"), infer=_seq_infer(7, True), grad=_seq_grad_rule(LSTM_SEQ_GRAD),
                 nondiff=(7,), nondiff_out=(3,), grad_reads=_SEQ_READS + ("h0.shape", "c0.shape", "out[3]"))
GRU_SEQ = defop("gru_seq", K.gru_seq, inputs=("x", "h0") + _WEIGHTS + ("mask",), outputs=("y", "h", "saved"),
                infer=_seq_infer(5, False), grad=_seq_grad_rule(GRU_SEQ_GRAD), nondiff=(6,), nondiff_out=(2,),
                grad_reads=_SEQ_READS + ("h0.shape", "out[2]"))
SIMPLE_RNN_SEQ = defop("simple_rnn_seq", K.simple_rnn_seq, inputs=("x", "h0") + _WEIGHTS + ("mask",),
                       outputs=("y", "h", "saved"), infer=_seq_infer(1, False),
                       grad=_seq_grad_rule(SIMPLE_RNN_SEQ_GRAD), nondiff=(6,), nondiff_out=(2,),
                       grad_reads=_SEQ_READS + ("h0.shape", "out[0]", "out[2]"))
_SEQ_OPS = {"LSTM": LSTM_SEQ, "GRU": GRU_SEQ, "RNN": SIMPLE_RNN_SEQ}


def rnn_seq(mode, x, states, weights, mask, reverse=False, activation="tanh"):
    """One recurrent layer in one direction over a time-major sequence, as one op.

    Args:
        mode: "LSTM", "GRU" or "RNN" (a simple RNN with `activation` 'tanh' or 'relu').
        x: ``[T, B, I]``.
        states: the initial states: ``(h0, c0)`` for an LSTM, ``h0`` otherwise, each ``[B, H]``.
        weights: ``(weight_ih, weight_hh, bias_ih, bias_hh)`` in the cells' layout.
        mask: ``[T, B, 1]``, 1 inside each sequence and 0 past its end: there the states stop changing
            (``[T, 1, 1]`` ones: no padding).
        reverse: run from the last step to the first.

    Returns:
        ``(y [T, B, H], final states)`` (final states shaped as `states`).

    Example:
        >>> from oar.ops.nn.rnn import rnn_seq
        >>> w = (oar.full([12, 3], 0.1), oar.full([12, 4], 0.1), oar.zeros([12]), oar.zeros([12]))
        >>> y, h = rnn_seq("GRU", oar.ones([5, 2, 3]), oar.zeros([2, 4]), w, oar.ones([5, 2, 1]))
        >>> y.shape, h.shape
        ([5, 2, 4], [2, 4])
    """
    attrs = {"reverse": bool(reverse)}
    if mode == "RNN":
        attrs["activation"] = activation
    if mode == "LSTM":
        y, h, c, _ = apply(LSTM_SEQ, (x,) + tuple(states) + tuple(weights) + (mask,), attrs)
        return y, (h, c)
    y, h, _ = apply(_SEQ_OPS[mode], (x, states) + tuple(weights) + (mask,), attrs)
    return y, h


# ---- ONNX: the composed form; a sequence unrolled over its (known) steps ------------------------------------------

def _onnx_proj(ctx, x, w, b):
    """``x W^T + b`` (x any rank, its last dim the input)."""
    return ctx.node("Add", [ctx.node("MatMul", [x, ctx.node("Transpose", [w], perm=[1, 0])]), b])


def _onnx_lstm_step(ctx, px, h, c, w_hh, b_hh, n):
    i, f, g, o = ctx.node("Split", [ctx.node("Add", [px, _onnx_proj(ctx, h, w_hh, b_hh)]), ctx.ints([n] * 4)],
                          n_out=4, axis=-1)
    i, f, o = (ctx.node("Sigmoid", [v]) for v in (i, f, o))
    c_new = ctx.node("Add", [ctx.node("Mul", [f, c]), ctx.node("Mul", [i, ctx.node("Tanh", [g])])])
    return ctx.node("Mul", [o, ctx.node("Tanh", [c_new])]), c_new


def _onnx_gru_step(ctx, px, h, w_hh, b_hh, n):
    xr, xz, xc = ctx.node("Split", [px, ctx.ints([n] * 3)], n_out=3, axis=-1)
    hr, hz, hc = ctx.node("Split", [_onnx_proj(ctx, h, w_hh, b_hh), ctx.ints([n] * 3)], n_out=3, axis=-1)
    r = ctx.node("Sigmoid", [ctx.node("Add", [xr, hr])])
    z = ctx.node("Sigmoid", [ctx.node("Add", [xz, hz])])
    cand = ctx.node("Tanh", [ctx.node("Add", [xc, ctx.node("Mul", [r, hc])])])
    return ctx.node("Add", [ctx.node("Mul", [ctx.node("Sub", [h, cand]), z]), cand])


def _onnx_simple_step(ctx, px, h, w_hh, b_hh, activation):
    return ctx.node("Tanh" if activation == "tanh" else "Relu", [ctx.node("Add", [px, _onnx_proj(ctx, h, w_hh,
                                                                                                    b_hh)])])


def _saved_not_exported(ctx, op):
    for n in op.outputs["saved"]:
        ctx.unsupported_outputs[n] = op


def _onnx_cell(ctx, op):
    """`lstm_cell`, `gru_cell`, `simple_rnn_cell`."""
    if "saved" in op.outputs:
        _saved_not_exported(ctx, op)
    n = ctx.in_meta(op, "weight_hh")[0][1]
    px = _onnx_proj(ctx, ctx.inp(op, "x"), ctx.inp(op, "weight_ih"), ctx.inp(op, "bias_ih"))
    h, w_hh, b_hh = ctx.inp(op, "h"), ctx.inp(op, "weight_hh"), ctx.inp(op, "bias_hh")
    if op.type == "lstm_cell":
        h_new, c_new = _onnx_lstm_step(ctx, px, h, ctx.inp(op, "c"), w_hh, b_hh, n)
        ctx.node("Identity", [c_new], [ctx.out(op, "c_new")])
    elif op.type == "gru_cell":
        h_new = _onnx_gru_step(ctx, px, h, w_hh, b_hh, n)
    else:
        h_new = _onnx_simple_step(ctx, px, h, w_hh, b_hh, op.attrs["activation"])
    ctx.node("Identity", [h_new], [ctx.out(op, "h_new")])


def _onnx_seq(ctx, op):
    """`lstm_seq`, `gru_seq`, `simple_rnn_seq`: the steps written out one after the other (T is known)."""
    _saved_not_exported(ctx, op)
    steps = ctx.in_meta(op, "x")[0][0]
    if steps < 0:
        raise ctx.block_op_error(op, "a recurrent layer over an unknown number of time steps cannot be exported "
                                     "(give the time dim in the InputSpec)")
    n = ctx.in_meta(op, "weight_hh")[0][1]
    lstm = op.type == "lstm_seq"
    px = _onnx_proj(ctx, ctx.inp(op, "x"), ctx.inp(op, "weight_ih"), ctx.inp(op, "bias_ih"))
    w_hh, b_hh, mask = ctx.inp(op, "weight_hh"), ctx.inp(op, "bias_hh"), ctx.inp(op, "mask")
    h, c = ctx.inp(op, "h0"), ctx.inp(op, "c0") if lstm else None
    one = ctx.const(1, ctx.in_meta(op, "x")[1])
    ys = [None] * steps
    for t in (range(steps - 1, -1, -1) if op.attrs["reverse"] else range(steps)):
        at = ctx.const(np.int64(t))
        px_t, m = ctx.node("Gather", [px, at], axis=0), ctx.node("Gather", [mask, at], axis=0)
        keep = ctx.node("Sub", [one, m])
        if lstm:
            y, c_new = _onnx_lstm_step(ctx, px_t, h, c, w_hh, b_hh, n)
            c = ctx.node("Add", [ctx.node("Mul", [c_new, m]), ctx.node("Mul", [c, keep])])
        elif op.type == "gru_seq":
            y = _onnx_gru_step(ctx, px_t, h, w_hh, b_hh, n)
        else:
            y = _onnx_simple_step(ctx, px_t, h, w_hh, b_hh, op.attrs["activation"])
        h = ctx.node("Add", [ctx.node("Mul", [y, m]), ctx.node("Mul", [h, keep])])
        ys[t] = ctx.node("Unsqueeze", [y, ctx.ints([0])])
    ctx.node("Concat", ys, [ctx.out(op, "y")], axis=0)
    ctx.node("Identity", [h], [ctx.out(op, "h")])
    if lstm:
        ctx.node("Identity", [c], [ctx.out(op, "c")])


for _op in (LSTM_CELL, GRU_CELL, SIMPLE_RNN_CELL):
    _op.set(onnx=_onnx_cell)
for _op in (LSTM_SEQ, GRU_SEQ, SIMPLE_RNN_SEQ):
    _op.set(onnx=_onnx_seq)
