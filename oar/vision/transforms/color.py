"""Colour transforms on RGB images (HWC arrays, PIL images, CHW Tensors): brightness, contrast, saturation, hue,
grayscale. uint8 images stay uint8 (clipped to [0, 255]); float images are clipped to [0, 1] only when they were
in [0, 1]."""
from ...kernels import image
from .geometric import as_hwc


def _adjust(img, kernel, factor):
    a, back = as_hwc(img)
    return back(kernel(a, factor))


def adjust_brightness(img, brightness_factor):
    """Multiplies intensities by `brightness_factor` (0 gives black, 1 the original).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_brightness(np.full((1, 1, 3), 100, np.uint8), 1.5).tolist()
        [[[150, 150, 150]]]
    """
    return _adjust(img, image.brightness, brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Blends with the mean gray level (0 gives a flat gray image, 1 the original).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_contrast(np.array([[[0, 0, 0]], [[200, 200, 200]]], np.uint8), 0.5).reshape(-1).tolist()
        [50, 50, 50, 150, 150, 150]
    """
    return _adjust(img, image.contrast, contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Blends with the grayscale image (0 gives gray, 1 the original, 2 doubles the saturation).

    Example:
        >>> import oar.vision.transforms.functional as F
        >>> F.adjust_saturation(np.array([[[200, 100, 0]]], np.uint8), 0.0).tolist()
        [[[118, 118, 118]]]
    """
    return _adjust(img, image.saturation, saturation_factor)


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
    return back(image.hue(a, hue_factor))


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
    return back(image.grayscale(a, num_output_channels))
