"""Deformable convolution v1/v2 (deform_conv2d), composed from oar ops: bilinear sampling at the offset kernel
positions is gathers and products, so gradients reach x, offset, mask, weight and bias with no rule of its own."""
from ...ops.creation import arange
from ...ops.indexing import take_along_axis
from ...ops.linalg import matmul
from ...ops.manipulation import reshape, unsqueeze
from ...ops.math import cast, clip, floor
from ...eager.tensor import to_tensor


def _pair(v):
    return [int(a) for a in v] if isinstance(v, (list, tuple)) else [int(v)] * 2


def _sample(x, py, px, inside, h, w):
    """Bilinear samples of x [N, dg, Cg, h*w] at float positions [N, dg, L] (zero outside the image):
    [N, dg, Cg, L]."""
    y0, x0 = floor(py), floor(px)
    ly, lx = py - y0, px - x0
    out = None
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            ok = inside & (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
            idx = cast(clip(yy, 0, h - 1) * w + clip(xx, 0, w - 1), "int64")
            wt = (ly if dy else 1 - ly) * (lx if dx else 1 - lx) * cast(ok, py.dtype)
            v = take_along_axis(x, unsqueeze(idx, 2), 3) * unsqueeze(wt, 2)
            out = v if out is None else out + v
    return out


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1,
                  mask=None, name=None):
    """Deformable 2-D convolution: kernel tap k of output pixel p reads `x` at ``p0 + p_k + offset`` by bilinear
    interpolation (and is scaled by `mask` when given: deformable convolution v2).

    Args:
        x: [N, C, H, W]; offset: [N, 2 * deformable_groups * kh * kw, Ho, Wo] as (dy, dx) pairs per tap;
        weight: [C_out, C / groups, kh, kw]; mask: [N, deformable_groups * kh * kw, Ho, Wo] or None.

    Example:
        >>> x, w = oar.ones([1, 2, 4, 4]), oar.ones([3, 2, 3, 3])
        >>> out = oar.vision.ops.deform_conv2d(x, oar.zeros([1, 18, 2, 2]), w)
        >>> out.shape, out[0, 0, 0, 0].item()
        ([1, 3, 2, 2], 18.0)
    """
    n, c, h, w = x.shape
    cout, cin_g, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    ho = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    dg, k = deformable_groups, kh * kw
    if c % dg or c % groups or cin_g * groups != c:
        raise ValueError(f"deform_conv2d: channels {c} do not fit groups={groups}, deformable_groups={dg} and "
                         f"weight shape {weight.shape}")
    if offset.shape[1] != 2 * dg * k or offset.shape[2:] != [ho, wo]:
        raise ValueError(f"deform_conv2d: offset must be [N, {2 * dg * k}, {ho}, {wo}], got {offset.shape}")
    off = reshape(offset, [n, dg, k, 2, ho, wo])
    ki = to_tensor([[(i * dh - ph) for i in range(kh) for _ in range(kw)]], dtype=x.dtype)
    kj = to_tensor([[(j * dw - pw) for _ in range(kh) for j in range(kw)]], dtype=x.dtype)
    base_y = reshape(ki, [1, 1, k, 1, 1]) + reshape(arange(ho, dtype=x.dtype) * sh, [1, 1, 1, ho, 1])
    base_x = reshape(kj, [1, 1, k, 1, 1]) + reshape(arange(wo, dtype=x.dtype) * sw, [1, 1, 1, 1, wo])
    py = reshape(base_y + off[:, :, :, 0], [n, dg, k * ho * wo])
    px = reshape(base_x + off[:, :, :, 1], [n, dg, k * ho * wo])
    inside = (py > -1) & (py < h) & (px > -1) & (px < w)
    cols = _sample(reshape(x, [n, dg, c // dg, h * w]), py, px, inside, h, w)  # [n, dg, c/dg, k*ho*wo]
    cols = reshape(cols, [n, dg, c // dg, k, ho * wo])
    if mask is not None:
        cols = cols * reshape(mask, [n, dg, 1, k, ho * wo])
    cols = reshape(cols, [n, groups, cin_g * k, ho * wo])
    wg = reshape(weight, [1, groups, cout // groups, cin_g * k])
    out = reshape(matmul(wg, cols), [n, cout, ho, wo])
    return out if bias is None else out + reshape(bias, [1, cout, 1, 1])


def static_deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
                         deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None, name=None):
    """Paddle's static ``deform_conv2d`` (`oar.static.nn.deform_conv2d`): a deformable convolution with fresh
    parameters ``deformable_conv_N.w_0`` ``[num_filters, C / groups, kh, kw]`` and ``.b_0``; `mask` None gives
    deformable convolution v1, a mask v2. `im2col_step` only batches Paddle's GPU kernel; the result is the same.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('dc_x', [1, 2, 4, 4])
        ...     off = oar.static.data('dc_off', [1, 18, 4, 4])
        ...     y = oar.static.nn.deform_conv2d(x, off, None, num_filters=3, filter_size=3, padding=1)
        >>> oar.disable_static()
        >>> y.shape, [p.shape for p in main.all_parameters()]
        ([1, 3, 4, 4], [[3, 2, 3, 3], [3]])
    """
    from ...nn.initializer import create_parameter
    from ...nn.layer.layers import unique_name
    if not isinstance(im2col_step, int) or im2col_step < 1:
        raise ValueError(f"deform_conv2d: im2col_step must be a positive int, got {im2col_step!r}")
    k = [filter_size] * 2 if isinstance(filter_size, int) else list(filter_size)
    c = x.shape[1]
    if c < 0 or c % groups:
        raise ValueError(f"deform_conv2d: input channels {c} must be known and divisible by groups={groups}")
    scope = unique_name(name or "deformable_conv")
    w = create_parameter([num_filters, c // groups] + k, x.dtype.name, name=f"{scope}.w_0", attr=weight_attr)
    b = None if bias_attr is False else create_parameter([num_filters], x.dtype.name, name=f"{scope}.b_0",
                                                         attr=bias_attr, is_bias=True)
    return deform_conv2d(x, offset, w, b, stride, padding, dilation, deformable_groups, groups, mask)
