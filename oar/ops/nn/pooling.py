"""Pooling: `max_pool2d`/`avg_pool2d` (any spatial rank; 1-D pooling runs through them), adaptive pooling.
Kernels live in `oar.kernels.pool`."""

import math

from ...core import dtype as D
from ...kernels import pool as P
from ...ops import manipulation as S
from ...ops.creation import arange
from ...ops import math as M
from ...ops.onnx_rules import first_input, only_first_output
from ...ops.registry import apply, defop, lowerings
from .conv import _from_channels_first, _to_channels_first, _tuple, onnx_spatial_pads, padding_attrs, resolve_pads


def _pads(x_spatial, ksize, strides, padding_algorithm, paddings):
    return resolve_pads(padding_algorithm, paddings, x_spatial, ksize, strides, [1] * len(ksize))


def _pool_infer(m, ksize, strides, paddings, padding_algorithm, ceil_mode, n_out=1, **a):
    xs, dt = m[0]
    sp = xs[2:]
    pads = _pads([max(s, 1) for s in sp], ksize, strides, padding_algorithm, paddings)
    osz = P.pool_out_sizes([max(s, 1) for s in sp], ksize, strides, pads, ceil_mode)
    shape = list(xs[:2]) + [o if s >= 0 else -1 for o, s in zip(osz, sp)]
    return [(shape, dt)] if n_out == 1 else [(shape, dt), (shape, D.int32)]


def _max_impl(x, ksize, strides, paddings, padding_algorithm, ceil_mode):
    return P.max_pool(x, ksize, strides, _pads(x.shape[2:], ksize, strides, padding_algorithm, paddings), ceil_mode)


def _max_grad_impl(x, idx, g, ksize, strides, paddings, padding_algorithm, ceil_mode):
    pads = _pads(x.shape[2:], ksize, strides, padding_algorithm, paddings)
    return P.max_pool_grad(x.shape, idx, g, ksize, strides, pads, ceil_mode)


def _avg_impl(x, ksize, strides, paddings, padding_algorithm, ceil_mode, exclusive):
    pads = _pads(x.shape[2:], ksize, strides, padding_algorithm, paddings)
    return P.avg_pool(x, ksize, strides, pads, ceil_mode, exclusive)


def _avg_grad_impl(x, g, ksize, strides, paddings, padding_algorithm, ceil_mode, exclusive):
    pads = _pads(x.shape[2:], ksize, strides, padding_algorithm, paddings)
    return P.avg_pool_grad(x.shape, g, ksize, strides, pads, ceil_mode, exclusive)


def _max_gather_impl(g, idx, ksize, strides, paddings, padding_algorithm, ceil_mode):
    pads = _pads(g.shape[2:], ksize, strides, padding_algorithm, paddings)
    return P.max_pool_gather(g, idx, ksize, strides, pads, ceil_mode)


# max pooling's backward scatters g to each window's argmax; its adjoint, the gather, closes the pair under
# differentiation (second and higher order); x, through the argmax, is piecewise constant: a zero gradient
MAX_POOL_GRAD = defop("max_pool2d_grad", _max_grad_impl, inputs=("x", "mask", "out_grad"),
                      infer=lambda m, **a: [(m[0][0], m[2][1])],
                      grad=lambda gg, dx, x, idx, g, **a: (M.zeros_like(x), None, apply(MAX_POOL_GATHER, (gg, idx), a)))
MAX_POOL_GATHER = defop("max_pool2d_gather", _max_gather_impl, inputs=("x_grad", "mask"), nondiff=(1,),
                        onnx_reason="training-only (gradient kernel)",
                        infer=lambda m, **a: [(m[1][0], m[0][1])],
                        grad=lambda gg, out, g, idx, **a: (apply(MAX_POOL_GRAD, (g, idx, gg), a), None))
MAX_POOL = defop("max_pool2d", _max_impl, outputs=("out", "mask"), nondiff_out=(1,),
                 infer=lambda m, **a: _pool_infer(m, n_out=2, **a),
                 grad=lambda g, out, x, **a: apply(MAX_POOL_GRAD, (x, out[1], g[0]), a),
                 grad_reads=("x.shape", "out[1]"))
