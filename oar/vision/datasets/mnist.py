"""MNIST / FashionMNIST from the IDX files (gzip-compressed or not)."""
import gzip
import os
import struct

import numpy as np

from ...io.dataset import Dataset

IMAGES_MAGIC, LABELS_MAGIC = 2051, 2049
_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
          "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def read_idx(path, magic):
    """Reads an IDX file (uint8 payload) and returns its array; checks the magic number and the size.

    Example:
        >>> images = read_idx("train-images-idx3-ubyte.gz", 2051)   # uint8 [N, 28, 28]
    """
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{path}: cannot read this IDX file ({e})") from None
    if len(data) < 8:
        raise ValueError(f"{path}: too short to be an IDX file")
    got = struct.unpack(">I", data[:4])[0]
    if got != magic:
        raise ValueError(f"{path}: IDX magic number is {got}, expected {magic} "
                         f"({'images' if magic == IMAGES_MAGIC else 'labels'} file)")
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    body = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise ValueError(f"{path}: header says {dims} ({int(np.prod(dims))} bytes) but the file holds {body.size}; "
                         "it is truncated or damaged")
    return body.reshape(dims)


class MNIST(Dataset):
    """The MNIST digits: ``(image float32 [28, 28] or transform(image), label int64 [1])`` per sample.

    Args:
        image_path / label_path: the IDX files (default: Paddle's cache folder ``~/.cache/paddle/dataset/mnist``).
        mode: 'train' or 'test' (picks the default file names).
        transform: applied to each uint8 [28, 28] image.
        download: oar never downloads; a missing file raises FileNotFoundError naming it.

    Example:
        >>> ds = oar.vision.datasets.MNIST(image_path="t10k-images-idx3-ubyte.gz",
        ...                                label_path="t10k-labels-idx1-ubyte.gz", mode="test")
        >>> image, label = ds[0]
    """

    NAME = "mnist"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        mode = mode.lower()
        if mode not in ("train", "test"):
            raise ValueError(f"{type(self).__name__}: mode must be 'train' or 'test', got {mode!r}")
        if backend not in (None, "cv2", "pil"):
            raise ValueError(f"{type(self).__name__}: backend must be 'cv2' or 'pil', got {backend!r}")
        root = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset", self.NAME)
        image_path = image_path or os.path.join(root, _FILES[mode][0])
        label_path = label_path or os.path.join(root, _FILES[mode][1])
        for what, p in (("image", image_path), ("label", label_path)):
            if not os.path.isfile(p):
                raise FileNotFoundError(f"{type(self).__name__}: the {what} file {p!r} does not exist; oar does not "
                                        "download data: fetch the IDX files and pass image_path=/label_path=")
        self.mode, self.transform, self.backend = mode, transform, backend or "cv2"
        self.image_path, self.label_path = image_path, label_path
        self.images = read_idx(image_path, IMAGES_MAGIC)
        self.labels = read_idx(label_path, LABELS_MAGIC).astype(np.int64).reshape(-1, 1)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{type(self).__name__}: {image_path} has {len(self.images)} images but {label_path} "
                             f"has {len(self.labels)} labels")
        self.dtype = "float32"

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.transform is not None:
            image = self.transform(image)
            return (image.astype(self.dtype) if isinstance(image, np.ndarray) else image), label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: the same IDX format and API as `MNIST`."""

    NAME = "fashion-mnist"
