"""Convolutions: `conv2d`/`conv3d` ops (im2col + matmul kernels in `oar.kernels.conv`), their gradient ops,
and the transposed convolutions. 1-D convolutions run as 2-D ones with a unit height, as Paddle does."""
import math

from ...kernels import conv as K
from ...ops import manipulation as S
from ...ops import math as M
from ...ops.registry import apply, defop, lowerings
from .common import amp_bias


def resolve_pads(algorithm, paddings, spatial, ksize, strides, dilations):
    """Explicit ``[(before, after), ...]`` from Paddle's padding algorithm ('SAME', 'VALID', 'EXPLICIT')."""
    if algorithm == "VALID":
        return [(0, 0)] * len(ksize)
    if algorithm == "SAME":  # Paddle's UpdatePaddingAndDilation: 'same' also resets the dilation to 1
        out = []
        for s, k, st in zip(spatial, ksize, strides):
            total = max((math.ceil(s / st) - 1) * st + k - s, 0)
            out.append((total // 2, total - total // 2))
        return out
    return [tuple(p) for p in paddings]


def _conv_impl(x, w, strides, paddings, padding_algorithm, dilations, groups):
    pads = resolve_pads(padding_algorithm, paddings, x.shape[2:], w.shape[2:], strides, dilations)
    return K.conv_forward(x, w, strides, pads, dilations, groups)


def _conv_infer(m, strides, paddings, padding_algorithm, dilations, groups):
    (xs, dt), (ws, _) = m
    sp = xs[2:]
    pads = resolve_pads(padding_algorithm, paddings, [max(s, 1) for s in sp], ws[2:], strides, dilations)
    osz = K.out_sizes(sp, ws[2:], strides, pads, dilations)
    return [([xs[0], ws[0]] + [o if s >= 0 else -1 for o, s in zip(osz, sp)], dt)]


def _grad_input_impl(w, g, x, strides, paddings, padding_algorithm, dilations, groups):
    pads = resolve_pads(padding_algorithm, paddings, x.shape[2:], w.shape[2:], strides, dilations)
    return K.conv_grad_input(w, g, x.shape, strides, pads, dilations, groups).astype(g.dtype, copy=False)


def _grad_filter_impl(x, g, w, strides, paddings, padding_algorithm, dilations, groups):
    pads = resolve_pads(padding_algorithm, paddings, x.shape[2:], w.shape[2:], strides, dilations)
    return K.conv_grad_filter(x, g, w.shape, strides, pads, dilations, groups)


def _register_conv(name, **fields):
    # both gradient ops are bilinear (the `input`/`filter` they take for its shape carries no gradient), so
    # their gradients are the convolution and the other gradient op: second order closes over the three ops
    def grad_input_grad(gg, dx, w, g, x, **a):
        return (None if w.stop_gradient else apply(gfil, (gg, g, w), a),
                None if g.stop_gradient else apply(conv, (gg, w), a), None)

    def grad_filter_grad(gg, dw, x, g, w, **a):
        return (None if x.stop_gradient else apply(gin, (gg, g, x), a),
                None if g.stop_gradient else apply(conv, (x, gg), a), None)

    def grad(g, out, x, w, **a):
        dx = None if x.stop_gradient else apply(gin, (w, g, x), a)
        dw = None if w.stop_gradient else apply(gfil, (x, g, w), a)
        return dx, dw
    gin = defop(name + "_grad_input", _grad_input_impl, inputs=("filter", "out_grad", "input"),
                infer=lambda m, **a: [(m[2][0], m[1][1])], grad=grad_input_grad, scratch=K.SCRATCH)
    gfil = defop(name + "_grad_filter", _grad_filter_impl, inputs=("input", "out_grad", "filter"),
                 infer=lambda m, **a: [(m[2][0], m[1][1])], grad=grad_filter_grad, scratch=K.SCRATCH)
    conv = defop(name, _conv_impl, inputs=("input", "filter"), infer=_conv_infer, grad=grad,
                 grad_reads=("input", "filter"), scratch=K.SCRATCH, **fields)
    return conv, gin, gfil


CONV2D, CONV2D_GRAD_INPUT, CONV2D_GRAD_FILTER = _register_conv("conv2d", amp="white")
CONV3D, CONV3D_GRAD_INPUT, CONV3D_GRAD_FILTER = _register_conv("conv3d", amp="white")


def _tuple(v, n, what):
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"{what} must be an int or {n} ints, got {list(v)}")
        return [int(a) for a in v]
    return [int(v)] * n


def padding_attrs(padding, nd, channels_last=False):
    """(algorithm, [[before, after], ...]) from Paddle's padding forms: 'same'/'valid', an int, nd ints,
    2*nd ints ``[b0, a0, b1, a1, ...]``, or (nd+2) pairs including the batch and channel dims."""
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"padding must be 'same', 'valid', an int or a list, got {padding!r}")
        return p, [[0, 0]] * nd
    if isinstance(padding, int):
        return "EXPLICIT", [[padding, padding]] * nd
    padding = list(padding)
    if len(padding) == nd + 2 and all(isinstance(p, (list, tuple)) for p in padding):
        pairs = padding[1:-1] if channels_last else padding[2:]
        return "EXPLICIT", [[int(a), int(b)] for a, b in pairs]
    if len(padding) == nd and all(isinstance(p, (list, tuple)) for p in padding):
        return "EXPLICIT", [[int(a), int(b)] for a, b in padding]
    if len(padding) == nd:
        return "EXPLICIT", [[int(p), int(p)] for p in padding]
    if len(padding) == 2 * nd:
        return "EXPLICIT", [[int(padding[2 * i]), int(padding[2 * i + 1])] for i in range(nd)]
    raise ValueError(f"padding {padding} does not fit a {nd}-D convolution")


