"""`unfold` (im2col: sliding blocks of an image as columns) and `fold` (col2im: columns summed back into an image),
Paddle's `F.unfold` / `F.fold`. The two ops are linear and each other's adjoint, so each is the other's gradient
and every order of gradient closes over the pair. Kernels: `oar.kernels.conv.unfold` / `fold`."""
from ...kernels import conv as K
from ...ops.registry import apply, defop


def _pairs(v, what):
    """Paddle's int / [a, b] forms as two ints."""
    v = [int(a) for a in v] if isinstance(v, (list, tuple)) else [int(v)] * 2
    if len(v) != 2:
        raise ValueError(f"{what} must be an int or 2 ints, got {v}")
    return v


def _paddings(p):
    """Paddle's unfold paddings (an int, ``[h, w]`` or ``[top, left, bottom, right]``) as ``[(top, bottom),
    (left, right)]``."""
    p = [int(a) for a in p] if isinstance(p, (list, tuple)) else [int(p)] * 2
    if len(p) == 2:
        return [[p[0], p[0]], [p[1], p[1]]]
    if len(p) == 4:
        return [[p[0], p[2]], [p[1], p[3]]]
    raise ValueError(f"paddings must be an int, 2 ints or 4 ints [top, left, bottom, right], got {p}")


def _unfold_infer(m, kernel_sizes, strides, paddings, dilations):
    (xs, dt), = m
    osz = K.out_sizes([max(s, 1) for s in xs[2:]], kernel_sizes, strides, paddings, dilations)
    length = osz[0] * osz[1] if all(s >= 0 for s in xs[2:]) else -1
    kk = kernel_sizes[0] * kernel_sizes[1]
    return [([xs[0], xs[1] * kk if xs[1] >= 0 else -1, length], dt)]


def _fold_infer(m, output_sizes, kernel_sizes, strides, paddings, dilations):
    (xs, dt), = m
    kk = kernel_sizes[0] * kernel_sizes[1]
    return [([xs[0], xs[1] // kk if xs[1] >= 0 else -1] + list(output_sizes), dt)]


def _onnx_unfold(ctx, op):
    """One strided Slice of the padded input per kernel offset, stacked: exact (no multiplication by a one-hot
    filter, which would turn an inf into NaNs around it) and valid for unknown spatial sizes."""
    a = op.attrs
    (kh, kw), (sh, sw), (dh, dw) = a["kernel_sizes"], a["strides"], a["dilations"]
    (pt, pb), (pl, pr) = a["paddings"]
    channels = ctx.in_meta(op, "x")[0][1]
    if channels < 0:
        raise ctx.block_op_error(op, "unfold needs a known channel count to export")
    x = ctx.inp(op, "x")
    if pt or pb or pl or pr:
        x = ctx.node("Pad", [x, ctx.ints([0, 0, pt, pl, 0, 0, pb, pr])])
    big = 2 ** 62
    pieces = []
    for i in range(kh):
        for j in range(kw):
            ends = [-(dh * (kh - 1 - i)) or big, -(dw * (kw - 1 - j)) or big]
            piece = ctx.node("Slice", [x, ctx.ints([i * dh, j * dw]), ctx.ints(ends), ctx.ints([2, 3]),
                                       ctx.ints([sh, sw])])
            pieces.append(ctx.node("Unsqueeze", [piece, ctx.ints([2])]))
    stacked = ctx.node("Concat", pieces, axis=2) if len(pieces) > 1 else pieces[0]
    ctx.node("Reshape", [stacked, ctx.ints([0, channels * kh * kw, -1])], [ctx.out(op)])


UNFOLD = defop("unfold", K.unfold, infer=_unfold_infer, onnx=_onnx_unfold,
               grad=lambda g, out, x, **a: apply(FOLD, (g,), dict(a, output_sizes=list(x.shape[2:]))))
FOLD = defop("fold", K.fold, infer=_fold_infer, onnx_reason="not lowered yet (col2im: ONNX Col2Im needs opset 18)",
             grad=lambda g, out, x, output_sizes, **a: apply(UNFOLD, (g,), a))


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Sliding ``kh x kw`` blocks of ``x`` ``[N, C, H, W]`` as columns ``[N, C*kh*kw, L]`` (L output positions;
    row ``c*kh*kw + i*kw + j`` is kernel offset (i, j) of channel c). `paddings` is an int, ``[h, w]`` or
    ``[top, left, bottom, right]``.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> y = F.unfold(x, 2, strides=2)
        >>> y.shape, y.numpy()[0, :, 0].tolist()
        ([1, 4, 4], [0.0, 1.0, 4.0, 5.0])
    """
    if len(x.shape) != 4:
        raise ValueError(f"unfold: x must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    return apply(UNFOLD, (x,), {"kernel_sizes": _pairs(kernel_sizes, "kernel_sizes"),
                                "strides": _pairs(strides, "strides"), "paddings": _paddings(paddings),
                                "dilations": _pairs(dilations, "dilations")})


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Columns ``[N, C*kh*kw, L]`` summed back into an image ``[N, C, H, W]`` (`output_sizes` = [H, W]); where
    blocks overlap their values add up. The adjoint of `unfold`.

    Example:
        >>> import oar.nn.functional as F
        >>> F.fold(oar.ones([1, 4, 4]), [3, 3], 2).numpy()[0, 0].tolist()
        [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    if len(x.shape) != 3:
        raise ValueError(f"fold: x must be 3-D [N, C*kh*kw, L], got shape {list(x.shape)}")
    return apply(FOLD, (x,), {"output_sizes": _pairs(output_sizes, "output_sizes"),
                              "kernel_sizes": _pairs(kernel_sizes, "kernel_sizes"),
                              "strides": _pairs(strides, "strides"), "paddings": _paddings(paddings),
                              "dilations": _pairs(dilations, "dilations")})
