"""Warping transforms (rotate, affine, perspective) by inverse mapping: each output pixel centre is mapped back
into the input and sampled (nearest or bilinear), with `fill` outside. Also `erase` and `to_grayscale`-free
helpers shared by the classes. Images: HWC/HW NumPy arrays, PIL images, or CHW Tensors (Paddle's conventions)."""
import numpy as np

from ...kernels import image
from ...eager.tensor import Tensor


def as_hwc(img):
    """(float-or-int HWC array, restore function) for an HW/HWC array, a PIL image or a CHW Tensor."""
    if isinstance(img, Tensor):
        a = img._data
        if a.ndim == 2:
            return a[:, :, None], lambda out: Tensor(image.contiguous(out[:, :, 0]))
        return a.transpose(1, 2, 0), lambda out: Tensor(image.contiguous(out.transpose(2, 0, 1)))
    if type(img).__module__.startswith("PIL."):
        from PIL import Image
        a = np.asarray(img)

        def to_pil(out):   # one channel comes back as an 'L' image (Paddle's Grayscale on PIL)
            out = image.contiguous(out)
            return Image.fromarray(out[:, :, 0] if out.shape[-1] == 1 else out)
        return (a[:, :, None] if a.ndim == 2 else a), to_pil
    a = np.asarray(img)
    if a.ndim == 2:
        return a[:, :, None], lambda out: out[:, :, 0]
    if a.ndim != 3:
        raise ValueError(f"expected an HW or HWC image (or a CHW Tensor), got shape {list(a.shape)}")
    return a, lambda out: out


def warp(img, inverse, out_hw=None, interpolation="nearest", fill=0):
    """Samples `img` at ``inverse @ (x, y, 1)`` for every output pixel (x, y); a 3x3 `inverse` may be projective.

    Example:
        >>> from oar.vision.transforms.geometric import warp
        >>> warp(np.arange(4.0).reshape(2, 2), np.eye(3)).tolist()
        [[0.0, 1.0], [2.0, 3.0]]
    """
    a, back = as_hwc(img)
    return back(image.warp(a, inverse, out_hw, interpolation, fill))


def _centre(h, w, center):
    return ((w - 1) * 0.5, (h - 1) * 0.5) if center is None else (float(center[0]), float(center[1]))


affine_matrix = image.affine_matrix
perspective_matrix = image.perspective_matrix


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Affine warp keeping the image size (see `affine_matrix`).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.affine(np.arange(9).reshape(3, 3), 0, (1, 0), 1.0, 0).tolist()
        [[0, 0, 1], [0, 3, 4], [0, 6, 7]]
    """
    a, _ = as_hwc(img)
    m = affine_matrix(_centre(a.shape[0], a.shape[1], center), angle, translate, scale, shear)
    return warp(img, image.inverse(m), None, interpolation, fill)


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
        m, out_hw = image.expanded(m, h, w)
    return warp(img, image.inverse(m), out_hw, interpolation, fill)


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
        a = image.erase(img._data if inplace else img._data.copy(), i, j, h, w, v, True)
        return img if inplace else Tensor(a)
    a = np.asarray(img)
    return image.erase(a if inplace else a.copy(), i, j, h, w, v, False)
