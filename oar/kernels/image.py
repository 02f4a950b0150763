"""Image kernels of `oar.vision.transforms`: HWC (or, where an axis pair is given, any-layout) NumPy arrays in and
out. Warps by inverse mapping (each output pixel centre mapped back into the input and sampled, nearest or
bilinear, with `fill` outside), resizing, padding, flips, normalization and the colour adjustments on RGB.
uint8 images stay uint8 (rounded and clipped); float images are clipped to [0, 1] only when they were in it."""
import math

import numpy as np

contiguous = np.ascontiguousarray


def cast_like(out, dtype):
    """`out` in `dtype`: rounded and clipped to the integer range for integer dtypes."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype, copy=False)


# ---- geometry ------------------------------------------------------------------------------------------------------

def warp(a, inverse, out_hw, interpolation, fill):
    """Samples the HWC array `a` at ``inverse @ (x, y, 1)`` for every output pixel (x, y) (a 3x3 projective map)."""
    h, w, c = a.shape
    oh, ow = out_hw or (h, w)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float64)
    pts = np.stack([xs.ravel(), ys.ravel(), np.ones(oh * ow)])
    src = inverse @ pts
    sx, sy = src[0] / src[2], src[1] / src[2]
    fill = np.broadcast_to(np.asarray(fill, dtype=np.float64).reshape(-1), (c,))
    if interpolation == "nearest":
        ix, iy = np.floor(sx + 0.5).astype(np.int64), np.floor(sy + 0.5).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        out = np.empty((oh * ow, c), np.float64)
        out[:] = fill
        out[inside] = a[iy[inside], ix[inside]]
    elif interpolation == "bilinear":
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = (sx - x0)[:, None], (sy - y0)[:, None]
        out = np.zeros((oh * ow, c), np.float64)
        for dy, dx, wgt in ((0, 0, (1 - fx) * (1 - fy)), (0, 1, fx * (1 - fy)), (1, 0, (1 - fx) * fy),
                            (1, 1, fx * fy)):
            xx, yy = x0 + dx, y0 + dy
            ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
            vals = np.empty((oh * ow, c), np.float64)
            vals[:] = fill
            vals[ok] = a[yy[ok], xx[ok]]
            out += wgt * vals
    else:
        raise ValueError(f"interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
    return cast_like(out.reshape(oh, ow, c), a.dtype)


def affine_matrix(center, angle, translate, scale, shear):
    """The forward 3x3 map (input -> output): about `center`, rotate `angle` degrees counter-clockwise, shear
    (degrees, x then y), scale, then translate by `translate` pixels."""
    cx, cy = center
    a = math.radians(angle)
    shx, shy = (shear, 0.0) if np.isscalar(shear) else (list(shear) + [0.0])[:2]
    rot = np.array([[math.cos(a), math.sin(a), 0], [-math.sin(a), math.cos(a), 0], [0, 0, 1]])
    sh = np.array([[1, math.tan(math.radians(shx)), 0], [math.tan(math.radians(shy)), 1, 0], [0, 0, 1]])
    sc = np.diag([scale, scale, 1.0])
    to0 = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    back = np.array([[1, 0, cx + translate[0]], [0, 1, cy + translate[1]], [0, 0, 1]])
    return back @ rot @ sh @ sc @ to0


inverse = np.linalg.inv


def expanded(m, h, w):
    """(`m` shifted so the whole mapped `h` x `w` image lands at the origin, the (oh, ow) that holds it)."""
    corners = m @ np.array([[0, w - 1, 0, w - 1], [0, 0, h - 1, h - 1], [1, 1, 1, 1]], float)
    ow = int(math.ceil(np.ptp(corners[0]) - 1e-6)) + 1
    oh = int(math.ceil(np.ptp(corners[1]) - 1e-6)) + 1
    shift = np.array([[1, 0, -corners[0].min()], [0, 1, -corners[1].min()], [0, 0, 1]])
    return shift @ m, (oh, ow)


def perspective_matrix(startpoints, endpoints):
    """The 3x3 homography taking each of the four `endpoints` to its `startpoints` (what sampling needs)."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(endpoints, startpoints):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    coef = np.linalg.solve(np.array(rows, float), np.array(rhs, float))
    return np.append(coef, 1.0).reshape(3, 3)


def erase(a, i, j, h, w, v, chw):
    """Sets the ``h x w`` box at row `i`, column `j` of `a` (CHW when `chw`, else HWC/HW) to `v`, in place."""
    if chw:
        a[..., i:i + h, j:j + w] = np.asarray(v, a.dtype).reshape(-1, 1, 1) if np.ndim(v) == 1 else v
    else:
        a[i:i + h, j:j + w, ...] = v
    return a


def resize(a, ha, wa, oh, ow, interpolation):
    """`a` resized along its axes `ha`, `wa` to (oh, ow): 'nearest', or 'bilinear' with half-pixel centres."""
    h, w = a.shape[ha], a.shape[wa]
    if interpolation == "nearest":
        ys = np.minimum((np.arange(oh) * h / oh).astype(np.int64), h - 1)
        xs = np.minimum((np.arange(ow) * w / ow).astype(np.int64), w - 1)
        return np.take(np.take(a, ys, axis=ha), xs, axis=wa)
    if interpolation != "bilinear":
        raise ValueError(f"resize: interpolation must be 'bilinear' or 'nearest', got {interpolation!r}")
    f = a.astype(np.float32)

    def coords(n_out, n_in):
        c = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
        lo = np.floor(c).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, (c - lo).astype(np.float32)

    y0, y1, wy = coords(oh, h)
    x0, x1, wx = coords(ow, w)
    shp_y = [1] * a.ndim
    shp_y[ha] = -1
    shp_x = [1] * a.ndim
    shp_x[wa] = -1
    rows = np.take(f, y0, axis=ha) * (1 - wy.reshape(shp_y)) + np.take(f, y1, axis=ha) * wy.reshape(shp_y)
    out = np.take(rows, x0, axis=wa) * (1 - wx.reshape(shp_x)) + np.take(rows, x1, axis=wa) * wx.reshape(shp_x)
    if a.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(a.dtype, copy=False)


