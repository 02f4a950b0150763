"""Max unpooling (the inverse of max pooling with its mask) for 1-D, 2-D and 3-D inputs, and adaptive 3-D max
pooling; both compose other ops (gradients follow). Paddle lists them in `paddle.nn.functional.pooling`."""
import math

from ...ops import creation as C
from ...ops import indexing as I
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from ...ops import search


def _tuple(v, nd, what):
    v = [int(v)] * nd if isinstance(v, int) else [int(a) for a in v]
    if len(v) != nd:
        raise ValueError(f"max_unpool{nd}d: {what} must be an int or {nd} ints, got {v}")
    return v


def _max_unpool(x, indices, kernel_size, stride, padding, output_size, nd, data_format):
    channels_first = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    if data_format != channels_first:
        raise ValueError(f"max_unpool{nd}d: data_format must be {channels_first!r}, got {data_format!r}")
    if x.ndim != nd + 2 or list(indices.shape) != list(x.shape):
        raise ValueError(f"max_unpool{nd}d: x must be {nd + 2}-D and indices of its shape, got {x.shape} and "
                         f"{indices.shape}")
    k = _tuple(kernel_size, nd, "kernel_size")
    s = _tuple(stride if stride is not None else kernel_size, nd, "stride")
    p = _tuple(padding, nd, "padding")
    if output_size is None:
        out = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(nd)]
    else:
        out = [int(v) for v in output_size][-nd:]
    n, c = x.shape[:2]
    flat_in = S.reshape(x, [n, c, -1])
    idx = S.reshape(M.cast(indices, "int64"), [n, c, -1])
    size = math.prod(out)
    if idx.shape[2] and (int(R.max(idx)) >= size or int(R.min(idx)) < 0):
        raise ValueError(f"max_unpool{nd}d: an index is outside the output of spatial size {out}")
    res = I.put_along_axis(C.zeros([n, c, size], dtype=x.dtype), idx, flat_in, axis=2)
    return S.reshape(res, [n, c] + out)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
    """Places each value of `x` [N, C, L] at its index (from `max_pool1d(..., return_mask=True)`) in a zero tensor
    of length ``(L - 1) * stride - 2 * padding + kernel_size`` (or `output_size`).

    Example:
        >>> import oar.nn.functional as F
        >>> out, idx = F.max_pool1d(oar.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2, return_mask=True)
        >>> F.max_unpool1d(out, idx, 2).numpy().tolist()
        [[[0.0, 3.0, 2.0, 0.0]]]
    """
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 1, data_format)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
    """`max_unpool1d` for [N, C, H, W]; indices are flat over the output's H * W.

    Example:
        >>> import oar.nn.functional as F
        >>> out, idx = F.max_pool2d(oar.to_tensor([[[[1.0, 2.0], [4.0, 3.0]]]]), 2, return_mask=True)
        >>> F.max_unpool2d(out, idx, 2).numpy().tolist()
        [[[[0.0, 0.0], [4.0, 0.0]]]]
    """
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 2, data_format)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
    """`max_unpool1d` for [N, C, D, H, W]; indices are flat over the output's D * H * W.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> out, idx = F.max_pool3d(x, 2, return_mask=True)
        >>> F.max_unpool3d(out, idx, 2).numpy().reshape(-1).tolist()
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 3, data_format)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Max pooling of [N, C, D, H, W] to a fixed output size (bins ``[floor(i*D/d), ceil((i+1)*D/d))``); the mask
    holds flat indices into D * H * W.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> out, mask = F.adaptive_max_pool3d(x, 1, return_mask=True)
        >>> out.numpy().reshape(-1).tolist(), mask.numpy().reshape(-1).tolist()
        ([7.0], [7])
    """
    if x.ndim != 5:
        raise ValueError(f"adaptive_max_pool3d: x must be 5-D [N, C, D, H, W], got {x.shape}")
    n, c, d, h, w = x.shape
    size = [output_size] * 3 if isinstance(output_size, int) else list(output_size)
    size = [dim if o is None else int(o) for o, dim in zip(size, (d, h, w))]

    def bins(n_in, n_out):
        return [(i * n_in // n_out, -(-(i + 1) * n_in // n_out)) for i in range(n_out)]
    outs, masks = [], []
    for d0, d1 in bins(d, size[0]):
        for h0, h1 in bins(h, size[1]):
            for w0, w1 in bins(w, size[2]):
                region = S.reshape(x[:, :, d0:d1, h0:h1, w0:w1], [n, c, -1])
                outs.append(R.max(region, axis=2))
                if return_mask:
                    local = search.argmax(region, axis=2)
                    rh, rw = h1 - h0, w1 - w0
                    ld, lh, lw = local // (rh * rw), (local // rw) % rh, local % rw
                    masks.append((ld + d0) * (h * w) + (lh + h0) * w + (lw + w0))
    out = S.reshape(S.stack(outs, axis=2), [n, c] + size)
    if not return_mask:
        return out
    return out, M.cast(S.reshape(S.stack(masks, axis=2), [n, c] + size), "int32")
