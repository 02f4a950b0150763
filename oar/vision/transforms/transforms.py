"""Transform classes: callables built on `functional`, random draws from oar's seeded generator."""
import numbers

import numpy as np

from ...core.state import rng
from . import functional as F


class BaseTransform:
    """Base of transforms: ``t(img) -> img``; subclasses implement ``_apply_image``.

    Example:
        >>> from oar.vision import transforms as T
        >>> class Invert(T.BaseTransform):
        ...     def _apply_image(self, img):
        ...         return 255 - img
        >>> Invert()(np.zeros([1, 2], 'uint8')).tolist()
        [[255, 255]]
    """

    def __init__(self, keys=None):
        keys = ("image",) if keys is None else keys
        if isinstance(keys, str) or not hasattr(keys, "__len__"):
            raise ValueError(f"{type(self).__name__}: keys must be a sequence of names, got {keys!r}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{type(self).__name__}: {k!r} is unsupported (no _apply_{k} method)")
        self.keys, self.params = keys, None

    def _get_params(self, inputs):
        """The random parameters one call shares across its inputs (set as ``self.params`` before the applies)."""
        return None

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def __call__(self, inputs):
        """Paddle's protocol: `inputs` (one item or a tuple) is matched with `keys` ('image', 'coords', 'boxes',
        'mask', ...), each item given to ``_apply_<key>``; items past the keys (labels) pass unchanged."""
        items = inputs if isinstance(inputs, tuple) else (inputs,)
        self.params = self._get_params(items)
        out = [self._get_apply(k)(x) for k, x in zip(self.keys, items)] + list(items[len(self.keys):])
        return out[0] if len(out) == 1 else tuple(out)

    def _apply_image(self, img):
        raise NotImplementedError(f"{type(self).__name__} implements no _apply_image")


class Compose:
    """Applies transforms in order.

    Example:
        >>> from oar.vision.transforms import Compose, Normalize, Resize, ToTensor
        >>> t = Compose([Resize(32), ToTensor(), Normalize(mean=[0.5], std=[0.5])])
        >>> t(np.zeros([64, 48, 3], 'uint8')).shape
        [3, 42, 32]
    """

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class ToTensor(BaseTransform):
    """HWC/HW image (uint8 scaled to [0, 1]) -> float32 CHW Tensor.

    Example:
        >>> from oar.vision import transforms as T
        >>> t = T.ToTensor()(np.full([4, 5, 3], 255, 'uint8'))
        >>> t.shape, float(t.max())
        ([3, 4, 5], 1.0)
    """

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel (`mean`/`std` per-channel lists; a scalar means three equal channels,
    as in Paddle). An HW grayscale image gains a channel axis: ``[1, H, W]`` for CHW.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.Normalize(mean=[0.5], std=[0.5])(np.ones([1, 2, 2], 'float32')).tolist()
        [[[1.0, 1.0], [1.0, 1.0]]]
        >>> T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(np.zeros([28, 28], 'uint8')).shape
        (1, 28, 28)
    """

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean] * 3
        if isinstance(std, numbers.Number):
            std = [std] * 3
        self.mean, self.std, self.data_format, self.to_rgb = mean, std, data_format, to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resizes to `size` ((h, w), or an int for the shorter side).

    Example:
        >>> from oar.vision import transforms as T
        >>> T.Resize((4, 6))(np.zeros([8, 12, 3], 'uint8')).shape
        (4, 6, 3)
        >>> T.Resize(4)(np.zeros([8, 12, 3], 'uint8')).shape
        (4, 6, 3)
    """

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """Crops the central `size` window ((h, w), or an int for a square).

    Example:
        >>> from oar.vision import transforms as T
        >>> img = np.arange(16).reshape([4, 4])
        >>> T.CenterCrop(2)(img).tolist()
        [[5, 6], [9, 10]]
    """
    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """Crops a random `size` window, after optional `padding` (and padding up to `size` if `pad_if_needed`).

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomCrop(4, padding=2)(np.zeros([6, 6, 3], 'uint8')).shape
        (4, 4, 3)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        a, (ha, wa), _ = F._hw_axes(img)
        h, w = a.shape[ha], a.shape[wa]
        th, tw = self.size
        if self.pad_if_needed and (h < th or w < tw):
            img = F.pad(img, (max(0, tw - w), max(0, th - h)), self.fill, self.padding_mode)
            a, (ha, wa), _ = F._hw_axes(img)
            h, w = a.shape[ha], a.shape[wa]
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: crop size {(th, tw)} is larger than the image {(h, w)}; "
                             "use padding or pad_if_needed=True")
        top = int(rng().integers(0, h - th + 1))
        left = int(rng().integers(0, w - tw + 1))
        return F.crop(img, top, left, th, tw)


class RandomHorizontalFlip(BaseTransform):
    """Flips left-right with probability `prob`.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomHorizontalFlip(prob=1.0)(np.array([[1, 2, 3]])).tolist()
        [[3, 2, 1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img):
        return F.hflip(img) if rng().random() < self.prob else img


class RandomVerticalFlip(BaseTransform):
    """Flips upside-down with probability `prob`.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.RandomVerticalFlip(prob=1.0)(np.array([[1], [2]])).tolist()
        [[2], [1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img):
        return F.vflip(img) if rng().random() < self.prob else img


class Transpose(BaseTransform):
    """HWC -> CHW (or any `order`) for NumPy images.

    Example:
        >>> from oar.vision import transforms as T
        >>> T.Transpose()(np.zeros([4, 5, 3])).shape
        (3, 4, 5)
    """

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        a = np.asarray(img)
        return a[:, :, None].transpose(self.order) if a.ndim == 2 else a.transpose(self.order)
