"""MNIST / FashionMNIST from the IDX files (gzip-compressed or not)."""
import os

import numpy as np

from ...io.dataset import Dataset
from ...dataset.idx import IMAGES_MAGIC, LABELS_MAGIC, read_idx  # noqa: F401  (read_idx is public here too)

_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
          "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}
# MNIST's 10k test set ships inside oar (oar/data, see its README for source, licence and checksums)
EMBEDDED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data")
EMBEDDED_MD5 = {"t10k-images-idx3-ubyte.gz": "2646ac647ad5339dbf082846283269ea",   # of the uncompressed bytes
                "t10k-labels-idx1-ubyte.gz": "27ae3e4e09519cfbb04c329615203637"}


class MNIST(Dataset):
    """The MNIST digits: ``(image float32 [28, 28] or transform(image), label int64 [1])`` per sample.

    Args:
        image_path / label_path: the IDX files (default: Paddle's cache folder ``~/.cache/paddle/dataset/mnist``;
            for MNIST's test set, the copy that ships inside oar when the cache has none).
        mode: 'train' or 'test' (picks the default file names).
        transform: applied to each uint8 [28, 28] image.
        download: when a default file is missing (and not shipped), fetch it from Paddle's mirror into the cache
            (resumable, MD5-checked); False raises FileNotFoundError naming the file instead.

    Example:
        >>> ds = paddle.vision.datasets.MNIST(mode="test", download=False)   # the shipped 10k test images
        >>> len(ds), ds[0][0].shape, int(ds[0][1][0])
        (10000, (28, 28), 7)
    """

    NAME = "mnist"
    URL = "https://dataset.bj.bcebos.com/mnist/"
    MD5 = {"train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
           "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
           "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
           "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c"}

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        mode = mode.lower()
        if mode not in ("train", "test"):
            raise ValueError(f"{type(self).__name__}: mode must be 'train' or 'test', got {mode!r}")
        if backend not in (None, "cv2", "pil"):
            raise ValueError(f"{type(self).__name__}: backend must be 'cv2' or 'pil', got {backend!r}")
        image_path = image_path or self._default_file(_FILES[mode][0], download)
        label_path = label_path or self._default_file(_FILES[mode][1], download)
        for what, p in (("image", image_path), ("label", label_path)):
            if not os.path.isfile(p):
                raise FileNotFoundError(f"{type(self).__name__}: the {what} file {p!r} does not exist; pass "
                                        "image_path=/label_path=, or download=True to fetch the default files")
        self.mode, self.transform, self.backend = mode, transform, backend or "cv2"
        self.image_path, self.label_path = image_path, label_path
        self.images = read_idx(image_path, IMAGES_MAGIC)
        self.labels = read_idx(label_path, LABELS_MAGIC).astype(np.int64).reshape(-1, 1)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{type(self).__name__}: {image_path} has {len(self.images)} images but {label_path} "
                             f"has {len(self.labels)} labels")
        self.dtype = "float32"

    def _default_file(self, name, download):
        from ...dataset.common import DATA_HOME
        root = os.path.join(DATA_HOME, self.NAME)
        path = os.path.join(root, name)
        if os.path.isfile(path):
            return path
        shipped = os.path.join(EMBEDDED_DIR, name)
        if self.NAME == "mnist" and name in EMBEDDED_MD5 and os.path.isfile(shipped):
            return shipped
        if download:
            from ...dataset.download import get_path_from_url
            try:
                return get_path_from_url(self.URL + name, root, self.MD5.get(name))
            except RuntimeError as e:
                if self.NAME != "mnist":
                    raise
                raise RuntimeError(f"{e}\n(MNIST's 10,000 test images ship with oar and need no download: "
                                   "MNIST(mode='test'))") from None
        return path

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.transform is not None:
            image = self.transform(image)
            return (image.astype(self.dtype) if isinstance(image, np.ndarray) else image), label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: the same IDX format and API as `MNIST` (files in ``~/.cache/paddle/dataset/fashion-mnist``).

    Example:
        >>> ds = paddle.vision.datasets.FashionMNIST(mode="test", download=True)   # doctest: +SKIP
    """

    NAME = "fashion-mnist"
    URL = "https://dataset.bj.bcebos.com/fashion_mnist/"
    MD5 = {"train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
           "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
           "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
           "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310"}
