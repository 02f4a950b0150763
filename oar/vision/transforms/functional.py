"""Functional image transforms. NumPy images are HWC (or HW); oar Tensors are CHW (Paddle's conventions)."""
import numpy as np

from ...kernels import image
from ...eager.tensor import Tensor


def _hw_axes(img):
    """(array, (h axis, w axis), kind): kind is True for a Tensor, "pil" for a PIL image, False for an array."""
    if isinstance(img, Tensor):
        return img._data, (img._data.ndim - 2, img._data.ndim - 1), True
    if type(img).__module__.startswith("PIL."):
        return np.asarray(img), (0, 1), "pil"
    a = np.asarray(img)
    if a.ndim not in (2, 3):
        raise ValueError(f"expected an HW or HWC image, got an array of shape {list(a.shape)}")
    return a, (0, 1), False


def _back(a, kind):
    if kind == "pil":   # PIL in, PIL out (Paddle's rule)
        from PIL import Image
        return Image.fromarray(image.contiguous(a))
    return Tensor(a) if kind is True else a


def to_tensor(pic, data_format="CHW"):
    """HWC/HW image -> float32 Tensor (CHW by default); uint8 values are scaled to [0, 1].

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.to_tensor(np.zeros((28, 28, 1), np.uint8)).shape
        [1, 28, 28]
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    if isinstance(pic, Tensor):
        return pic
    return Tensor(image.to_float(np.asarray(pic), data_format == "CHW"))


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel, with Paddle's shape rule: `mean`/`std` become ``[C, 1, 1]`` (CHW) or
    ``[1, 1, C]`` (HWC), so an HW grayscale image comes back with a channel axis.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.normalize(np.zeros((28, 28), np.uint8), [127.5], [127.5]).shape
        (1, 28, 28)
    """
    is_t = isinstance(img, Tensor)
    a = img._data if is_t else np.asarray(img, dtype=np.float32)
    return _back(image.normalize(a, mean, std, data_format == "CHW", to_rgb), is_t)


def _out_size(h, w, size):
    if isinstance(size, int):
        if h <= w:
            return size, int(size * w / h)
        return int(size * h / w), size
    if len(size) != 2:
        raise ValueError(f"resize: size must be an int or (h, w), got {size!r}")
    return int(size[0]), int(size[1])


def resize(img, size, interpolation="bilinear"):
    """Resizes to `size` ((h, w), or an int for the shorter side keeping the aspect ratio).

    `interpolation` is 'bilinear' (half-pixel centres, as OpenCV) or 'nearest'.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.resize(np.zeros((8, 12, 3), np.uint8), 4).shape
        (4, 6, 3)
    """
    a, (ha, wa), is_t = _hw_axes(img)
    h, w = a.shape[ha], a.shape[wa]
    oh, ow = _out_size(h, w, size)
    if (oh, ow) == (h, w):
        return img
    return _back(image.resize(a, ha, wa, oh, ow, interpolation), is_t)


def crop(img, top, left, height, width):
    """The `height` x `width` window whose top-left pixel is (`top`, `left`).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.crop(np.arange(16).reshape(4, 4), 1, 2, 2, 2).tolist()
        [[6, 7], [10, 11]]
    """
    a, (ha, wa), is_t = _hw_axes(img)
    idx = [slice(None)] * a.ndim
    idx[ha], idx[wa] = slice(top, top + height), slice(left, left + width)
    return _back(a[tuple(idx)], is_t)


def center_crop(img, output_size):
    """The central `output_size` window ((h, w), or an int for a square).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.center_crop(np.arange(16).reshape(4, 4), 2).tolist()
        [[5, 6], [9, 10]]
    """
    a, (ha, wa), _ = _hw_axes(img)
    th, tw = (output_size, output_size) if isinstance(output_size, int) else output_size
    h, w = a.shape[ha], a.shape[wa]
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads the spatial dims; `padding` is an int, (left/right, top/bottom) or (left, top, right, bottom).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.pad(np.ones((1, 1), np.uint8), (1, 0)).tolist()
        [[0, 1, 0]]
    """
    a, (ha, wa), is_t = _hw_axes(img)
    if isinstance(padding, int):
        left = top = right = bottom = padding
    elif len(padding) == 2:
        left, top = padding
        right, bottom = padding
    else:
        left, top, right, bottom = padding
    widths = [(0, 0)] * a.ndim
    widths[ha], widths[wa] = (top, bottom), (left, right)
    if padding_mode == "constant":
        return _back(image.pad(a, widths, "constant", fill), is_t)
    mode = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}.get(padding_mode)
    if mode is None:
        raise ValueError(f"pad: padding_mode must be constant/edge/reflect/symmetric, got {padding_mode!r}")
    return _back(image.pad(a, widths, mode, fill), is_t)


def hflip(img):
    """Flips left-right.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.hflip(np.array([[1, 2]])).tolist()
        [[2, 1]]
    """
    a, (_, wa), is_t = _hw_axes(img)
    return _back(image.flip(a, wa), is_t)


def vflip(img):
    """Flips upside-down.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.vflip(np.array([[1], [2]])).tolist()
        [[2], [1]]
    """
    a, (ha, _), is_t = _hw_axes(img)
    return _back(image.flip(a, ha), is_t)


# the warping and colour functions live beside this file; Paddle exposes them all from `functional`
from .geometric import affine, rotate, perspective, erase  # noqa: E402,F401
from .color import (adjust_brightness, adjust_contrast, adjust_saturation, adjust_hue,  # noqa: E402,F401
                    to_grayscale)


def _is_pil_image(img):
    """Whether `img` is a PIL image (Paddle's helper, which custom transforms call)."""
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def _is_numpy_image(img):
    """Whether `img` is an HW or HWC NumPy array (Paddle's helper)."""
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img):
    """Whether `img` is an oar Tensor (Paddle's helper)."""
    return isinstance(img, Tensor)