# average pooling is linear: its backward's gradient is the pooling again (x gives only the shape)
AVG_POOL_GRAD = defop("avg_pool2d_grad", _avg_grad_impl, inputs=("x", "out_grad"),
                      infer=lambda m, **a: [(m[0][0], m[1][1])],
                      grad=lambda gg, dx, x, g, **a: (None, apply(AVG_POOL, (gg,), a)))
AVG_POOL = defop("avg_pool2d", _avg_impl, infer=_pool_infer,
                 grad=lambda g, out, x, **a: apply(AVG_POOL_GRAD, (x, g), a), grad_reads=("x.shape",))


def _pool_attrs(kernel_size, stride, padding, ceil_mode, nd, channels_last):
    ksize = _tuple(kernel_size, nd, "kernel_size")
    strides = ksize if stride is None else _tuple(stride, nd, "stride")
    algo, pads = padding_attrs(padding, nd, channels_last)
    return {"ksize": ksize, "strides": strides, "paddings": pads, "padding_algorithm": algo,
            "ceil_mode": bool(ceil_mode)}


def _pool(kind, x, kernel_size, stride, padding, ceil_mode, data_format, nd, return_mask=False, exclusive=True):
    channels_last = data_format[-1] == "C"
    if x.ndim != nd + 2:
        raise ValueError(f"{kind}_pool{nd}d expects a {nd + 2}-D input ({data_format}), got shape {x.shape}")
    x = _to_channels_first(x, nd, channels_last)
    a = _pool_attrs(kernel_size, stride, padding, ceil_mode, nd, channels_last)
    if kind == "max":
        out, mask = apply(MAX_POOL, (x,), a)
        if return_mask:
            mask = _from_channels_first(_flat_mask(mask, list(x.shape[2:]), a), nd, channels_last)
        out = _from_channels_first(out, nd, channels_last)
        return (out, mask) if return_mask else out
    a["exclusive"] = bool(exclusive)
    return _from_channels_first(apply(AVG_POOL, (x,), a), nd, channels_last)


def _flat_mask(local, spatial, a):
    """Paddle's mask: the argmax as a flat index into the input's spatial dims, from the kernel's index inside each
    window (window start = output position * stride - padding before)."""
    if any(d < 0 for d in spatial):
        raise NotImplementedError(f"max pooling with return_mask needs known spatial dims, got {spatial}")
    ksize, strides = a["ksize"], a["strides"]
    pads = _pads(spatial, ksize, strides, a["padding_algorithm"], a["paddings"])
    nd, flat = len(ksize), None
    for d in range(nd):
        offset = (local // math.prod(ksize[d + 1:])) % ksize[d]
        shape = [1] * (nd + 2)
        shape[d + 2] = local.shape[d + 2]
        start = S.reshape(arange(0, local.shape[d + 2] * strides[d], strides[d], dtype="int32") - pads[d][0], shape)
        term = (start + offset) * math.prod(spatial[d + 1:])
        flat = term if flat is None else flat + term
    return flat


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    """2-D max pooling (stride defaults to the kernel size).

    Example:
        >>> import oar.nn.functional as F
        >>> F.max_pool2d(oar.ones([1, 1, 4, 4]), 2).shape
        [1, 1, 2, 2]
    """
    return _pool("max", x, kernel_size, stride, padding, ceil_mode, data_format, 2, return_mask)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    """3-D max pooling of NCDHW input (with flat argmax indices when `return_mask`).

    Example:
        >>> import oar.nn.functional as F
        >>> F.max_pool3d(oar.ones([1, 2, 4, 4, 4]), kernel_size=2).shape
        [1, 2, 2, 2, 2]
    """
    return _pool("max", x, kernel_size, stride, padding, ceil_mode, data_format, 3, return_mask)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None):
    """2-D average pooling; ``exclusive=True`` leaves padding out of the average; `divisor_override` divides each
    window's sum by that number instead.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.ones([1, 1, 2, 2])
        >>> F.avg_pool2d(x, 2, padding=1, exclusive=True).numpy().tolist()
        [[[[1.0, 1.0], [1.0, 1.0]]]]
        >>> F.avg_pool2d(x, 2, padding=1, exclusive=False).numpy().tolist()
        [[[[0.25, 0.25], [0.25, 0.25]]]]
    """
    return _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, 2)