def pad(a, widths, mode, fill):
    if mode == "constant":
        return np.pad(a, widths, mode="constant", constant_values=fill)
    return np.pad(a, widths, mode=mode)


def flip(a, axis):
    return np.flip(a, axis=axis).copy()


def to_float(a, chw):
    """An HWC (or HW) image as float32 (uint8 scaled to [0, 1]), CHW when `chw`."""
    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3:
        raise ValueError(f"to_tensor: expected an HW or HWC image, got shape {list(a.shape)}")
    a = a.astype(np.float32) / 255.0 if a.dtype == np.uint8 else a.astype(np.float32)
    return np.ascontiguousarray(a.transpose(2, 0, 1) if chw else a)


def normalize(a, mean, std, chw, to_rgb):
    """``(a - mean) / std`` per channel (channels first when `chw`, last otherwise)."""
    if to_rgb:
        a = a[::-1] if chw else a[..., ::-1]
    shape = (-1, 1, 1) if chw else (1, 1, -1)
    mean = np.asarray(mean, dtype=a.dtype).reshape(shape)
    std = np.asarray(std, dtype=a.dtype).reshape(shape)
    return ((a - mean) / std).astype(a.dtype, copy=False)


# ---- colour (HWC, RGB first) ---------------------------------------------------------------------------------------

LUMA = np.array([0.299, 0.587, 0.114])


def gray(a):
    """ITU-R 601 luma of an HWC image (its one channel when it has fewer than 3), float64 HW."""
    return a[..., :3].astype(np.float64) @ LUMA if a.shape[-1] >= 3 else a[..., 0].astype(np.float64)


def _finish(out, a):
    top = 255.0 if a.dtype == np.uint8 else (1.0 if a.size and a.max() <= 1.0 else None)
    if top is not None:
        out = np.clip(out, 0.0, top)
    return cast_like(out, a.dtype)


def _blend(a, other, factor):
    if a.dtype == np.uint8:
        return _pil_blend(other, a, factor)
    return _finish(other * (1.0 - factor) + a.astype(np.float64) * factor, a)


def _pil_blend(degenerate, a, factor):
    """PIL's `Image.blend(degenerate, a, factor)` on uint8, bit for bit: float32 arithmetic, then truncation."""
    d = np.asarray(degenerate, np.float32)
    out = d + np.float32(factor) * (a.astype(np.float32) - d)
    return np.clip(np.trunc(out), 0, 255).astype(np.uint8)


def _pil_gray(a):
    """PIL's RGB -> L conversion (integer weights, rounded): uint8 HW."""
    if a.shape[-1] < 3:
        return a[..., 0].astype(np.int64)
    r, g, b = (a[..., i].astype(np.int64) for i in range(3))
    return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16


# uint8 images follow PIL's ImageEnhance exactly (Paddle's PIL backend); Paddle's cv2 backend for arrays pivots
# contrast on a fixed 74 and draws a random saturation factor, which oar does not copy (docs/numerics.md)
def brightness(a, factor):
    return _blend(a, np.zeros(a.shape), factor)


def contrast(a, factor):
    if a.dtype == np.uint8:
        return _blend(a, np.full(a.shape, int(_pil_gray(a).mean() + 0.5)), factor)
    return _blend(a, np.full(a.shape, gray(a).mean()), factor)


def saturation(a, factor):
    g = _pil_gray(a) if a.dtype == np.uint8 else gray(a)
    return _blend(a, np.repeat(g[..., None], a.shape[-1], -1), factor)


def rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx, mn = rgb.max(-1), rgb.min(-1)
    d = mx - mn
    safe = np.where(d == 0, 1.0, d)
    h = np.where(mx == r, (g - b) / safe % 6, np.where(mx == g, (b - r) / safe + 2, (r - g) / safe + 4)) / 6.0
    h = np.where(d == 0, 0.0, h)
    s = np.where(mx == 0, 0.0, d / np.where(mx == 0, 1.0, mx))
    return h, s, mx


def hsv_to_rgb(h, s, v):
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([i == k for k in range(6)], [c[ch] for c in choices]) for ch in range(3)]
    return np.stack(out, -1)


def hue(a, factor):
    """The hue of an RGB(A) image turned by `factor` of a full turn."""
    scale = 255.0 if a.dtype == np.uint8 else 1.0
    h, s, v = rgb_to_hsv(a[..., :3].astype(np.float64) / scale)
    rgb = hsv_to_rgb((h + factor) % 1.0, s, v) * scale
    return cast_like(np.concatenate([rgb, a[..., 3:].astype(np.float64)], -1), a.dtype)


def grayscale(a, channels):
    return cast_like(np.repeat(gray(a)[..., None], channels, -1), a.dtype)
