"""Activation functions. Each is one op whose gradient is a registered `<name>_grad` op computing
``g * f'(x)`` in one kernel (fast first order). The `<name>_grad` op has its own gradient rule, written with
other ops from the activation's second derivative ``f''(x)``, so higher-order gradients (gradient penalties,
Hessian-vector products) work eagerly and in static programs."""
import math

from ...kernels import activation as K
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from ...ops.common import infer_same
from ...ops.onnx_rules import first_input as _x, same, scalar as _c
from ...ops.registry import apply, defop, lowerings

_SQRT_2_PI = K.SQRT_2_PI


def _act(name, fwd, dfn, curv=None, through_out=None, from_out=False, **fields):
    """Registers `name` (kernel ``fwd(x, **attrs)``) and `name_grad` (kernel ``dfn(x, out, g, **attrs)``), both
    from `oar/kernels/activation.py`; `fields` are the forward OpDef's typed fields (``amp=...``).

    `curv(x, out, **attrs)` is f''(x) written with ops (None: piecewise linear, f'' = 0); it makes the gradient
    of `name_grad`: d(g * f'(x)) = gg * g * f''(x) for x, f'(x) * gg (the same kernel) for g. An activation
    whose derivative is written in its output (softmax) gives `through_out(out, g, gg, **attrs)` instead: the
    gradients for `out` (which reaches x through the forward op) and for g.

    `from_out`: `dfn` reads only `out` (and f'' is 0), so the tape keeps the output alone and hands it to the
    gradient kernel in x's place too (relu: ``out > 0`` exactly where ``x > 0``).
    """
    def grad_grad(gg, dx, x, out, g, **a):
        if through_out is not None:
            return (None,) + through_out(out, g, gg, **a)
        d2 = M.zeros_like(x) if curv is None else gg * g * curv(x, out, **a)
        return d2, None, apply(grad_op, (x, out, gg), a)
    grad_op = defop(name + "_grad", lambda x, out, g, **a: K.cast_like(dfn(x, out, g, **a), g),
                    inputs=("x", "out", "out_grad"), infer=lambda m, **a: [m[2]], grad=grad_grad)
    if from_out:
        return defop(name, lambda x, **a: K.cast_like(fwd(x, **a), x), infer=infer_same, check=_float_input(name),
                     grad=lambda g, out, x, **a: apply(grad_op, (out, out, g), a), grad_reads=("out",), **fields)
    return defop(name, lambda x, **a: K.cast_like(fwd(x, **a), x), infer=infer_same, check=_float_input(name),
                 grad=lambda g, out, x, **a: apply(grad_op, (x, out, g), a), **fields)


def _float_input(name):
    """Activations are float math: an integer or bool input would come back truncated, so it raises (as Paddle,
    which has no integer kernels for them)."""
    def check(x, *rest, **attrs):
        meta = getattr(x, "_meta", None)  # a pending oar.lazy() value is not computed to check it; a Variable
        if (meta()[1] if meta is not None else x.dtype).kind in "iub":
            raise TypeError(f"{name} of a {x.dtype.name} tensor: cast it to a float dtype first (an integer "
                            "result would be truncated)")
    return check


def _mask(cond, like):
    """`cond` as 0/1 of `like`'s dtype (a Tensor or a static Variable)."""
    return M.cast(cond, like.dtype)


def _gelu_curv(x, out, approximate):
    if approximate:  # f'' = (1 - t^2) (u' + x u''/2 - x t u'^2), u = k (x + c x^3), t = tanh(u)
        t = M.tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x))
        du = _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
        return (1 - t * t) * (du + x * (3 * 0.044715 * _SQRT_2_PI) * x - x * t * du * du)
    return M.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi)) * (2 - x * x)


def _swish_curv(x, beta):
    s = M.sigmoid(x * beta)
    return beta * s * (1 - s) * (2 + beta * x * (1 - 2 * s))


def _mish_curv(x, out, threshold):
    s = M.sigmoid(x)
    t = M.tanh(apply(SOFTPLUS, (x,), {"beta": 1.0, "threshold": threshold}))
    return (1 - t * t) * (2 * s + x * (s * (1 - s) - 2 * t * s * s))


def _softplus_curv(x, out, beta, threshold):
    s = M.sigmoid(x * beta)
    return _mask(x * beta <= threshold, x) * (beta * s * (1 - s))