def _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, nd):
    """Average pooling; with `divisor_override` each window's sum divided by it. Paddle 3.3.1 instead scales the
    ``exclusive`` average by ``prod(kernel_size) / divisor_override``, which differs from the sum over the
    divisor where a window overlaps the padding; oar follows the documented meaning (PyTorch's too)."""
    if not divisor_override:
        return _pool("avg", x, kernel_size, stride, padding, ceil_mode, data_format, nd, exclusive=exclusive)
    if divisor_override < 0 or int(divisor_override) != divisor_override:
        raise ValueError(f"avg_pool{nd}d: divisor_override must be a positive int, got {divisor_override!r}")
    volume = 1
    for k in _tuple(kernel_size, nd, "kernel_size"):
        volume *= k
    window_sums = _pool("avg", x, kernel_size, stride, padding, ceil_mode, data_format, nd, exclusive=False)
    return window_sums * (volume / float(divisor_override))


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None):
    """3-D average pooling of NCDHW input; ``exclusive=True`` leaves padding out of the average;
    `divisor_override` divides each window's sum by that number instead.

    Example:
        >>> import oar.nn.functional as F
        >>> F.avg_pool3d(oar.ones([1, 2, 4, 4, 4]), kernel_size=2, stride=2).shape
        [1, 2, 2, 2, 2]
        >>> F.avg_pool3d(oar.ones([1, 1, 2, 2, 2]), kernel_size=2, divisor_override=4).numpy().ravel().tolist()
        [2.0]
    """
    return _avg_pool(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format, 3)


def _pad1d(padding):
    if isinstance(padding, str):
        return padding
    _, pads = padding_attrs(padding, 1)
    return [[0, 0], pads[0]]


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """1-D max pooling of ``[N, C, L]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.max_pool1d(oar.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]), kernel_size=2).numpy().tolist()
        [[[3.0, 2.0]]]
    """
    k = _tuple(kernel_size, 1, "kernel_size")[0]
    s = k if stride is None else _tuple(stride, 1, "stride")[0]
    res = max_pool2d(S.unsqueeze(x, 2), [1, k], [1, s], _pad1d(padding), return_mask, ceil_mode)
    if return_mask:
        return S.squeeze(res[0], 2), S.squeeze(res[1], 2)
    return S.squeeze(res, 2)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    """1-D average pooling of ``[N, C, L]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.avg_pool1d(oar.to_tensor([[[1.0, 3.0, 5.0, 7.0]]]), kernel_size=2).numpy().tolist()
        [[[2.0, 6.0]]]
    """
    k = _tuple(kernel_size, 1, "kernel_size")[0]
    s = k if stride is None else _tuple(stride, 1, "stride")[0]
    return S.squeeze(avg_pool2d(S.unsqueeze(x, 2), [1, k], [1, s], _pad1d(padding), ceil_mode, exclusive), 2)


# ---- adaptive ---------------------------------------------------------------------------------------------------

def _adaptive_infer(m, output_size, n_out=1):
    xs, dt = m[0]
    shape = list(xs[:len(xs) - len(output_size)]) + list(output_size)
    return [(shape, dt)] if n_out == 1 else [(shape, dt), (shape, D.int64)]


ADAPTIVE_AVG_GRAD = defop("adaptive_avg_pool_grad", lambda x, g, output_size: P.adaptive_avg_pool_grad(
    x.shape, g, output_size), inputs=("x", "out_grad"), infer=lambda m, **a: [(m[0][0], m[1][1])],
    grad=lambda gg, dx, x, g, output_size: (None, apply(ADAPTIVE_AVG, (gg,), {"output_size": output_size})))