def _to_channels_first(x, nd, channels_last):
    return S.transpose(x, [0, nd + 1] + list(range(1, nd + 1))) if channels_last else x


def _from_channels_first(y, nd, channels_last):
    return S.transpose(y, [0] + list(range(2, nd + 2)) + [1]) if channels_last else y


def _add_bias(y, bias, nd):
    if bias is None:
        return y
    return M.add(y, S.reshape(amp_bias(y, bias), [1, -1] + [1] * nd))


def _conv_nd(op, x, weight, bias, stride, padding, dilation, groups, data_format, nd):
    channels_last = data_format[-1] == "C"
    if x.ndim != nd + 2:
        raise ValueError(f"conv{nd}d expects a {nd + 2}-D input ({data_format}), got shape {x.shape}")
    x = _to_channels_first(x, nd, channels_last)
    cin = x.shape[1]
    if cin >= 0 and cin != weight.shape[1] * groups:
        raise ValueError(f"conv{nd}d: input has {cin} channels but the weight {weight.shape} with groups={groups} "
                         f"expects {weight.shape[1] * groups}")
    algo, pads = padding_attrs(padding, nd, channels_last)
    dilation = [1] * nd if algo == "SAME" else _tuple(dilation, nd, "dilation")  # as Paddle
    y = apply(op, (x, weight), {"strides": _tuple(stride, nd, "stride"), "paddings": pads,
                                "padding_algorithm": algo, "dilations": dilation, "groups": int(groups)})
    return _from_channels_first(_add_bias(y, bias, nd), nd, channels_last)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    """2-D convolution; weight ``[out_channels, in_channels/groups, kh, kw]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.conv2d(oar.ones([1, 3, 8, 8]), oar.ones([4, 3, 3, 3]), padding='same').shape
        [1, 4, 8, 8]
    """
    return _conv_nd(CONV2D, x, weight, bias, stride, padding, dilation, groups, data_format, 2)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    """3-D convolution; weight ``[out_channels, in_channels/groups, kd, kh, kw]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.conv3d(oar.ones([1, 2, 4, 4, 4]), oar.ones([3, 2, 3, 3, 3]), padding=1).shape
        [1, 3, 4, 4, 4]
    """
    return _conv_nd(CONV3D, x, weight, bias, stride, padding, dilation, groups, data_format, 3)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL", name=None):
    """1-D convolution; weight ``[out_channels, in_channels/groups, k]`` (runs as a 2-D one).

    Example:
        >>> import oar.nn.functional as F
        >>> F.conv1d(oar.ones([1, 1, 5]), oar.ones([1, 1, 3])).numpy().tolist()
        [[[3.0, 3.0, 3.0]]]
    """
    channels_last = data_format == "NLC"
    x = _to_channels_first(x, 1, channels_last)
    pad2 = padding if isinstance(padding, str) else [[0, 0]] + padding_attrs(padding, 1)[1]
    y = conv2d(S.unsqueeze(x, 2), S.unsqueeze(weight, 2), None, [1, _tuple(stride, 1, "stride")[0]], pad2,
               [1, _tuple(dilation, 1, "dilation")[0]], groups)
    y = _add_bias(S.squeeze(y, 2), bias, 1)
    return _from_channels_first(y, 1, channels_last)


