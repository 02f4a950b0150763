"""Image sets stored as archives of JPEG/PNG files: `Flowers` (Oxford 102, ``102flowers.tgz`` + ``.mat`` label
and split files) and `VOC2012` (segmentation pairs in ``VOCtrainval_11-May-2012.tar``). Decoding needs Pillow,
and Flowers' ``.mat`` files need SciPy (``pip install 'oar-dl[images]'``)."""
import io
import os
import tarfile

import numpy as np

from ...dataset.download import resolve_data_file as _file
from ...io.dataset import Dataset


def _need(module, who):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        pip = {"PIL.Image": "pillow", "scipy.io": "scipy"}[module]
        raise ImportError(f"{who} needs {pip} to read its files: pip install {pip} (or 'oar-dl[images]')") from None


class _ArchiveImages(Dataset):
    """Shared parts: the archive opened lazily (once per process, so DataLoader workers each open their own)."""

    def _tar(self):
        if getattr(self, "_tar_pid", None) != os.getpid():
            self._tar_obj, self._tar_pid = tarfile.open(self.data_file), os.getpid()
        return self._tar_obj

    def _image(self, name, mode=None):
        Image = _need("PIL.Image", type(self).__name__)
        img = Image.open(io.BytesIO(self._tar().extractfile(name).read()))
        return img.convert(mode) if mode else img

    def _finish(self, image):
        if self.backend == "cv2":
            image = np.asarray(image)
        if self.transform is not None:
            image = self.transform(image)
        return image.astype(self.dtype) if isinstance(image, np.ndarray) and self.backend == "cv2" else image

    def __getstate__(self):   # the open archive does not travel to worker processes
        state = dict(self.__dict__)
        state.pop("_tar_obj", None)
        state.pop("_tar_pid", None)
        return state


class Flowers(_ArchiveImages):
    """Oxford 102 Flowers: ``(image, label int64 [1])``; the image is HWC uint8 (float32 after no transform, as
    Paddle) or a PIL image with ``backend='pil'``. Paddle's split: 'train' is the set the files call ``tstid``
    (the largest), 'test' is ``trnid``, 'valid' is ``valid``.

    Example:
        >>> ds = paddle.vision.datasets.Flowers(data_file="102flowers.tgz", label_file="imagelabels.mat",
        ...                                     setid_file="setid.mat", mode="test")       # doctest: +SKIP
    """

    URLS = {"data": ("https://dataset.bj.bcebos.com/flowers%2F102flowers.tgz", "52808999861908f626f3c1f4e79d11fa"),
            "label": ("https://dataset.bj.bcebos.com/flowers%2Fimagelabels.mat", "e0620be6f572b9609742df49c70aed4d"),
            "setid": ("https://dataset.bj.bcebos.com/flowers%2Fsetid.mat", "a5357ecc9cb78c4bef273ce3793fc85c")}
    SPLIT = {"train": "tstid", "test": "trnid", "valid": "valid"}

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train", transform=None,
                 download=True, backend=None):
        mode = mode.lower()
        if mode not in self.SPLIT:
            raise ValueError(f"Flowers: mode must be 'train', 'valid' or 'test', got {mode!r}")
        if backend not in (None, "cv2", "pil"):
            raise ValueError(f"Flowers: backend must be 'cv2' or 'pil', got {backend!r}")
        self.mode, self.transform, self.backend, self.dtype = mode, transform, backend or "cv2", "float32"
        self.data_file = _file("Flowers", data_file, "flowers", *self.URLS["data"], download)
        label_file = _file("Flowers", label_file, "flowers", *self.URLS["label"], download)
        setid_file = _file("Flowers", setid_file, "flowers", *self.URLS["setid"], download)
        loadmat = _need("scipy.io", "Flowers").loadmat
        self.labels = np.asarray(loadmat(label_file)["labels"]).reshape(-1)
        self.indexes = np.asarray(loadmat(setid_file)[self.SPLIT[mode]]).reshape(-1)

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        image = self._image(f"jpg/image_{index:05d}.jpg", "RGB")
        return self._finish(image), np.array([self.labels[index - 1]], np.int64)

    def __len__(self):
        return len(self.indexes)


class VOC2012(_ArchiveImages):
    """Pascal VOC 2012 segmentation: ``(image, label)``, the image HWC RGB and the label the per-pixel class map
    (uint8 palette indices, 255 = border) as arrays (image float32 without a transform), or PIL images with
    ``backend='pil'``. Paddle's split: 'train' is ``trainval``, 'test' is ``train``, 'valid' is ``val``.

    Example:
        >>> ds = paddle.vision.datasets.VOC2012(data_file="VOCtrainval_11-May-2012.tar", mode="valid")  # doctest: +SKIP
    """

    URL = "https://dataset.bj.bcebos.com/voc%2FVOCtrainval_11-May-2012.tar"
    MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
    SPLIT = {"train": "trainval", "test": "train", "valid": "val"}
    ROOT = "VOCdevkit/VOC2012/"

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        mode = mode.lower()
        if mode not in self.SPLIT:
            raise ValueError(f"VOC2012: mode must be 'train', 'valid' or 'test', got {mode!r}")
        if backend not in (None, "cv2", "pil"):
            raise ValueError(f"VOC2012: backend must be 'cv2' or 'pil', got {backend!r}")
        self.mode, self.transform, self.backend, self.dtype = mode, transform, backend or "cv2", "float32"
        self.data_file = _file("VOC2012", data_file, "voc2012", self.URL, self.MD5, download)
        listing = f"{self.ROOT}ImageSets/Segmentation/{self.SPLIT[mode]}.txt"
        try:
            names = self._tar().extractfile(listing).read().decode().split()
        except KeyError:
            raise ValueError(f"VOC2012: {self.data_file!r} has no {listing}") from None
        self.names = names

    def __getitem__(self, idx):
        name = self.names[idx]
        image = self._image(f"{self.ROOT}JPEGImages/{name}.jpg", "RGB")
        label = self._image(f"{self.ROOT}SegmentationClass/{name}.png")
        if self.backend == "pil":
            return (self.transform(image) if self.transform else image), label
        return self._finish(image), np.asarray(label).astype(np.int64)

    def __len__(self):
        return len(self.names)