ADAPTIVE_AVG = defop("adaptive_avg_pool", lambda x, output_size: P.adaptive_avg_pool(x, output_size),
                     infer=_adaptive_infer, grad=lambda g, out, x, output_size: apply(
                         ADAPTIVE_AVG_GRAD, (x, g), {"output_size": output_size}))
ADAPTIVE_MAX_GRAD = defop("adaptive_max_pool2d_grad", lambda x, idx, g, output_size: P.adaptive_max_pool2d_grad(
    x.shape, idx, g), inputs=("x", "mask", "out_grad"), infer=lambda m, **a: [(m[0][0], m[2][1])],
    grad=lambda gg, dx, x, idx, g, output_size: (M.zeros_like(x), None, apply(
        ADAPTIVE_MAX_GATHER, (gg, idx), {"output_size": output_size})))
ADAPTIVE_MAX_GATHER = defop("adaptive_max_pool2d_gather", lambda g, idx, output_size: P.adaptive_max_pool2d_gather(
    g, idx), inputs=("x_grad", "mask"), nondiff=(1,), infer=lambda m, **a: [(m[1][0], m[0][1])],
    onnx_reason="training-only (gradient kernel)",
    grad=lambda gg, out, g, idx, output_size: (apply(ADAPTIVE_MAX_GRAD, (g, idx, gg), {"output_size": output_size}),
                                               None))
ADAPTIVE_MAX = defop("adaptive_max_pool2d", lambda x, output_size: P.adaptive_max_pool2d(x, output_size),
                     outputs=("out", "mask"), nondiff_out=(1,), infer=lambda m, output_size: _adaptive_infer(
                         m, output_size, 2),
                     grad=lambda g, out, x, output_size: apply(ADAPTIVE_MAX_GRAD, (x, out[1], g[0]),
                                                               {"output_size": output_size}))


def _out_size(output_size, x, nd, channels_last):
    sizes = _tuple(output_size, nd, "output_size") if not isinstance(output_size, (list, tuple)) else \
        list(output_size)
    spatial = x.shape[1:1 + nd] if channels_last else x.shape[2:]
    return [int(s if o is None else o) for o, s in zip(sizes, spatial)]


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average pooling to a fixed output size (windows ``[floor(i*H/Ho), ceil((i+1)*H/Ho))``).

    Example:
        >>> import oar.nn.functional as F
        >>> F.adaptive_avg_pool2d(oar.ones([1, 3, 7, 7]), 1).shape
        [1, 3, 1, 1]
    """
    channels_last = data_format == "NHWC"
    size = _out_size(output_size, x, 2, channels_last)
    x = _to_channels_first(x, 2, channels_last)
    return _from_channels_first(apply(ADAPTIVE_AVG, (x,), {"output_size": size}), 2, channels_last)


def adaptive_avg_pool1d(x, output_size, name=None):
    """Average pooling of ``[N, C, L]`` to `output_size` windows.

    Example:
        >>> import oar.nn.functional as F
        >>> F.adaptive_avg_pool1d(oar.to_tensor([[[1.0, 3.0, 5.0, 7.0]]]), 2).numpy().tolist()
        [[[2.0, 6.0]]]
    """
    return apply(ADAPTIVE_AVG, (x,), {"output_size": [int(_tuple(output_size, 1, "output_size")[0])]})


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Average pooling of NCDHW input to `output_size` windows.

    Example:
        >>> import oar.nn.functional as F
        >>> F.adaptive_avg_pool3d(oar.ones([1, 2, 4, 4, 4]), [1, 2, 2]).shape
        [1, 2, 1, 2, 2]
    """
    channels_last = data_format == "NDHWC"
    size = _out_size(output_size, x, 3, channels_last)
    x = _to_channels_first(x, 3, channels_last)
    return _from_channels_first(apply(ADAPTIVE_AVG, (x,), {"output_size": size}), 3, channels_last)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max pooling to a fixed output size; the mask holds flat indices into H*W.

    Example:
        >>> import oar.nn.functional as F
        >>> out, mask = F.adaptive_max_pool2d(oar.to_tensor([[[[1.0, 4.0], [3.0, 2.0]]]]), 1, return_mask=True)
        >>> out.numpy().tolist(), mask.numpy().tolist()
        ([[[[4.0]]]], [[[[1]]]])
    """
    size = _out_size(output_size, x, 2, False)
    out, mask = apply(ADAPTIVE_MAX, (x,), {"output_size": size})
    return (out, mask) if return_mask else out


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Max pooling of ``[N, C, L]`` to `output_size` windows; the mask holds indices into L.

    Example:
        >>> import oar.nn.functional as F
        >>> out, mask = F.adaptive_max_pool1d(oar.to_tensor([[[1.0, 5.0, 2.0, 0.0]]]), 2, return_mask=True)
        >>> out.numpy().tolist(), mask.numpy().tolist()
        ([[[5.0, 2.0]]], [[[1, 2]]])
    """
    size = [1, int(_tuple(output_size, 1, "output_size")[0])]
    out, mask = apply(ADAPTIVE_MAX, (S.unsqueeze(x, 2),), {"output_size": size})
    out, mask = S.squeeze(out, 2), S.squeeze(mask, 2)
    return (out, mask) if return_mask else out


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_pool(onnx_type):
    def lower(ctx, op):
        a = op.attrs
        nd = len(a["ksize"])
        pads = onnx_spatial_pads(ctx, op, a["padding_algorithm"], a["paddings"], a["ksize"], a["strides"], [1] * nd)
        extra = {"count_include_pad": int(not a["exclusive"])} if "exclusive" in a else {}
        only_first_output(ctx, op)
        ctx.node(onnx_type, [first_input(ctx, op)], [ctx.out(op)], kernel_shape=list(a["ksize"]),
                 strides=list(a["strides"]), ceil_mode=int(bool(a["ceil_mode"])), **pads, **extra)
    return lower


