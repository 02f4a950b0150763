"""Warping transforms (rotate, affine, perspective) by inverse mapping: each output pixel centre is mapped back
into the input and sampled (nearest or bilinear), with `fill` outside. Also `erase` and `to_grayscale`-free
helpers shared by the classes. Images: HWC/HW NumPy arrays, PIL images, or CHW Tensors (Paddle's conventions)."""
import math

import numpy as np

from ...tensor.tensor import Tensor


def as_hwc(img):
    """(float-or-int HWC array, restore function) for an HW/HWC array, a PIL image or a CHW Tensor."""
    if isinstance(img, Tensor):
        a = img._data
        if a.ndim == 2:
            return a[:, :, None], lambda out: Tensor(np.ascontiguousarray(out[:, :, 0]))
        return a.transpose(1, 2, 0), lambda out: Tensor(np.ascontiguousarray(out.transpose(2, 0, 1)))
    if type(img).__module__.startswith("PIL."):
        from PIL import Image
        a = np.asarray(img)

        def to_pil(out):   # one channel comes back as an 'L' image (Paddle's Grayscale on PIL)
            out = np.ascontiguousarray(out)
            return Image.fromarray(out[:, :, 0] if out.shape[-1] == 1 else out)
        return (a[:, :, None] if a.ndim == 2 else a), to_pil
    a = np.asarray(img)
    if a.ndim == 2:
        return a[:, :, None], lambda out: out[:, :, 0]
    if a.ndim != 3:
        raise ValueError(f"expected an HW or HWC image (or a CHW Tensor), got shape {list(a.shape)}")
    return a, lambda out: out


def _cast_like(out, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype, copy=False)


def warp(img, inverse, out_hw=None, interpolation="nearest", fill=0):
    """Samples `img` at ``inverse @ (x, y, 1)`` for every output pixel (x, y); a 3x3 `inverse` may be projective.

    Example:
        >>> from oar.vision.transforms.geometric import warp
        >>> warp(np.arange(4.0).reshape(2, 2), np.eye(3)).tolist()
        [[0.0, 1.0], [2.0, 3.0]]
    """
    a, back = as_hwc(img)
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
    return back(_cast_like(out.reshape(oh, ow, c), a.dtype))


def _centre(h, w, center):
    return ((w - 1) * 0.5, (h - 1) * 0.5) if center is None else (float(center[0]), float(center[1]))


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


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Affine warp keeping the image size (see `affine_matrix`).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.affine(np.arange(9).reshape(3, 3), 0, (1, 0), 1.0, 0).tolist()
        [[0, 0, 1], [0, 3, 4], [0, 6, 7]]
    """
    a, _ = as_hwc(img)
    m = affine_matrix(_centre(a.shape[0], a.shape[1], center), angle, translate, scale, shear)
    return warp(img, np.linalg.inv(m), None, interpolation, fill)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotates counter-clockwise by `angle` degrees about `center` (default: the image centre); `expand` grows
    the output to hold the whole rotated image.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.rotate(np.array([[1, 2], [3, 4]]), 90).tolist()
        [[2, 4], [1, 3]]
    """
    a, _ = as_hwc(img)
    h, w = a.shape[:2]
    m = affine_matrix(_centre(h, w, center), angle, (0, 0), 1.0, 0)
    out_hw = None
    if expand:
        corners = m @ np.array([[0, w - 1, 0, w - 1], [0, 0, h - 1, h - 1], [1, 1, 1, 1]], float)
        ow = int(math.ceil(np.ptp(corners[0]) - 1e-6)) + 1
        oh = int(math.ceil(np.ptp(corners[1]) - 1e-6)) + 1
        shift = np.array([[1, 0, -corners[0].min()], [0, 1, -corners[1].min()], [0, 0, 1]])
        m, out_hw = shift @ m, (oh, ow)
    return warp(img, np.linalg.inv(m), out_hw, interpolation, fill)


def perspective_matrix(startpoints, endpoints):
    """The 3x3 homography taking each of the four `endpoints` to its `startpoints` (what sampling needs)."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(endpoints, startpoints):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    coef = np.linalg.solve(np.array(rows, float), np.array(rhs, float))
    return np.append(coef, 1.0).reshape(3, 3)


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warps so that the four `startpoints` (``[x, y]`` corners) land on `endpoints`.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> pts = [[0, 0], [2, 0], [2, 2], [0, 2]]
        >>> F.perspective(np.arange(9).reshape(3, 3), pts, pts).tolist()
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    """
    return warp(img, perspective_matrix(startpoints, endpoints), None, interpolation, fill)


def erase(img, i, j, h, w, v, inplace=False):
    """Sets the ``h x w`` box at row `i`, column `j` to `v` (a scalar or per-channel values).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.erase(np.ones((3, 3), "float32"), 1, 1, 2, 2, 0).tolist()
        [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    if isinstance(img, Tensor):
        a = img._data if inplace else img._data.copy()
        a[..., i:i + h, j:j + w] = np.asarray(v, a.dtype).reshape(-1, 1, 1) if np.ndim(v) == 1 else v
        return img if inplace else Tensor(a)
    a = np.asarray(img) if inplace else np.array(img)
    a[i:i + h, j:j + w, ...] = v
    return a
