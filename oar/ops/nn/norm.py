"""Normalisation: the `batch_norm` op (running statistics, a `training` attr that
``Program.clone(for_test=True)`` flips), and layer/group/instance norm composed from other ops."""
from ...core.state import STATE
from ...kernels.norm import (batch_norm as _bn_impl, batch_norm_axes as _bn_axes, batch_norm_grad as _bn_grad_impl,
                             broadcast_shape as _bshape)
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from ...ops import registry
from ...ops.onnx_rules import only_first_output, scalar
from ...ops.registry import apply, defop
from .common import pad
from .conv import _from_channels_first, _to_channels_first
from .pooling import avg_pool2d


def _bn_grad_grad(gouts, outs, x, scale, saved_mean, saved_inv, g, epsilon, training, data_format,
                  use_global_stats, momentum):
    """Gradients of <A, dx> + <B, dscale> + <C, dbias> for x, scale and g, written with ops (second order).

    With batch statistics, dx = scale * inv * P(g), P(v) = v - <v> - xhat <v xhat> (<.>: the mean over the
    reduced axes); the statistics are recomputed from x here so that x's every path is differentiated.
    """
    ga, gb, gc = gouts
    axes, ch = _bn_axes(len(x.shape), data_format)
    axes = list(axes)
    bs = _bshape(len(x.shape), ch, scale.shape[0])
    s, gb, gc = S.reshape(scale, bs), S.reshape(gb, bs), S.reshape(gc, bs)

    def mean(t):
        return R.mean(t, axis=axes, keepdim=True)
    if not training or use_global_stats:  # dx = g * scale * inv with constant statistics: bilinear
        inv = S.reshape(saved_inv, bs)
        xhat = (x - S.reshape(saved_mean, bs)) * inv
        return gb * g * inv, R.sum(ga * g * inv, axis=axes), None, None, ga * s * inv + gb * xhat + gc
    xc = x - mean(x)
    inv = M.rsqrt(mean(xc * xc) + epsilon)
    xhat = xc * inv

    def proj(v):
        return v - mean(v) - xhat * mean(v * xhat)
    pg, pa = proj(g), proj(ga)
    dx = gb * inv * pg - s * inv * inv * (xhat * mean(ga * pg) + mean(g * xhat) * pa + mean(ga * xhat) * pg)
    return dx, R.sum(ga * inv * pg, axis=axes), None, None, s * inv * pa + gb * xhat + gc


BATCH_NORM_GRAD = defop("batch_norm_grad", _bn_grad_impl,
                        inputs=("x", "scale", "saved_mean", "saved_inv_std", "out_grad"),
                        outputs=("x_grad", "scale_grad", "bias_grad"),
                        infer=lambda m, **a: [(m[0][0], m[4][1]), m[1], m[1]], grad=_bn_grad_grad)


def _bn_infer(m, **a):
    x, mean, var = m[0], m[1], m[2]
    return [x, mean, var, mean, var]


def _bn_grad(g, out, x, mean, var, scale, bias, momentum, epsilon, training, data_format, use_global_stats):
    dx, dscale, dbias = apply(BATCH_NORM_GRAD, (x, scale, out[3], out[4], g[0]),
                              {"epsilon": epsilon, "training": training, "data_format": data_format,
                               "use_global_stats": use_global_stats, "momentum": momentum})
    return dx, None, None, dscale, dbias


BATCH_NORM = defop("batch_norm", _bn_impl, inputs=("x", "mean", "variance", "scale", "bias"),
                   outputs=("out", "mean_out", "variance_out", "saved_mean", "saved_inv_std"),
                   nondiff=(1, 2), nondiff_out=(1, 2, 3, 4), infer=_bn_infer, grad=_bn_grad, amp="black",
                   grad_reads=("x", "scale", "out[3]", "out[4]"))


