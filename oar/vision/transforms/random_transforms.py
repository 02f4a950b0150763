"""The rest of Paddle's `vision.transforms` classes: padding, resized crops, colour jitter, grayscale, rotation,
affine, perspective and erasing. Random draws use oar's seeded generator (`oar.seed`)."""
import math
import numbers


from ...core.state import rng
from ...eager.tensor import Tensor
from . import color, geometric
from . import functional as F
from .transforms import BaseTransform


def _uniform(lo, hi):
    return float(rng().uniform(lo, hi))


def _range(value, name, center=1.0, bound=(0, float("inf"))):
    """Paddle's factor ranges: a number v means [center - v, center + v] (clipped to `bound`)."""
    if value is None:
        return None
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{name} must be non-negative, got {value}")
        value = (max(center - value, bound[0]), center + value)
    lo, hi = value
    if not bound[0] <= lo <= hi <= bound[1]:
        raise ValueError(f"{name} range {value} must be increasing and within {bound}")
    return lo, hi


def _hw(img):
    a, _ = geometric.as_hwc(img)
    return a.shape[0], a.shape[1]


class Pad(BaseTransform):
    """Pads the borders: `padding` an int, (left/right, top/bottom) or (left, top, right, bottom); `padding_mode`
    constant (with `fill`), edge, reflect or symmetric.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.Pad(1)(np.ones([2, 2, 3], "uint8")).shape
        (4, 4, 3)
    """

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomResizedCrop(BaseTransform):
    """Crops a random area (fraction `scale` of the image, aspect ratio in `ratio`) and resizes it to `size`.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomResizedCrop(8)(np.zeros([20, 30, 3], "uint8")).shape
        (8, 8, 3)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _get_param(self, h, w, attempts=10):
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target = area * _uniform(*self.scale)
            aspect = math.exp(_uniform(*log_ratio))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(rng().integers(0, h - ch + 1)), int(rng().integers(0, w - cw + 1)), ch, cw
        in_ratio = w / h   # fall back to a centre crop with the ratio clamped
        if in_ratio < min(self.ratio):
            cw, ch = w, int(round(w / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            ch, cw = h, int(round(h * max(self.ratio)))
        else:
            cw, ch = w, h
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def _apply_image(self, img):
        top, left, ch, cw = self._get_param(*_hw(img))
        return F.resize(F.crop(img, top, left, ch, cw), self.size, self.interpolation)


class BrightnessTransform(BaseTransform):
    """Scales brightness by a factor drawn from [max(0, 1 - value), 1 + value].

    Example:
        >>> from oar.vision import transforms as T
        >>> int(T.BrightnessTransform(0.0)(np.full([2, 2, 3], 7, "uint8")).max())
        7
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _range(value, "brightness")

    def _apply_image(self, img):
        return img if self.value is None else color.adjust_brightness(img, _uniform(*self.value))