# ---- transposed convolution -----------------------------------------------------------------------------------

def _transpose_out(spatial, ksize, strides, pads, dilations, output_padding):
    return [(s - 1) * st - pb - pa + d * (k - 1) + 1 + op
            for s, k, st, (pb, pa), d, op in zip(spatial, ksize, strides, pads, dilations, output_padding)]


def _convt_impl(x, w, strides, paddings, dilations, groups, output_padding):
    osz = _transpose_out(x.shape[2:], w.shape[2:], strides, paddings, dilations, output_padding)
    shape = [x.shape[0], w.shape[1] * groups] + osz
    return K.conv_grad_input(w, x, shape, strides, [tuple(p) for p in paddings], dilations, groups)


def _convt_infer(m, strides, paddings, dilations, groups, output_padding):
    (xs, dt), (ws, _) = m
    osz = _transpose_out(xs[2:], ws[2:], strides, paddings, dilations, output_padding)
    return [([xs[0], ws[1] * groups] + [o if s >= 0 else -1 for o, s in zip(osz, xs[2:])], dt)]


def _register_convt(name, conv_op, gfil, **fields):
    def grad(g, out, x, w, strides, paddings, dilations, groups, output_padding):
        a = {"strides": strides, "paddings": paddings, "padding_algorithm": "EXPLICIT", "dilations": dilations,
             "groups": groups}
        dx = None if x.stop_gradient else apply(conv_op, (g, w), a)
        dw = None if w.stop_gradient else apply(gfil, (g, x, w), a)
        return dx, dw
    return defop(name, _convt_impl, inputs=("input", "filter"), infer=_convt_infer, grad=grad, scratch=K.SCRATCH,
                 **fields)


CONV2D_TRANSPOSE = _register_convt("conv2d_transpose", CONV2D, CONV2D_GRAD_FILTER, amp="white")
CONV3D_TRANSPOSE = _register_convt("conv3d_transpose", CONV3D, CONV3D_GRAD_FILTER, amp="white")