def _onnx_adaptive(onnx_global, onnx_pool, kind):
    def lower(ctx, op):
        out_size = list(op.attrs["output_size"])
        shape, dt = ctx.in_meta(op, "x")
        spatial = shape[len(shape) - len(out_size):]
        x = first_input(ctx, op)
        only_first_output(ctx, op)
        if all(o == 1 for o in out_size) and len(out_size) == len(shape) - 2:
            ctx.node(onnx_global, [x], [ctx.out(op)])
        elif all(s > 0 and s % o == 0 for s, o in zip(spatial, out_size)) and len(out_size) == len(shape) - 2:
            k = [s // o for s, o in zip(spatial, out_size)]
            ctx.node(onnx_pool, [x], [ctx.out(op)], kernel_shape=k, strides=k)
        elif kind == "avg" and all(s > 0 for s in spatial) and len(out_size) <= 2:
            # the kernel's own formulation: one averaging matrix per pooled axis
            npdt = D.np_dtype(dt)
            onnx_separable(ctx, op, x, [P.adaptive_matrix(s, o, npdt) for s, o in zip(spatial, out_size)])
        else:
            raise ctx.block_op_error(op, f"adaptive pooling of spatial size {spatial} to {out_size} has no ONNX "
                                         "lowering (needs known sizes divisible by the output size)")
    return lower


def onnx_separable(ctx, op, x, mats):
    """Applies one (out, in) matrix to each of the last one or two axes of x, as the kernels do."""
    y = ctx.node("MatMul", [x, ctx.const(mats[-1].T.copy())])
    if len(mats) == 2:
        y = ctx.node("MatMul", [ctx.const(mats[0]), y])
    ctx.node("Identity", [y], [ctx.out(op)])


lowerings({"max_pool2d": _onnx_pool("MaxPool"), "avg_pool2d": _onnx_pool("AveragePool"),
           "adaptive_avg_pool": _onnx_adaptive("GlobalAveragePool", "AveragePool", "avg"),
           "adaptive_max_pool2d": _onnx_adaptive("GlobalMaxPool", "MaxPool", "max")})