RELU = _act("relu", K.relu, K.relu_grad, from_out=True)
RELU6 = _act("relu6", K.relu6, K.relu6_grad)
LEAKY_RELU = _act("leaky_relu", K.leaky_relu, K.leaky_relu_grad)
ELU = _act("elu", K.elu, K.elu_grad, lambda x, out, alpha: _mask(x <= 0, x) * (out + alpha))
SELU = _act("selu", K.selu, K.selu_grad, lambda x, out, scale, alpha: _mask(x <= 0, x) * (out + scale * alpha))
GELU = _act("gelu", K.gelu, K.gelu_grad, _gelu_curv)
SILU = _act("silu", K.silu, K.silu_grad, lambda x, out: _swish_curv(x, 1.0))
SWISH = _act("swish", K.swish, K.swish_grad, lambda x, out, beta: _swish_curv(x, beta))
MISH = _act("mish", K.mish, K.mish_grad, _mish_curv)
HARDSWISH = _act("hardswish", K.hardswish, K.hardswish_grad,
                 lambda x, out: _mask((x >= -3) & (x <= 3), x) * (1 / 3))
HARDSIGMOID = _act("hardsigmoid", K.hardsigmoid, K.hardsigmoid_grad)
HARDTANH = _act("hardtanh", K.hardtanh, K.hardtanh_grad)
SOFTPLUS = _act("softplus", K.softplus, K.softplus_grad, _softplus_curv, amp="black")
SOFTSIGN = _act("softsign", K.softsign, K.softsign_grad,
                lambda x, out: -2 * M.sign(x) / ((1 + M.abs(x)) * (1 + M.abs(x)) * (1 + M.abs(x))))
LOG_SIGMOID = _act("logsigmoid", K.log_sigmoid, K.log_sigmoid_grad,
                   lambda x, out: M.sigmoid(x) * (M.sigmoid(x) - 1), amp="black")
TANHSHRINK = _act("tanh_shrink", K.tanh_shrink, K.tanh_shrink_grad,
                  lambda x, out: 2 * M.tanh(x) * (1 - M.tanh(x) * M.tanh(x)))
THRESHOLDED_RELU = _act("thresholded_relu", K.thresholded_relu, K.thresholded_relu_grad)


def _softmax_out_grad(out, g, gg, axis):  # gradients of <gg, out * (g - sum(g out))> for out and g
    gg_out = R.sum(gg * out, axis=axis, keepdim=True)
    return gg * (g - R.sum(g * out, axis=axis, keepdim=True)) - g * gg_out, out * (gg - gg_out)


def _log_softmax_out_grad(out, g, gg, axis):  # gradients of <gg, g - exp(out) sum(g)> for out and g
    p = M.exp(out)
    return -gg * p * R.sum(g, axis=axis, keepdim=True), gg - R.sum(gg * p, axis=axis, keepdim=True)


SOFTMAX = _act("softmax", K.softmax, K.softmax_grad, through_out=_softmax_out_grad, amp="black")
LOG_SOFTMAX = _act("log_softmax", K.log_softmax, K.log_softmax_grad, through_out=_log_softmax_out_grad, amp="black")


def _prelu_grad(g, out, x, w, data_format):
    return apply(PRELU_GRAD, (x, w, g), {"data_format": data_format})


def _prelu_grad_grad(gouts, outs, x, w, g, data_format):
    """Gradients of <A, dx> + <B, dw> (dx = g * (x > 0 ? 1 : w), dw = sum of g * x where x <= 0)."""
    ga, gb = gouts
    neg = _mask(x <= 0, x)
    ndim, size = len(x.shape), math.prod(w.shape)
    ch = None if size == 1 else (1 if data_format.startswith("NC") else ndim - 1)

    def per_channel(t):  # w's shape -> broadcastable against x
        return S.reshape(t, [] if ch is None else [size if i == ch else 1 for i in range(ndim)])

    def to_w(t):  # x's shape -> summed to w's shape
        return S.reshape(R.sum(t) if ch is None else R.sum(t, axis=[i for i in range(ndim) if i != ch]), w.shape)
    dx_of_ga = apply(PRELU_GRAD, (x, w, ga), {"data_format": data_format})[0]
    return neg * g * per_channel(gb), to_w(ga * neg * g), dx_of_ga + neg * x * per_channel(gb)


PRELU_GRAD = defop("prelu_grad", K.prelu_grad, inputs=("x", "alpha", "out_grad"), outputs=("x_grad", "alpha_grad"),
                   infer=lambda m, data_format: [m[0], m[1]], grad=_prelu_grad_grad)
