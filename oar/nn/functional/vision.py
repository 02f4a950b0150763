"""`paddle.nn.functional.vision`: pixel (un)shuffle (ops in `oar/ops/nn/common.py`); affine grids, grid sampling
and the temporal shift of TSM video models, composed here from other ops (their gradients follow)."""
from ...ops import creation as C
from ...ops import indexing as I
from ...ops import linalg as LA
from ...ops import manipulation as S
from ...ops import math as M
from ...ops.nn.common import pixel_shuffle, pixel_unshuffle, channel_shuffle  # noqa: F401


def _base_coords(size, align_corners, dtype):
    """Normalised pixel-centre coordinates in [-1, 1] of one spatial axis."""
    lin = C.linspace(-1.0, 1.0, size, dtype=dtype)
    return lin if align_corners or size == 1 else lin * ((size - 1) / size)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of affine maps `theta` ([N, 2, 3] for 2-D, [N, 3, 4] for 3-D): for every output pixel,
    ``theta @ (x, y[, z], 1)`` in normalised [-1, 1] coordinates; [N, H, W, 2] (or [N, D, H, W, 3]).

    Example:
        >>> import oar.nn.functional as F
        >>> g = F.affine_grid(oar.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), [1, 1, 2, 2])
        >>> g.numpy().reshape(-1).tolist()
        [-1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
    """
    out_shape = [int(s) for s in (out_shape.numpy().tolist() if hasattr(out_shape, "numpy") else out_shape)]
    nd = len(out_shape) - 2
    if nd not in (2, 3) or list(theta.shape[1:]) != [nd, nd + 1]:
        raise ValueError(f"affine_grid: theta must be [N, 2, 3] with a 4-D out_shape or [N, 3, 4] with a 5-D one, "
                         f"got theta {theta.shape} and out_shape {out_shape}")
    spatial = out_shape[2:][::-1]  # W, H[, D]: x varies along the last axis
    axes = [_base_coords(s, align_corners, theta.dtype) for s in spatial]
    full = list(reversed(spatial))
    coords = []
    for k, a in enumerate(axes):  # broadcast each axis's coordinates to the full spatial grid
        shape = [1] * nd
        shape[nd - 1 - k] = spatial[k]
        coords.append(S.broadcast_to(S.reshape(a, shape), full))
    coords.append(M.ones_like(coords[0]))
    base = S.reshape(S.stack(coords, axis=-1), [1, -1, nd + 1])  # [1, P, nd+1]
    grid = LA.matmul(base, theta, transpose_y=True)  # [N, P, nd]
    return S.reshape(grid, [out_shape[0]] + full + [nd])


def _unnormalise(coord, size, align_corners):
    if align_corners:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _reflect(coord, low2, high2):
    """Reflects coordinates into [low2 / 2, high2 / 2] (bounds given doubled, as they may be half-integers)."""
    if low2 == high2:
        return M.zeros_like(coord)
    lo, span = low2 / 2.0, (high2 - low2) / 2.0
    c = M.abs(coord - lo)
    flips = M.floor(c / span)
    extra = c - flips * span
    even = M.remainder(flips, C.full_like(flips, 2.0)) == 0
    return M.where(even, extra + lo, span - extra + lo)


def _source_coord(coord, size, padding_mode, align_corners):
    c = _unnormalise(coord, size, align_corners)
    if padding_mode == "border":
        c = M.clip(c, 0.0, size - 1.0)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = M.clip(c, 0.0, size - 1.0)
    return c


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Samples `x` [N, C, H, W] at the normalised (x, y) locations of `grid` [N, Ho, Wo, 2]: bilinear or nearest,
    outside the image zeros, the border value or the reflection. 5-D (volumetric) inputs are not supported.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.to_tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
        >>> F.grid_sample(x, oar.to_tensor([[[[0.0, 0.0], [1.0, -1.0]]]])).numpy().tolist()
        [[[[1.5, 1.0]]]]
    """
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}")
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != x.shape[0]:
        raise ValueError(f"grid_sample: oar samples 4-D inputs [N, C, H, W] with grids [N, Ho, Wo, 2]; got x "
                         f"{x.shape} and grid {grid.shape}")
    n, c, h, w = x.shape
    ho, wo = grid.shape[1], grid.shape[2]
    gx = _source_coord(grid[..., 0], w, padding_mode, align_corners)
    gy = _source_coord(grid[..., 1], h, padding_mode, align_corners)
    flat = S.reshape(x, [n, c, h * w])

    def tap(ix, iy):
        """x at integer locations (float tensors [N, Ho, Wo]), zero outside the image: [N, C, Ho, Wo]."""
        inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
        idx = M.cast(M.clip(iy, 0, h - 1) * w + M.clip(ix, 0, w - 1), "int64")
        idx = S.broadcast_to(S.reshape(idx, [n, 1, ho * wo]), [n, c, ho * wo])
        vals = S.reshape(I.take_along_axis(flat, idx, axis=2), [n, c, ho, wo])
        return vals * S.unsqueeze(M.cast(inside, x.dtype), 1)

    if mode == "nearest":
        return tap(M.round(gx.detach()), M.round(gy.detach()))
    x0, y0 = M.floor(gx.detach()), M.floor(gy.detach())
    wx, wy = S.unsqueeze(gx - x0, 1), S.unsqueeze(gy - y0, 1)
    return (tap(x0, y0) * (1 - wx) * (1 - wy) + tap(x0 + 1, y0) * wx * (1 - wy) +
            tap(x0, y0 + 1) * (1 - wx) * wy + tap(x0 + 1, y0 + 1) * wx * wy)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """TSM's temporal shift: `x` holds ``N * seg_num`` frames; the first ``C * shift_ratio`` channels of each frame
    come from the previous frame, the next as many from the following one (zeros at the ends), the rest stay.

    Example:
        >>> import oar.nn.functional as F
        >>> x = oar.arange(8, dtype='float32').reshape([2, 4, 1, 1])
        >>> F.temporal_shift(x, seg_num=2, shift_ratio=0.25).reshape([2, 4]).numpy().tolist()
        [[0.0, 5.0, 2.0, 3.0], [0.0, 0.0, 6.0, 7.0]]
    """
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"temporal_shift: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if x.ndim != 4 or x.shape[0] % seg_num:
        raise ValueError(f"temporal_shift: x must be 4-D with a batch divisible by seg_num={seg_num}, got {x.shape}")
    if data_format == "NHWC":
        x = S.transpose(x, [0, 3, 1, 2])
    nt, c, h, w = x.shape
    v = S.reshape(x, [nt // seg_num, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    zero = M.zeros_like(v[:, :1])
    from_prev = S.concat([zero[:, :, :c1], v[:, :-1, :c1]], axis=1)
    from_next = S.concat([v[:, 1:, c1:c2], zero[:, :, c1:c2]], axis=1)
    out = S.reshape(S.concat([from_prev, from_next, v[:, :, c2:]], axis=2), [nt, c, h, w])
    return S.transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out
