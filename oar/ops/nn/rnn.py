"""Fused recurrent cells: `lstm_cell`, `gru_cell`, `simple_rnn_cell`, one op per time step (issue 26).

The layers of `oar.nn.layer.rnn` run these instead of the ~15 ops each of their composed forms (two matmuls, bias
adds, a split, the gate activations and products) while ``FLAGS_fused_rnn`` is on (the default): one op forward,
one gradient op backward, the same numbers. Each forward also returns the activations its gradient reads
(``saved``, not differentiable), so the gradient recomputes no GEMM. In ONNX a cell is written out in the composed
form (MatMul, Add, Split, Sigmoid, Tanh, Mul), which every runtime runs.

The gradient ops compute every input's gradient in one kernel; they are not differentiable a second time (set
``FLAGS_fused_rnn`` to False for gradients of gradients through a recurrent layer: the composed form has them).
"""
from ...kernels import rnn as K
from ..common import not_differentiable_again
from ..registry import apply, defop

_WEIGHTS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
_SECOND = "a fused recurrent cell's gradient kernel"
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


# ---- ONNX: the composed form -------------------------------------------------------------------------------------

def _onnx_projections(ctx, op):
    """``x W_ih^T + b_ih`` and ``h W_hh^T + b_hh`` as ONNX nodes."""
    def proj(a, w, b):
        wt = ctx.node("Transpose", [ctx.inp(op, w)], perm=[1, 0])
        return ctx.node("Add", [ctx.node("MatMul", [ctx.inp(op, a), wt]), ctx.inp(op, b)])
    return proj("x", "weight_ih", "bias_ih"), proj("h", "weight_hh", "bias_hh")


def _saved_not_exported(ctx, op):
    for n in op.outputs["saved"]:
        ctx.unsupported_outputs[n] = op


def _onnx_lstm(ctx, op):
    _saved_not_exported(ctx, op)
    n = ctx.in_meta(op, "weight_hh")[0][1]
    px, ph = _onnx_projections(ctx, op)
    i, f, g, o = ctx.node("Split", [ctx.node("Add", [px, ph]), ctx.ints([n] * 4)], n_out=4, axis=1)
    i, f, o = (ctx.node("Sigmoid", [v]) for v in (i, f, o))
    c_new = ctx.node("Add", [ctx.node("Mul", [f, ctx.inp(op, "c")]), ctx.node("Mul", [i, ctx.node("Tanh", [g])])],
                     [ctx.out(op, "c_new")])
    ctx.node("Mul", [o, ctx.node("Tanh", [c_new])], [ctx.out(op, "h_new")])


def _onnx_gru(ctx, op):
    _saved_not_exported(ctx, op)
    n = ctx.in_meta(op, "weight_hh")[0][1]
    px, ph = _onnx_projections(ctx, op)
    xr, xz, xc = ctx.node("Split", [px, ctx.ints([n] * 3)], n_out=3, axis=1)
    hr, hz, hc = ctx.node("Split", [ph, ctx.ints([n] * 3)], n_out=3, axis=1)
    r = ctx.node("Sigmoid", [ctx.node("Add", [xr, hr])])
    z = ctx.node("Sigmoid", [ctx.node("Add", [xz, hz])])
    cand = ctx.node("Tanh", [ctx.node("Add", [xc, ctx.node("Mul", [r, hc])])])
    diff = ctx.node("Sub", [ctx.inp(op, "h"), cand])
    ctx.node("Add", [ctx.node("Mul", [diff, z]), cand], [ctx.out(op, "h_new")])


def _onnx_simple(ctx, op):
    px, ph = _onnx_projections(ctx, op)
    act = "Tanh" if op.attrs["activation"] == "tanh" else "Relu"
    ctx.node(act, [ctx.node("Add", [px, ph])], [ctx.out(op, "h_new")])


LSTM_CELL.set(onnx=_onnx_lstm)
GRU_CELL.set(onnx=_onnx_gru)
SIMPLE_RNN_CELL.set(onnx=_onnx_simple)