def _write_back(src, dst):
    """Stores an updated running statistic: in place eagerly, by an assign op in static mode."""
    if STATE.static:
        registry.STATIC.assign_into(src, dst)
    elif isinstance(dst, registry.Tensor):
        dst._data = src._data  # no version bump: the statistics are not differentiated


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9, epsilon=1e-05,
               data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation over all dims but the channel one.

    In training (and unless `use_global_stats`) it normalises with the batch statistics and updates the
    running ones as ``running = momentum * running + (1 - momentum) * batch`` (Paddle's convention, biased
    variance); otherwise it uses the running statistics.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.randn([4, 3, 2, 2])
        >>> y = F.batch_norm(x, oar.zeros([3]), oar.ones([3]), oar.ones([3]), oar.zeros([3]), training=True)
    """
    if weight is None:
        weight = M.ones_like(running_mean)
    if bias is None:
        bias = M.zeros_like(running_mean)
    ugs = bool(use_global_stats)
    out, mean_out, var_out, _, _ = apply(BATCH_NORM, (x, running_mean, running_var, weight, bias), {
        "momentum": float(momentum), "epsilon": float(epsilon), "training": bool(training),
        "data_format": data_format, "use_global_stats": ugs})
    if training and not ugs and (STATE.static or isinstance(running_mean, registry.Tensor)):
        _write_back(mean_out, running_mean)
        _write_back(var_out, running_var)
    return out


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalises over the trailing `normalized_shape` dims, then scales by `weight` and shifts by `bias`.

    Example:
        >>> import oar.nn.functional as F
        >>> F.layer_norm(oar.ones([2, 3]), 3).shape
        [2, 3]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    tail = list(x.shape[x.ndim - len(normalized_shape):]) if len(normalized_shape) <= x.ndim else None
    if tail is None or any(t not in (-1, n) for t, n in zip(tail, normalized_shape)):
        raise ValueError(f"layer_norm: normalized_shape {list(normalized_shape)} does not match the trailing dims "
                         f"of the input shape {x.shape}")
    axes = list(range(x.ndim - len(normalized_shape), x.ndim))
    mean = M.mean(x, axis=axes, keepdim=True)
    d = x - mean
    var = M.mean(d * d, axis=axes, keepdim=True)
    out = d * M.rsqrt(var + epsilon)
    if weight is not None:
        out = out * S.reshape(weight, list(normalized_shape))
    if bias is not None:
        out = out + S.reshape(bias, list(normalized_shape))
    return out


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW", name=None):
    """Normalises each group of channels of each sample.

    Example:
        >>> import oar.nn.functional as F
        >>> y = F.group_norm(oar.to_tensor([[[1.0], [3.0], [5.0], [5.0]]]), num_groups=2)
        >>> [round(v, 3) for v in y.numpy().ravel().tolist()]
        [-1.0, 1.0, 0.0, 0.0]
    """
    channels_last = data_format[-1] == "C"
    if channels_last:
        x = S.transpose(x, [0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    n, c = x.shape[:2]
    if c % num_groups:
        raise ValueError(f"group_norm: {c} channels cannot be split into {num_groups} groups")
    xr = S.reshape(x, [n if n >= 0 else 0, num_groups, -1])  # 0: the batch dim as it comes (static, unknown)
    mean = M.mean(xr, axis=2, keepdim=True)
    d = xr - mean
    var = M.mean(d * d, axis=2, keepdim=True)
    out = S.reshape(d * M.rsqrt(var + epsilon), [n if n >= 0 else 0] + list(x.shape[1:]))
    return _channel_affine(out, weight, bias, channels_last)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Normalises each channel of each sample over its spatial dims.

    Example:
        >>> import oar.nn.functional as F
        >>> y = F.instance_norm(oar.to_tensor([[[[1.0, 3.0]], [[2.0, 2.0]]]]))
        >>> [round(v, 3) for v in y.numpy().ravel().tolist()]
        [-1.0, 1.0, 0.0, 0.0]

    Paddle documents `running_mean`, `running_var` and `use_input_stats` as obsolete and its kernel never reads
    them nor `momentum`: each sample is always normalised by its own statistics. oar raises for any of them set
    to something that would need running statistics, rather than ignore it.
    """
    refuse_running_stats("instance_norm", running_mean, running_var, use_input_stats, momentum)
    channels_last = data_format[-1] == "C"
    if channels_last:
        x = S.transpose(x, [0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    axes = list(range(2, x.ndim))
    mean = M.mean(x, axis=axes, keepdim=True)
    d = x - mean
    var = M.mean(d * d, axis=axes, keepdim=True)
    return _channel_affine(d * M.rsqrt(var + eps), weight, bias, channels_last)


def refuse_running_stats(what, running_mean=None, running_var=None, use_input_stats=True, momentum=0.9):
    """Instance norm keeps no running statistics (nor does Paddle's): arguments asking for them raise."""
    asked = [n for n, v in (("running_mean", running_mean), ("running_var", running_var)) if v is not None]
    if not use_input_stats:
        asked.append("use_input_stats=False")
    if momentum != 0.9:
        asked.append(f"momentum={momentum!r}")
    if asked:
        raise ValueError(f"{what}: {', '.join(asked)} not supported: instance norm always normalises each sample by "
                         "its own statistics and keeps no running ones (Paddle documents these arguments as "
                         "obsolete and ignores them); use BatchNorm for running statistics")


def _channel_affine(out, weight, bias, channels_last):
    """Per-channel scale and shift of a channels-first `out`, then back to channels-last if the input was."""
    bs = [1, out.shape[1]] + [1] * (out.ndim - 2)
    if weight is not None:
        out = out * S.reshape(weight, bs)
    if bias is not None:
        out = out + S.reshape(bias, bs)
    if channels_last:
        out = S.transpose(out, [0] + list(range(2, out.ndim)) + [1])
    return out


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p along axis, epsilon).

    Example:
        >>> import oar.nn.functional as F
        >>> [round(v, 4) for v in F.normalize(oar.to_tensor([[3.0, 4.0]]), axis=1)[0].numpy().tolist()]
        [0.6, 0.8]
        >>> [round(v, 4) for v in F.normalize(oar.to_tensor([[3.0, 4.0]]), p=1, axis=1)[0].numpy().tolist()]
        [0.4286, 0.5714]
    """
    from ...ops.creation import full_like
    if p == 2:
        n = M.sqrt(M.sum(x * x, axis=axis, keepdim=True))
    else:
        n = M.pow(M.sum(M.pow(M.abs(x), float(p)), axis=axis, keepdim=True), 1.0 / p)
    return x / M.maximum(n, full_like(n, epsilon))


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """Normalises each value by the sum of squares of its `size` neighbouring channels (channels first, or
    last for the 'N...C' data formats).

    Example:
        >>> import oar.nn.functional as F
        >>> F.local_response_norm(oar.ones([1, 3, 2, 2]), size=3).shape
        [1, 3, 2, 2]
    """
    channels_last = data_format[-1] == "C"
    x = _to_channels_first(x, x.ndim - 2, channels_last)
    sq = S.unsqueeze(x * x, 1)  # [N, 1, C, H, W] -> pool over C via 2-D pooling of [N, 1, C, H*W]
    n, c = x.shape[:2]
    sq = S.reshape(sq, [n, 1, c, -1])
    sq = pad(sq, [0, 0, size // 2, (size - 1) // 2])
    div = avg_pool2d(sq, [size, 1], stride=1, exclusive=False)
    div = S.reshape(div, x.shape)
    return _from_channels_first(x / M.pow(div * alpha + k, beta), x.ndim - 2, channels_last)


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_batch_norm(ctx, op):
    a = op.attrs
    if a["training"] and not a["use_global_stats"]:
        raise ctx.block_op_error(op, "batch_norm in training mode (batch statistics) cannot be exported; call "
                                     "layer.eval() first")
    only_first_output(ctx, op)
    x = ctx.inp(op, "x")
    shape = ctx.in_meta(op, "x")[0]
    names = [ctx.inp(op, s) for s in ("scale", "bias", "mean", "variance")]
    if a["data_format"][-1] != "C" or len(shape) == 2:
        ctx.node("BatchNormalization", [x] + names, [ctx.out(op)], epsilon=float(a["epsilon"]))
        return
    scale, bias, mean, var = names  # channels last: y = (x - mean) * scale / sqrt(var + eps) + bias
    inv = ctx.node("Div", [scale, ctx.node("Sqrt", [ctx.node("Add", [var, scalar(ctx, op, a["epsilon"])])])])
    ctx.node("Add", [ctx.node("Mul", [ctx.node("Sub", [x, mean]), inv]), bias], [ctx.out(op)])


BATCH_NORM.set(onnx=_onnx_batch_norm)