def _conv_transpose_nd(op, x, weight, bias, stride, padding, output_padding, groups, dilation, output_size,
                       data_format, nd):
    channels_last = data_format[-1] == "C"
    x = _to_channels_first(x, nd, channels_last)
    if x.shape[1] >= 0 and x.shape[1] != weight.shape[0]:
        raise ValueError(f"conv{nd}d_transpose: input has {x.shape[1]} channels but the weight {weight.shape} "
                         f"expects {weight.shape[0]}")
    algo, pads = padding_attrs(padding, nd, channels_last)
    strides, dils = _tuple(stride, nd, "stride"), _tuple(dilation, nd, "dilation")
    if algo != "EXPLICIT":  # Paddle pads the transposed input as a forward 'same'/'valid' conv would
        pads = [list(p) for p in resolve_pads(algo, None, x.shape[2:], weight.shape[2:], strides, dils)]
        dils = [1] * nd if algo == "SAME" else dils
    opad = _tuple(output_padding, nd, "output_padding")
    if output_size is not None:
        want = _tuple(output_size, nd, "output_size") if not isinstance(output_size, int) else [output_size] * nd
        base = _transpose_out(x.shape[2:], weight.shape[2:], strides, pads, dils, [0] * nd)
        opad = [w - b for w, b in zip(want, base)]
        if any(not 0 <= p < max(s, d) for p, s, d in zip(opad, strides, dils)):
            raise ValueError(f"output_size {want} is not reachable from input {x.shape[2:]} (sizes {base} to "
                             f"{[b + s - 1 for b, s in zip(base, strides)]})")
    y = apply(op, (x, weight), {"strides": strides, "paddings": pads, "dilations": dils, "groups": int(groups),
                                "output_padding": opad})
    return _from_channels_first(_add_bias(y, bias, nd), nd, channels_last)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCHW", name=None):
    """Transposed 2-D convolution; weight ``[in_channels, out_channels/groups, kh, kw]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.conv2d_transpose(oar.ones([1, 4, 5, 5]), oar.ones([4, 2, 3, 3]), stride=2).shape
        [1, 2, 11, 11]
    """
    return _conv_transpose_nd(CONV2D_TRANSPOSE, x, weight, bias, stride, padding, output_padding, groups,
                              dilation, output_size, data_format, 2)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCDHW", name=None):
    """Transposed 3-D convolution of NCDHW input; weight ``[in_channels, out_channels/groups, kd, kh, kw]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.conv3d_transpose(oar.ones([1, 2, 3, 3, 3]), oar.ones([2, 4, 2, 2, 2]), stride=2).shape
        [1, 4, 6, 6, 6]
    """
    return _conv_transpose_nd(CONV3D_TRANSPOSE, x, weight, bias, stride, padding, output_padding, groups,
                              dilation, output_size, data_format, 3)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCL", name=None):
    """Transposed 1-D convolution of ``[N, C, L]``; weight ``[in_channels, out_channels/groups, k]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.conv1d_transpose(oar.ones([1, 1, 3]), oar.ones([1, 1, 2]), stride=2).numpy().tolist()
        [[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]]
    """
    channels_last = data_format == "NLC"
    x = _to_channels_first(x, 1, channels_last)
    pad = padding if isinstance(padding, str) else [0, 0] + [p for pr in padding_attrs(padding, 1)[1] for p in pr]
    y = conv2d_transpose(S.unsqueeze(x, 2), S.unsqueeze(weight, 2), None, [1, _tuple(stride, 1, "stride")[0]], pad,
                         [0, _tuple(output_padding, 1, "output_padding")[0]], groups,
                         [1, _tuple(dilation, 1, "dilation")[0]],
                         None if output_size is None else [1, _tuple(output_size, 1, "output_size")[0]])
    return _from_channels_first(_add_bias(S.squeeze(y, 2), bias, 1), 1, channels_last)


# ---- ONNX -------------------------------------------------------------------------------------------------------

def onnx_pads(pairs):
    """ONNX ``pads``: all begins, then all ends."""
    return [int(p[0]) for p in pairs] + [int(p[1]) for p in pairs]


def onnx_spatial_pads(ctx, op, algo, paddings, ksize, strides, dilations):
    """Explicit ONNX pads, or auto_pad for 'SAME' when the spatial dims are unknown (convolutions and pooling)."""
    spatial = ctx.in_meta(op, next(iter(op.inputs)))[0][2:]
    if algo == "SAME" and any(s < 0 for s in spatial):
        return {"auto_pad": "SAME_UPPER"}
    return {"pads": onnx_pads(resolve_pads(algo, paddings, spatial, ksize, strides, dilations))}


def _onnx_conv(ctx, op):
    a = op.attrs
    ksize = ctx.in_meta(op, "filter")[0][2:]
    pads = onnx_spatial_pads(ctx, op, a["padding_algorithm"], a["paddings"], ksize, a["strides"], a["dilations"])
    ctx.node("Conv", [ctx.inp(op, "input"), ctx.inp(op, "filter")], [ctx.out(op)], kernel_shape=list(ksize),
             strides=list(a["strides"]), dilations=list(a["dilations"]), group=int(a["groups"]), **pads)


def _onnx_conv_transpose(ctx, op):
    a = op.attrs
    ksize = ctx.in_meta(op, "filter")[0][2:]
    ctx.node("ConvTranspose", [ctx.inp(op, "input"), ctx.inp(op, "filter")], [ctx.out(op)],
             kernel_shape=list(ksize), strides=list(a["strides"]), dilations=list(a["dilations"]),
             group=int(a["groups"]), pads=onnx_pads(a["paddings"]), output_padding=list(a["output_padding"]))


lowerings({"conv2d": _onnx_conv, "conv3d": _onnx_conv, "conv2d_transpose": _onnx_conv_transpose,
           "conv3d_transpose": _onnx_conv_transpose})