class ContrastTransform(BaseTransform):
    """Changes contrast by a factor drawn from [max(0, 1 - value), 1 + value].

    Example:
        >>> from oar.vision import transforms as T
        >>> T.ContrastTransform(0.4)(np.zeros([2, 2, 3], "uint8")).shape
        (2, 2, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _range(value, "contrast")

    def _apply_image(self, img):
        return img if self.value is None else color.adjust_contrast(img, _uniform(*self.value))


class SaturationTransform(BaseTransform):
    """Changes saturation by a factor drawn from [max(0, 1 - value), 1 + value].

    Example:
        >>> from oar.vision import transforms as T
        >>> T.SaturationTransform(0.4)(np.zeros([2, 2, 3], "uint8")).shape
        (2, 2, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _range(value, "saturation")

    def _apply_image(self, img):
        return img if self.value is None else color.adjust_saturation(img, _uniform(*self.value))


class HueTransform(BaseTransform):
    """Shifts hue by a fraction drawn from [-value, value] (value <= 0.5).

    Example:
        >>> from oar.vision import transforms as T
        >>> T.HueTransform(0.2)(np.zeros([2, 2, 3], "uint8")).shape
        (2, 2, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _range(value, "hue", center=0.0, bound=(-0.5, 0.5))

    def _apply_image(self, img):
        return img if self.value is None else color.adjust_hue(img, _uniform(*self.value))


class ColorJitter(BaseTransform):
    """Random brightness, contrast, saturation and hue changes, applied in a random order.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.ColorJitter(0.4, 0.4, 0.4, 0.1)(np.full([4, 4, 3], 128, "uint8")).shape
        (4, 4, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast, self.saturation, self.hue = brightness, contrast, saturation, hue
        self._ts = [t for v, t in ((brightness, BrightnessTransform), (contrast, ContrastTransform),
                                   (saturation, SaturationTransform), (hue, HueTransform)) if v]
        self._ts = [t(v) for t, v in zip(self._ts, [v for v in (brightness, contrast, saturation, hue) if v])]

    def _apply_image(self, img):
        for i in rng().permutation(len(self._ts)):
            img = self._ts[i](img)
        return img


class Grayscale(BaseTransform):
    """RGB -> gray with 1 or 3 output channels (HWC ``[H, W, 1]`` for one channel, as Paddle).

    Example:
        >>> from oar.vision import transforms as T
        >>> T.Grayscale()(np.zeros([4, 5, 3], "uint8")).shape
        (4, 5, 1)
    """

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return color.to_grayscale(img, self.num_output_channels)


def _degrees(degrees):
    if isinstance(degrees, numbers.Number):
        if degrees < 0:
            raise ValueError(f"degrees must be non-negative when a single number, got {degrees}")
        return -float(degrees), float(degrees)
    return tuple(float(d) for d in degrees)


class RandomRotation(BaseTransform):
    """Rotates by an angle drawn from `degrees` (a number d means [-d, d]).

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomRotation(30)(np.zeros([6, 8, 3], "uint8")).shape
        (6, 8, 3)
    """

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        super().__init__(keys)
        self.degrees = _degrees(degrees)
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill

    def _apply_image(self, img):
        angle = _uniform(*self.degrees)
        return geometric.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """Random rotation (`degrees`), translation (`translate` fractions of width/height), `scale` range and
    `shear` (degrees: a number, an x range, or x and y ranges).

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)(np.zeros([8, 8, 3], "uint8")).shape
        (8, 8, 3)
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0, center=None,
                 keys=None):
        super().__init__(keys)
        self.degrees, self.translate, self.scale = _degrees(degrees), translate, scale
        if shear is not None:
            shear = _degrees(shear) if isinstance(shear, numbers.Number) or len(shear) == 2 else tuple(shear)
        self.shear, self.interpolation, self.fill, self.center = shear, interpolation, fill, center

    def _apply_image(self, img):
        h, w = _hw(img)
        angle = _uniform(*self.degrees)
        tx = ty = 0.0
        if self.translate is not None:
            tx = round(_uniform(-self.translate[0] * w, self.translate[0] * w))
            ty = round(_uniform(-self.translate[1] * h, self.translate[1] * h))
        scale = _uniform(*self.scale) if self.scale is not None else 1.0
        shear = (0.0, 0.0)
        if self.shear is not None:
            shear = (_uniform(self.shear[0], self.shear[1]),
                     _uniform(self.shear[2], self.shear[3]) if len(self.shear) == 4 else 0.0)
        return geometric.affine(img, angle, (tx, ty), scale, shear, self.interpolation, self.fill, self.center)


class RandomPerspective(BaseTransform):
    """With probability `prob`, moves each corner inwards by up to `distortion_scale` of half the size and warps.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomPerspective(prob=1.0)(np.zeros([8, 8, 3], "uint8")).shape
        (8, 8, 3)
    """

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        self.prob, self.distortion_scale, self.interpolation, self.fill = prob, distortion_scale, interpolation, fill

    def get_params(self, width, height):
        dx, dy = int(self.distortion_scale * width / 2), int(self.distortion_scale * height / 2)

        def r(n):
            return int(rng().integers(0, n + 1))
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        end = [[r(dx), r(dy)], [width - 1 - r(dx), r(dy)], [width - 1 - r(dx), height - 1 - r(dy)],
               [r(dx), height - 1 - r(dy)]]
        return start, end

    def _apply_image(self, img):
        if rng().random() >= self.prob:
            return img
        h, w = _hw(img)
        start, end = self.get_params(w, h)
        return geometric.perspective(img, start, end, self.interpolation, self.fill)


class RandomErasing(BaseTransform):
    """With probability `prob`, erases a random box (area fraction `scale`, aspect `ratio`) to `value` (a number,
    per-channel values, or 'random' for noise). Works on CHW Tensors and HWC arrays.

    Example:
        >>> from oar.vision import transforms as T
        >>> out = T.RandomErasing(prob=1.0, value=0)(paddle.ones([3, 10, 10]))
        >>> 0 < int((out.numpy() == 0).sum()) < 300
        True
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        if not (0 <= prob <= 1 and scale[0] <= scale[1] and ratio[0] <= ratio[1]):
            raise ValueError("RandomErasing: need 0 <= prob <= 1 and increasing scale / ratio ranges")
        self.prob, self.scale, self.ratio, self.value, self.inplace = prob, scale, ratio, value, inplace

    def _apply_image(self, img):
        if rng().random() >= self.prob:
            return img
        a, _ = geometric.as_hwc(img)
        h, w, c = a.shape
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            area = h * w * _uniform(*self.scale)
            aspect = math.exp(_uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh < h and ew < w and eh > 0 and ew > 0:
                i, j = int(rng().integers(0, h - eh + 1)), int(rng().integers(0, w - ew + 1))
                v = self.value
                if isinstance(v, str):
                    if v != "random":
                        raise ValueError(f"RandomErasing: value must be a number, a list or 'random', got {v!r}")
                    v = rng().standard_normal((c, eh, ew) if isinstance(img, Tensor) else (eh, ew, c))
                return geometric.erase(img, i, j, eh, ew, v, self.inplace)
        return img
