"""Colour transforms on RGB images (HWC arrays, PIL images, CHW Tensors): brightness, contrast, saturation, hue,
grayscale. uint8 images stay uint8 (clipped to [0, 255]); float images are clipped to [0, 1] only when they were
in [0, 1]."""
import numpy as np

from .geometric import as_hwc, _cast_like

_LUMA = np.array([0.299, 0.587, 0.114])


def _gray(a):
    return a[..., :3].astype(np.float64) @ _LUMA if a.shape[-1] >= 3 else a[..., 0].astype(np.float64)


def _finish(out, a, back):
    top = 255.0 if a.dtype == np.uint8 else (1.0 if a.size and a.max() <= 1.0 else None)
    if top is not None:
        out = np.clip(out, 0.0, top)
    return back(_cast_like(out, a.dtype))


def _blend(img, other, factor):
    a, back = as_hwc(img)
    f = a.astype(np.float64)
    return _finish(other(a, f) * (1.0 - factor) + f * factor, a, back)


def adjust_brightness(img, brightness_factor):
    """Multiplies intensities by `brightness_factor` (0 gives black, 1 the original).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_brightness(np.full((1, 1, 3), 100, np.uint8), 1.5).tolist()
        [[[150, 150, 150]]]
    """
    return _blend(img, lambda a, f: np.zeros_like(f), brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Blends with the mean gray level (0 gives a flat gray image, 1 the original).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_contrast(np.array([[[0, 0, 0]], [[200, 200, 200]]], np.uint8), 0.5).reshape(-1).tolist()
        [50, 50, 50, 150, 150, 150]
    """
    return _blend(img, lambda a, f: np.full_like(f, _gray(a).mean()), contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Blends with the grayscale image (0 gives gray, 1 the original, 2 doubles the saturation).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_saturation(np.array([[[200, 100, 0]]], np.uint8), 0.0).tolist()
        [[[118, 118, 118]]]
    """
    return _blend(img, lambda a, f: np.repeat(_gray(a)[..., None], f.shape[-1], -1), saturation_factor)


def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx, mn = rgb.max(-1), rgb.min(-1)
    d = mx - mn
    safe = np.where(d == 0, 1.0, d)
    h = np.where(mx == r, (g - b) / safe % 6, np.where(mx == g, (b - r) / safe + 2, (r - g) / safe + 4)) / 6.0
    h = np.where(d == 0, 0.0, h)
    s = np.where(mx == 0, 0.0, d / np.where(mx == 0, 1.0, mx))
    return h, s, mx


def _hsv_to_rgb(h, s, v):
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([i == k for k in range(6)], [c[ch] for c in choices]) for ch in range(3)]
    return np.stack(out, -1)


def adjust_hue(img, hue_factor):
    """Shifts the hue by `hue_factor` of a full turn (in [-0.5, 0.5]; 0 keeps the image).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_hue(np.array([[[255, 0, 0]]], np.uint8), 1 / 3).tolist()
        [[[0, 255, 0]]]
    """
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor must be in [-0.5, 0.5], got {hue_factor}")
    a, back = as_hwc(img)
    if a.shape[-1] < 3:
        return img   # hue is undefined for gray images
    scale = 255.0 if a.dtype == np.uint8 else 1.0
    h, s, v = _rgb_to_hsv(a[..., :3].astype(np.float64) / scale)
    rgb = _hsv_to_rgb((h + hue_factor) % 1.0, s, v) * scale
    out = np.concatenate([rgb, a[..., 3:].astype(np.float64)], -1)
    return back(_cast_like(out, a.dtype))


def to_grayscale(img, num_output_channels=1):
    """RGB -> gray (ITU-R 601 luma); the result has 1 or 3 (equal) channels.

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.to_grayscale(np.array([[[255, 0, 0]]], np.uint8)).shape
        (1, 1, 1)
    """
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels must be 1 or 3, got {num_output_channels}")
    a, back = as_hwc(img)
    g = _gray(a)[..., None]
    return back(_cast_like(np.repeat(g, num_output_channels, -1), a.dtype))