PRELU = defop("prelu", K.prelu, inputs=("x", "alpha"), infer=infer_same, grad=_prelu_grad)


# ---- public functional forms --------------------------------------------------------------------------------

def relu(x, name=None):
    """max(x, 0).

    Example:
        >>> import oar.nn.functional as F
        >>> F.relu(oar.to_tensor([-1.0, 2.0])).numpy()
        array([0., 2.], dtype=float32)
    """
    return apply(RELU, (x,))


def relu_(x, name=None):
    """In-place `relu`: overwrites `x` and returns it.

    Example:
        >>> x = oar.to_tensor([-1.0, 2.0])
        >>> _ = oar.nn.functional.relu_(x)
        >>> x.numpy().tolist()
        [0.0, 2.0]
    """
    return x._inplace(relu(x))


def relu6(x, name=None):
    """min(max(x, 0), 6).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.relu6(x).numpy().tolist()]
        [0.0, 0.0, 0.0, 1.0, 6.0]
    """
    return apply(RELU6, (x,))


def leaky_relu(x, negative_slope=0.01, name=None):
    """x if x > 0 else negative_slope * x.

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.leaky_relu(x, negative_slope=0.1).numpy().tolist()]
        [-0.2, -0.05, 0.0, 1.0, 7.0]
    """
    return apply(LEAKY_RELU, (x,), {"alpha": float(negative_slope)})


def prelu(x, weight, data_format="NCHW", name=None):
    """Leaky ReLU with a learned slope `weight` (one value, or one per channel).

    Args:
        weight: the slopes for negative inputs, shape [1] or [C] (C = channels per `data_format`).

    Example:
        >>> x = oar.to_tensor([[-1.0, 2.0], [-4.0, 1.0]])
        >>> oar.nn.functional.prelu(x, oar.to_tensor([0.5, 0.25])).numpy().tolist()
        [[-0.5, 2.0], [-2.0, 1.0]]
    """
    return apply(PRELU, (x, weight), {"data_format": data_format})


def elu(x, alpha=1.0, name=None):
    """x if x > 0 else alpha * (exp(x) - 1).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.elu(x, alpha=1.0).numpy().tolist()]
        [-0.8647, -0.3935, 0.0, 1.0, 7.0]
    """
    return apply(ELU, (x,), {"alpha": float(alpha)})


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.selu(x).numpy().tolist()]
        [-1.5202, -0.6918, 0.0, 1.0507, 7.3549]
    """
    return apply(SELU, (x,), {"scale": float(scale), "alpha": float(alpha)})


def gelu(x, approximate=False, name=None):
    """x * Phi(x); ``approximate=True`` uses the tanh formula.

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.gelu(x).numpy().tolist()]
        [-0.0455, -0.1543, 0.0, 0.8413, 7.0]
        >>> [round(v, 4) for v in oar.nn.functional.gelu(x, approximate=True).numpy().tolist()]
        [-0.0454, -0.1543, 0.0, 0.8412, 7.0]
    """
    if isinstance(approximate, str):  # Paddle 3: 'none' (exact) or 'tanh'
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be a bool, 'none' or 'tanh', got {approximate!r}")
        approximate = approximate == "tanh"
    return apply(GELU, (x,), {"approximate": bool(approximate)})


def silu(x, inplace=False, name=None):
    """x * sigmoid(x); `inplace` writes the result into `x` (Paddle 3).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.silu(x).numpy().tolist()]
        [-0.2384, -0.1888, 0.0, 0.7311, 6.9936]
    """
    out = apply(SILU, (x,))
    if inplace:
        x._inplace(out)
        return x
    return out


def swish(x, name=None):
    """x * sigmoid(x) (Paddle's swish with beta 1).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.swish(x).numpy().tolist()]
        [-0.2384, -0.1888, 0.0, 0.7311, 6.9936]
    """
    return apply(SWISH, (x,), {"beta": 1.0})


def mish(x, name=None):
    """x * tanh(softplus(x)).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.mish(x).numpy().tolist()]
        [-0.2525, -0.2207, 0.0, 0.8651, 7.0]
    """
    return apply(MISH, (x,), {"threshold": 20.0})


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.sigmoid(x).numpy().tolist()]
        [0.1192, 0.3775, 0.5, 0.7311, 0.9991]
    """
    return M.sigmoid(x)


def tanh(x, name=None):
    """tanh(x).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.tanh(x).numpy().tolist()]
        [-0.964, -0.4621, 0.0, 0.7616, 1.0]
    """
    return M.tanh(x)


