"""Common functional layers: linear, bilinear, dropout, embedding, one_hot, pad, interpolate, pixel_shuffle."""

from ...core import dtype as D
from ...core.state import mode, rng
from ...ops import indexing as _indexing
from ...ops import manipulation as S
from ...ops import math as M
from ...ops.common import operand, to_int_list
from ...ops.registry import apply, defop
from ...kernels import nn as nn_kernels
from ...kernels.nn import (embedding as _embedding, embedding_grad as _embedding_grad_impl, interp as _interp,
                           interp_dynamic as _interp_dynamic, interp_dynamic_grad as _interp_dynamic_grad_impl,
                           interp_grad as _interp_grad_impl)
from ...ops.onnx_rules import first_input, only_first_output, scalar
from ...ops.registry import lowerings


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with weight of shape ``[in_features, out_features]`` (Paddle's layout).

    Example:
        >>> import oar.nn.functional as F
        >>> y = F.linear(oar.ones([2, 3]), oar.ones([3, 4]))   # shape [2, 4]
    """
    out = M.matmul(x, weight)
    return out if bias is None else M.add(out, amp_bias(out, bias))


def amp_bias(out, bias):
    """A layer's bias in the dtype of the layer's white-list product under `auto_cast` (float16 there), so
    `Linear` and `Conv2D` stay in float16 as one white-list op each, as Paddle's fused ``linear`` does and its
    AMP documentation shows for convolutions (an add of two unrelated float16 and float32 tensors promotes to
    float32 instead)."""
    if mode().amp is not None and out.dtype in (D.float16, D.bfloat16) and bias.dtype is not out.dtype:
        return M.cast(bias, out.dtype)
    return bias


def bilinear(x1, x2, weight, bias=None, name=None):
    """``out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]`` with weight ``[out, in1, in2]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.bilinear(oar.ones([2, 3]), oar.ones([2, 4]), oar.ones([5, 3, 4])).numpy()[0].tolist()
        [12.0, 12.0, 12.0, 12.0, 12.0]
    """
    out = M.einsum("ni,oij,nj->no", x1, weight, x2)
    return out if bias is None else M.add(out, bias)


# ---- dropout ------------------------------------------------------------------------------------------------

def _dropout(x, p, training, mode, axis):
    return nn_kernels.dropout(rng(), x, p, training, mode, axis)


DROPOUT = defop("dropout", _dropout, outputs=("out", "mask"), nondiff_out=(1,), random=True,
                infer=lambda m, **a: [m[0], m[0]],
                grad=lambda g, out, x, p, training, mode, axis: M.multiply(g[0], out[1]))


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zeroes elements with probability `p` while training.

    ``mode='upscale_in_train'`` scales kept values by 1/(1-p) in training and passes through at inference;
    ``'downscale_in_infer'`` keeps values in training and multiplies by (1-p) at inference. `axis` drops
    whole slices (the mask is shared along the other axes).

    Example:
        >>> import oar.nn.functional as F
        >>> y = F.dropout(oar.ones([4, 4]), p=0.5, training=True)
    """
    if not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"dropout probability p must be in [0, 1], got {p}")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"dropout mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    if float(p) == 0.0 and (training or mode == "upscale_in_train"):
        return x
    if axis is not None:
        axis = [axis] if isinstance(axis, int) else list(axis)
        axis = [a % x.ndim for a in axis]
    return apply(DROPOUT, (x,), {"p": float(p), "training": bool(training), "mode": mode, "axis": axis})[0]


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Drops whole channels of an NCHW/NHWC tensor.

    Example:
        >>> import oar.nn.functional as F
        >>> _ = oar.seed(0)
        >>> y = F.dropout2d(oar.ones([1, 6, 2, 2]), p=0.5)
        >>> [sorted(set(c.ravel().tolist())) in ([0.0], [2.0]) for c in y.numpy()[0]]
        [True, True, True, True, True, True]
    """
    axis = [0, 1] if data_format == "NCHW" else [0, 3]
    return dropout(x, p, axis=axis, training=training)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Drops whole channels of an NCDHW tensor (scaling the kept ones by ``1 / (1 - p)``).

    Example:
        >>> import oar.nn.functional as F
        >>> F.dropout3d(oar.ones([1, 2, 2, 2, 2]), p=0.5, training=False).shape
        [1, 2, 2, 2, 2]
    """
    axis = [0, 1] if data_format == "NCDHW" else [0, 4]
    return dropout(x, p, axis=axis, training=training)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout for SELU networks that keeps mean and variance.

    Example:
        >>> import oar.nn.functional as F
        >>> F.alpha_dropout(oar.ones([2, 2]), p=0.5, training=False).numpy().tolist()
        [[1.0, 1.0], [1.0, 1.0]]
        >>> F.alpha_dropout(oar.ones([2, 2]), p=0.5).shape
        [2, 2]
    """
    if not training or p == 0:
        return x
    alpha = -1.7580993408473766
    a = ((1 - p) * (1 + p * alpha ** 2)) ** -0.5
    b = -a * alpha * p
    keep = dropout(M.ones_like(x), p, training=True, mode="downscale_in_infer")
    return (x * keep + alpha * (1 - keep)) * a + b


# ---- embedding (one_hot and pad are the core ops, re-exported) --------------------------------------------------

# linear in out_grad (weight gives only the shape): its gradient is the lookup again
EMBEDDING_GRAD = defop("embedding_grad", _embedding_grad_impl, inputs=("ids", "out_grad", "weight"), nondiff=(0, 2),
                       infer=lambda m, padding_idx: [(m[2][0], m[1][1])],
                       grad=lambda gg, dw, ids, g, w, padding_idx: (
                           None, apply(EMBEDDING, (ids, gg), {"padding_idx": padding_idx}), None))


EMBEDDING = defop("embedding", _embedding, inputs=("ids", "weight"), nondiff=(0,),
                  infer=lambda m, padding_idx: [(list(m[0][0]) + [m[1][0][-1]], m[1][1])],
                  grad=lambda g, out, ids, w, padding_idx: (None, apply(EMBEDDING_GRAD, (ids, g, w),
                                                                        {"padding_idx": padding_idx})),
                  grad_reads=("ids", "weight.shape"))


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """Looks up rows of `weight` ``[num_embeddings, dim]`` for integer ids `x`; rows at `padding_idx` are zero
    and get no gradient.

    Example:
        >>> import oar.nn.functional as F
        >>> F.embedding(oar.to_tensor([[0, 2]]), oar.ones([3, 4])).shape
        [1, 2, 4]
    """
    if x.dtype.kind not in "iu":
        raise TypeError(f"embedding ids must be integers, got {x.dtype.name}")
    if padding_idx is not None:
        padding_idx = int(padding_idx)
        if padding_idx < 0:
            padding_idx += weight.shape[0]
    return apply(EMBEDDING, (x, weight), {"padding_idx": padding_idx})


one_hot = _indexing.one_hot
pad = S.pad


# ---- interpolation --------------------------------------------------------------------------------------------

def _interp_infer(m, out_size, **a):
    shape = list(m[0][0])
    shape[len(shape) - len(out_size):] = out_size
    return [(shape, m[0][1])]


# linear in out_grad (x gives only the shape): its gradient is the resampling again
INTERP_GRAD = defop("interp_grad", _interp_grad_impl, inputs=("x", "out_grad"), nondiff=(0,),
                    infer=lambda m, **a: [(m[0][0], m[1][1])],
                    grad=lambda gg, dx, x, g, **a: (None, apply(INTERP, (gg,), a)))
INTERP = defop("interp", _interp, infer=_interp_infer, grad=lambda g, out, x, **a: apply(INTERP_GRAD, (x, g), a))


def _interp_dynamic_infer(m, **a):
    n = m[1][0][0] if m[1][0] and m[1][0][0] >= 0 else len(m[0][0]) - 2
    return [(list(m[0][0][:len(m[0][0]) - n]) + [-1] * n, m[0][1])]


def _interp_dynamic_grad_grad(gg, dx, x, g, **a):
    return None, apply(INTERP_DYNAMIC, (gg, S.shape(g)[2:]), a)


# the output size held by a tensor (PaddleSeg's ``F.interpolate(y, paddle.shape(x)[2:])`` in a program); the
# gradient takes the size from out_grad's shape
INTERP_DYNAMIC_GRAD = defop("interp_dynamic_grad", _interp_dynamic_grad_impl, inputs=("x", "out_grad"), nondiff=(0,),
                            infer=lambda m, **a: [(m[0][0], m[1][1])], grad=_interp_dynamic_grad_grad)
INTERP_DYNAMIC = defop("interp_dynamic", _interp_dynamic, inputs=("x", "size"), nondiff=(1,),
                       infer=_interp_dynamic_infer,
                       grad=lambda g, out, x, size, **a: (apply(INTERP_DYNAMIC_GRAD, (x, g), a), None))


def _is_run_time(v):
    """A graph value (not an eager tensor, whose value is known now)."""
    return hasattr(v, "dtype") and not hasattr(v, "_data")

_MODES = {"nearest": "nearest", "bilinear": "linear", "linear": "linear", "trilinear": "linear", "bicubic": "cubic"}
_RANKS = {"linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,), "nearest": (4, 5), "area": (3, 4, 5)}


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                data_format=None, name=None):
    """Resizes the spatial dims by `size` or `scale_factor`: 'nearest', 'linear' (3-D input), 'bilinear' and
    'bicubic' (4-D), 'trilinear' (5-D), or 'area' (adaptive average pooling). Arguments are checked as Paddle
    checks them; the sampling positions are Paddle's (see `kernels.nn.interp_matrix`).

    Example:
        >>> import oar.nn.functional as F
        >>> F.interpolate(oar.ones([1, 1, 2, 2]), scale_factor=2).shape
        [1, 1, 4, 4]
        >>> F.interpolate(oar.to_tensor([[[0.0, 1.0, 2.0, 3.0]]]), size=[2], mode="linear").numpy().tolist()
        [[[0.5, 2.5]]]
    """
    mode = str(mode).lower()
    if mode not in _RANKS:
        raise ValueError(f"interpolate: mode must be one of {sorted(_RANKS)}, got {mode!r}")
    if x.ndim not in _RANKS[mode]:
        raise ValueError(f"interpolate: mode {mode!r} takes a {' or '.join(map(str, _RANKS[mode]))}-D input, got "
                         f"{x.ndim}-D")
    if size is None and scale_factor is None:
        raise ValueError("interpolate needs `size` or `scale_factor`")
    if size is not None and scale_factor is not None:
        raise ValueError("interpolate: give only one of `size` and `scale_factor`")
    if not isinstance(align_corners, bool):
        raise TypeError(f"interpolate: align_corners must be a bool, got {type(align_corners).__name__}")
    if align_mode not in (0, 1):
        raise ValueError(f"interpolate: align_mode must be 0 or 1, got {align_mode!r}")
    if align_corners and mode == "nearest":
        raise ValueError("interpolate: align_corners=True needs an interpolating mode (linear, bilinear, bicubic, "
                         "trilinear), not 'nearest'")
    if isinstance(size, (list, tuple)) and len(size) != x.ndim - 2:
        raise ValueError(f"interpolate: size has {len(size)} values for a {x.ndim}-D input (needs {x.ndim - 2})")
    if data_format is None:
        data_format = {3: "NCW", 4: "NCHW", 5: "NCDHW"}[x.ndim]
    if mode == "area":
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
        if size is None:
            raise ValueError("interpolate: mode 'area' needs `size`")
        if x.ndim == 3:
            return adaptive_avg_pool1d(x, size)
        pool = adaptive_avg_pool2d if x.ndim == 4 else adaptive_avg_pool3d
        return pool(x, size, data_format=data_format)
    return resize(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def resize(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0, data_format="NCHW"):
    """`interpolate` without its argument checks: the resize ops of Paddle's model files, which also take what the
    public API refuses (legacy `nearest_interp` with aligned corners, rounding half up)."""
    if mode not in _MODES:
        raise ValueError(f"interpolate mode {mode!r} is not supported; use one of {sorted(_MODES)}")
    channels_last = data_format in ("NHWC", "NLC", "NWC", "NDHWC")
    if channels_last:
        perm = [0, x.ndim - 1] + list(range(1, x.ndim - 1))
        x = S.transpose(x, perm)
    nd = x.ndim - 2
    spatial = x.shape[2:]
    attrs = {"mode": _MODES[mode], "align_corners": bool(align_corners), "align_mode": int(align_mode)}
    if size is not None and (_is_run_time(size) or isinstance(size, (list, tuple)) and any(map(_is_run_time, size))):
        from ...ops.dynamic_shape import shape_tensor
        out = apply(INTERP_DYNAMIC, (x, size if _is_run_time(size) else shape_tensor(size)), attrs)
        return S.transpose(out, [0] + list(range(2, out.ndim)) + [1]) if channels_last else out
    if size is not None:
        size = to_int_list(size, "size") if not isinstance(size, int) else [size] * nd
        scales = [None] * nd
        out_size = size
    else:
        sf = [float(scale_factor)] * nd if isinstance(scale_factor, (int, float)) else [float(s) for s in scale_factor]
        if len(sf) != nd:
            raise ValueError(f"interpolate: scale_factor has {len(sf)} values for {nd} spatial dims")
        if any(s <= 0 for s in sf):
            raise ValueError(f"interpolate: scale_factor must be > 0, got {scale_factor}")
        if any(s < 0 for s in spatial):
            raise ValueError("interpolate with scale_factor needs known spatial sizes")
        out_size = [int(s * f) for s, f in zip(spatial, sf)]
        scales = sf
    if any(int(s) <= 0 for s in out_size):
        raise ValueError(f"interpolate: the output size {list(out_size)} of input spatial size {list(spatial)} must "
                         "be > 0 in every dim")
    out = apply(INTERP, (x,), dict(attrs, out_size=[int(s) for s in out_size], scales=scales))
    if channels_last:
        out = S.transpose(out, [0] + list(range(2, out.ndim)) + [1])
    return out


upsample = interpolate


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearranges ``[N, C*r*r, H, W]`` into ``[N, C, H*r, W*r]``.

    Example:
        >>> import oar.nn.functional as F
        >>> F.pixel_shuffle(oar.arange(4, dtype='float32').reshape([1, 4, 1, 1]), 2).numpy().tolist()
        [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    r = int(upscale_factor)
    if data_format == "NCHW":
        n, c, h, w = x.shape
        y = S.reshape(x, [n, c // (r * r), r, r, h, w])
        y = S.transpose(y, [0, 1, 4, 2, 5, 3])
        return S.reshape(y, [n, c // (r * r), h * r, w * r])
    n, h, w, c = x.shape
    y = S.reshape(x, [n, h, w, c // (r * r), r, r])
    y = S.transpose(y, [0, 1, 4, 2, 5, 3])
    return S.reshape(y, [n, h * r, w * r, c // (r * r)])


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """Rearranges ``[N, C, H*r, W*r]`` into ``[N, C*r*r, H, W]`` (the inverse of `pixel_shuffle`).

    Example:
        >>> import oar.nn.functional as F
        >>> F.pixel_unshuffle(oar.to_tensor([[[[0.0, 1.0], [2.0, 3.0]]]]), 2).numpy().ravel().tolist()
        [0.0, 1.0, 2.0, 3.0]
    """
    r = int(downscale_factor)
    if data_format == "NCHW":
        n, c, h, w = x.shape
        y = S.reshape(x, [n, c, h // r, r, w // r, r])
        y = S.transpose(y, [0, 1, 3, 5, 2, 4])
        return S.reshape(y, [n, c * r * r, h // r, w // r])
    n, h, w, c = x.shape
    y = S.reshape(x, [n, h // r, r, w // r, r, c])
    y = S.transpose(y, [0, 1, 3, 5, 2, 4])
    return S.reshape(y, [n, h // r, w // r, c * r * r])


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """Cosine of the angle between `x1` and `x2` along `axis`.

    Example:
        >>> import oar.nn.functional as F
        >>> x1, x2 = oar.to_tensor([[1.0, 0.0], [1.0, 1.0]]), oar.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> [round(v, 4) for v in F.cosine_similarity(x1, x2, axis=1).numpy().tolist()]
        [1.0, 0.7071]
    """
    dot = M.sum(x1 * x2, axis=axis)
    n1 = M.sqrt(M.sum(x1 * x1, axis=axis))
    n2 = M.sqrt(M.sum(x2 * x2, axis=axis))
    return dot / M.maximum(n1 * n2, operand(eps, dot))


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_interp(ctx, op):
    from .pooling import onnx_separable
    a = op.attrs
    shape, dt = ctx.in_meta(op, "x")
    nd = len(a["out_size"])
    spatial = shape[len(shape) - nd:]
    if nd > 2 or any(s < 0 for s in spatial):
        raise ctx.block_op_error(op, f"interpolate over {nd} dims of spatial size {spatial} has no ONNX lowering "
                                     "(needs 1 or 2 dims of known size)")
    mats = [nn_kernels.interp_matrix(s, o, a["mode"], a["align_corners"], a["align_mode"], sc, D.np_dtype(dt),
                                     nd > 1) for s, o, sc in zip(spatial, a["out_size"], a["scales"])]
    onnx_separable(ctx, op, ctx.inp(op, "x"), mats)


def _onnx_interp_dynamic(ctx, op):
    """ONNX Resize to ``shape(x)[:2] + size``: its coordinate modes are Paddle's (half_pixel is align_mode 0, with
    source coordinates clamped at 0 as Paddle's; asymmetric is align_mode 1 and nearest without corners)."""
    a = op.attrs
    size, (_, size_dt) = ctx.inp(op, "size"), ctx.in_meta(op, "size")
    if size_dt.name != "int64":
        size = ctx.cast(size, "int64")
    lead = ctx.node("Slice", [ctx.node("Shape", [ctx.inp(op, "x")]), ctx.ints([0]), ctx.ints([2])])  # N, C
    sizes = ctx.node("Concat", [lead, ctx.node("Reshape", [size, ctx.ints([-1])])], axis=0)
    if a["align_corners"]:
        coords = "align_corners"
    elif a["mode"] == "cubic":  # Paddle's bicubic has half-pixel centres whatever align_mode says
        coords = "half_pixel"
    else:
        coords = "half_pixel" if a["mode"] == "linear" and a["align_mode"] == 0 else "asymmetric"
    nearest = {"nearest_mode": "round_prefer_ceil" if a["align_corners"] else "floor"} if a["mode"] == "nearest" \
        else {}
    ctx.node("Resize", [ctx.inp(op, "x"), "", "", sizes], [ctx.out(op)], mode=a["mode"],
             coordinate_transformation_mode=coords, **nearest)