def hardswish(x, name=None):
    """x * relu6(x + 3) / 6.

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.hardswish(x).numpy().tolist()]
        [-0.3333, -0.2083, 0.0, 0.6667, 7.0]
    """
    return apply(HARDSWISH, (x,))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """clip(slope * x + offset, 0, 1) (Paddle's defaults slope=1/6, offset=0.5).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.hardsigmoid(x).numpy().tolist()]
        [0.1667, 0.4167, 0.5, 0.6667, 1.0]
    """
    return apply(HARDSIGMOID, (x,), {"slope": float(slope), "offset": float(offset)})


def hardtanh(x, min=-1.0, max=1.0, name=None):
    """clip(x, min, max).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.hardtanh(x, min=-1.0, max=1.0).numpy().tolist()]
        [-1.0, -0.5, 0.0, 1.0, 1.0]
    """
    return apply(HARDTANH, (x,), {"min": float(min), "max": float(max)})


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`.

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.softplus(x).numpy().tolist()]
        [0.1269, 0.4741, 0.6931, 1.3133, 7.0009]
    """
    return apply(SOFTPLUS, (x,), {"beta": float(beta), "threshold": float(threshold)})


def softsign(x, name=None):
    """x / (1 + |x|).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.softsign(x).numpy().tolist()]
        [-0.6667, -0.3333, 0.0, 0.5, 0.875]
    """
    return apply(SOFTSIGN, (x,))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)), computed stably.

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.log_sigmoid(x).numpy().tolist()]
        [-2.1269, -0.9741, -0.6931, -0.3133, -0.0009]
    """
    return apply(LOG_SIGMOID, (x,))


def tanhshrink(x, name=None):
    """x - tanh(x).

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.tanhshrink(x).numpy().tolist()]
        [-1.036, -0.0379, 0.0, 0.2384, 6.0]
    """
    return apply(TANHSHRINK, (x,))


def thresholded_relu(x, threshold=1.0, name=None):
    """x where x > threshold, else 0.

    Example:
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.0, 7.0])
        >>> [round(v, 4) for v in oar.nn.functional.thresholded_relu(x, threshold=1.0).numpy().tolist()]
        [0.0, 0.0, 0.0, 0.0, 7.0]
    """
    return apply(THRESHOLDED_RELU, (x,), {"threshold": float(threshold)})


def _maybe_cast(x, dtype):
    return M.cast(x, dtype) if dtype is not None else x


def softmax(x, axis=-1, dtype=None, name=None):
    """exp(x) / sum(exp(x)) along `axis`.

    Example:
        >>> import oar.nn.functional as F
        >>> F.softmax(oar.to_tensor([[1.0, 1.0]])).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """
    return apply(SOFTMAX, (_maybe_cast(x, dtype),), {"axis": int(axis)})


def log_softmax(x, axis=-1, dtype=None, name=None):
    """log(softmax(x)) computed stably.

    Example:
        >>> out = oar.nn.functional.log_softmax(oar.to_tensor([0.0, 0.0]))
        >>> [round(v, 4) for v in out.numpy().tolist()]
        [-0.6931, -0.6931]
    """
    return apply(LOG_SOFTMAX, (_maybe_cast(x, dtype),), {"axis": int(axis)})


def glu(x, axis=-1, name=None):
    """a * sigmoid(b) where a, b are the halves of `x` along `axis`.

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0, 0.0, 100.0]])
        >>> [round(v, 4) for v in oar.nn.functional.glu(x)[0].numpy().tolist()]
        [0.5, 2.0]
    """
    a, b = S.split(x, 2, axis=axis)
    return a * M.sigmoid(b)


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_gelu(ctx, op):
    x = _x(ctx, op)
    if op.attrs.get("approximate"):  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        x3 = ctx.node("Mul", [ctx.node("Mul", [x, x]), x])
        inner = ctx.node("Mul", [ctx.node("Add", [x, ctx.node("Mul", [x3, _c(ctx, op, 0.044715)])]),
                                 _c(ctx, op, math.sqrt(2.0 / math.pi))])
        t = ctx.node("Tanh", [inner])
    else:  # 0.5 x (1 + erf(x / sqrt 2))
        t = ctx.node("Erf", [ctx.node("Div", [x, _c(ctx, op, math.sqrt(2.0))])])
    half_x = ctx.node("Mul", [x, _c(ctx, op, 0.5)])
    ctx.node("Mul", [half_x, ctx.node("Add", [t, _c(ctx, op, 1.0)])], [ctx.out(op)])


def _onnx_x_times(fn):
    """x * fn(x) activations (silu, swish, mish, hardswish)."""
    def lower(ctx, op):
        x = _x(ctx, op)
        ctx.node("Mul", [x, fn(ctx, op, x)], [ctx.out(op)])
    return lower


def _onnx_softplus(ctx, op):
    beta, threshold = op.attrs["beta"], op.attrs["threshold"]
    x = _x(ctx, op)
    bx = ctx.node("Mul", [x, _c(ctx, op, beta)])
    sp = ctx.node("Div", [ctx.node("Softplus", [bx]), _c(ctx, op, beta)])
    ctx.node("Where", [ctx.node("Greater", [bx, _c(ctx, op, threshold)]), x, sp], [ctx.out(op)])


def _onnx_prelu(ctx, op):
    xs = ctx.in_meta(op, "x")[0]
    w = ctx.inp(op, "alpha")
    n = math.prod(ctx.in_meta(op, "alpha")[0] or [1])
    if n > 1:  # per channel: [C] broadcast along the channel dim
        shape = [1] * len(xs)
        shape[1 if op.attrs["data_format"].startswith("NC") else len(xs) - 1] = n
        w = ctx.node("Reshape", [w, ctx.ints(shape[1:])])
    ctx.node("PRelu", [_x(ctx, op), w], [ctx.out(op)])


def _onnx_softmax(onnx_type):
    def lower(ctx, op):
        nd = len(ctx.in_meta(op, "x")[0])
        axis = int(op.attrs["axis"]) % max(nd, 1)
        if ctx.opset >= 13 or axis == nd - 1:
            return ctx.unary(op, onnx_type, axis=axis)
        # before opset 13 Softmax normalises over all dims from `axis` on: move the axis last first
        perm = [i for i in range(nd) if i != axis] + [axis]
        y = ctx.node(onnx_type, [ctx.node("Transpose", [_x(ctx, op)], perm=perm)], axis=nd - 1)
        ctx.node("Transpose", [y], [ctx.out(op)], perm=[perm.index(i) for i in range(nd)])
    return lower


def _onnx_clip(lo, hi):
    return lambda ctx, op: ctx.node("Clip", [_x(ctx, op), _c(ctx, op, lo(op)), _c(ctx, op, hi(op))], [ctx.out(op)])


lowerings({
    "relu": same("Relu"), "relu6": _onnx_clip(lambda op: 0, lambda op: 6),
    "leaky_relu": lambda ctx, op: ctx.unary(op, "LeakyRelu", alpha=float(op.attrs["alpha"])),
    "elu": lambda ctx, op: ctx.unary(op, "Elu", alpha=float(op.attrs["alpha"])),
    "selu": lambda ctx, op: ctx.unary(op, "Selu", alpha=float(op.attrs["alpha"]), gamma=float(op.attrs["scale"])),
    "gelu": _onnx_gelu,
    "silu": _onnx_x_times(lambda ctx, op, x: ctx.node("Sigmoid", [x])),
    "swish": _onnx_x_times(lambda ctx, op, x: ctx.node("Sigmoid",
                                                       [ctx.node("Mul", [x, _c(ctx, op, op.attrs["beta"])])])),
    "mish": _onnx_x_times(lambda ctx, op, x: ctx.node("Tanh", [ctx.node("Softplus", [x])])),
    "hardswish": _onnx_x_times(lambda ctx, op, x: ctx.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)),
    "hardsigmoid": lambda ctx, op: ctx.unary(op, "HardSigmoid", alpha=float(op.attrs["slope"]),
                                             beta=float(op.attrs["offset"])),
    "hardtanh": _onnx_clip(lambda op: op.attrs["min"], lambda op: op.attrs["max"]),
    "softplus": _onnx_softplus, "softsign": same("Softsign"),
    "logsigmoid": lambda ctx, op: ctx.node("Neg", [ctx.node("Softplus", [ctx.node("Neg", [_x(ctx, op)])])],
                                           [ctx.out(op)]),
    "tanh_shrink": lambda ctx, op: ctx.node("Sub", [_x(ctx, op), ctx.node("Tanh", [_x(ctx, op)])], [ctx.out(op)]),
    "thresholded_relu": lambda ctx, op: ctx.unary(op, "ThresholdedRelu", alpha=float(op.attrs["threshold"])),
    "softmax": _onnx_softmax("Softmax"), "log_softmax": _onnx_softmax("LogSoftmax"), "prelu": _onnx_prelu,
})