def _onnx_dropout(ctx, op):
    a = op.attrs
    if a["training"]:
        raise ctx.block_op_error(op, "dropout in training mode is random; call layer.eval() before exporting")
    only_first_output(ctx, op)
    if a["mode"] == "upscale_in_train" or a["p"] == 0.0:
        ctx.node("Identity", [first_input(ctx, op)], [ctx.out(op)])
    else:
        ctx.node("Mul", [first_input(ctx, op), scalar(ctx, op, 1.0 - a["p"])], [ctx.out(op)])


def _onnx_embedding(ctx, op):
    ids, w = ctx.inp(op, "ids"), ctx.inp(op, "weight")
    pidx = op.attrs.get("padding_idx")
    if pidx is None or pidx < 0:
        ctx.node("Gather", [w, ids], [ctx.out(op)], axis=0)
        return
    out = ctx.node("Gather", [w, ids], axis=0)
    pad = ctx.node("Equal", [ids, ctx.const(pidx, ctx.in_meta(op, "ids")[1])])
    pad = ctx.node("Unsqueeze", [pad, ctx.ints([-1])])
    ctx.node("Where", [pad, ctx.const(0, ctx.in_meta(op, "weight")[1]), out], [ctx.out(op)])


lowerings({"interp": _onnx_interp, "interp_dynamic": _onnx_interp_dynamic, "dropout": _onnx_dropout,
           "embedding": _onnx_embedding})


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """ShuffleNet's channel shuffle: the channels seen as ``[groups, C / groups]``, transposed.

    Example:
        >>> x = oar.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> oar.nn.functional.channel_shuffle(x, 2).flatten().numpy().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"channel_shuffle: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if len(x.shape) != 4:
        raise ValueError(f"channel_shuffle: x must be 4-D, got shape {list(x.shape)}")
    n, c, h, w = x.shape if data_format == "NCHW" else [x.shape[0], x.shape[3], x.shape[1], x.shape[2]]
    if c % groups:
        raise ValueError(f"channel_shuffle: the channel count {c} is not divisible by groups={groups}")
    if data_format == "NCHW":
        y = S.transpose(S.reshape(x, [n, groups, c // groups, h, w]), [0, 2, 1, 3, 4])
    else:
        y = S.transpose(S.reshape(x, [n, h, w, groups, c // groups]), [0, 1, 2, 4, 3])
    return S.reshape(y, x.shape)


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of the two spatial dims: `padding` an int or ``[left, right, top, bottom]``.

    Example:
        >>> oar.nn.functional.zeropad2d(oar.ones([1, 1, 2, 2]), [1, 0, 0, 2]).shape
        [1, 1, 4, 3]
    """
    padding = [int(padding)] * 4 if isinstance(padding, int) else to_int_list(padding, "padding")
    if len(padding) != 4:
        raise ValueError(f"zeropad2d: padding must be an int or 4 ints, got {padding}")
    return S.pad(x, padding, mode="constant", value=0.0, data_format=data_format)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The p-norm of ``x - y + epsilon`` over the last dim (rows of two batches).

    Example:
        >>> d = oar.nn.functional.pairwise_distance(oar.to_tensor([[1.0, 2.0]]), oar.to_tensor([[0.0, 1.0]]), p=1,
        ...                                         epsilon=0)
        >>> d.numpy().tolist()
        [2.0]
    """
    from ...ops.linalg_norm import vector_norm
    return vector_norm(x - y + epsilon, p=p, axis=-1, keepdim=keepdim)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """``mask[..., j] = j < x[...]`` for sequence lengths `x`, over ``maxlen`` positions (default: the longest).

    Example:
        >>> oar.nn.functional.sequence_mask(oar.to_tensor([1, 3]), maxlen=4).numpy().tolist()
        [[1, 0, 0, 0], [1, 1, 1, 0]]
    """
    from ...ops.creation import arange
    from ...ops.reduction import max as _max
    if maxlen is None:
        maxlen = _max(x)
    positions = arange(0, maxlen, 1, dtype=x.dtype)
    return M.cast(S.unsqueeze(x, -1) > positions, D.convert_dtype(dtype))
