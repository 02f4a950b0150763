"""`oar.dataset.mnist`: MNIST as Paddle 2.x reader creators, ``(image float32 [784] in [-1, 1], label int)``."""
import numpy as np

from .idx import IMAGES_MAGIC, LABELS_MAGIC, read_idx
from . import common

__all__ = ["train", "test"]

URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
          "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def _reader_creator(mode):
    image_file, label_file = (common.data_file("mnist", f, URL_PREFIX + f) for f in _FILES[mode])

    def reader():
        images = read_idx(image_file, IMAGES_MAGIC)
        labels = read_idx(label_file, LABELS_MAGIC)
        if len(images) != len(labels):
            raise ValueError(f"paddle.dataset.mnist: {image_file} has {len(images)} images but {label_file} "
                             f"has {len(labels)} labels")
        images = images.reshape(len(images), -1).astype(np.float32) / 255.0 * 2.0 - 1.0
        for image, label in zip(images, labels):
            yield image, int(label)

    return reader


def train():
    """The MNIST training-set reader creator: each call of the result yields ``(image, label)`` with image a
    float32 [784] array scaled to [-1, 1] and label an int, read from ``DATA_HOME/mnist/train-*-ubyte.gz``.

    Example:
        >>> import gzip, os, struct
        >>> import oar.dataset.common as common
        >>> common.DATA_HOME = "data"          # a folder holding mnist/train-images-idx3-ubyte.gz etc.
        >>> os.makedirs("data/mnist", exist_ok=True)
        >>> with gzip.open("data/mnist/train-images-idx3-ubyte.gz", "wb") as f:
        ...     _ = f.write(struct.pack(">IIII", 2051, 2, 28, 28) + bytes(2 * 784))
        >>> with gzip.open("data/mnist/train-labels-idx1-ubyte.gz", "wb") as f:
        ...     _ = f.write(struct.pack(">II", 2049, 2) + bytes([7, 3]))
        >>> image, label = next(paddle.dataset.mnist.train()())
        >>> image.shape, float(image[0]), label
        ((784,), -1.0, 7)
        >>> common.DATA_HOME = os.path.expanduser("~/.cache/paddle/dataset")
    """
    return _reader_creator("train")


def test():
    """The MNIST test-set reader creator (``DATA_HOME/mnist/t10k-*-ubyte.gz``); samples as in `train`.

    Example:
        >>> import os
        >>> import oar.dataset.common as common
        >>> common.DATA_HOME = "no-such-folder"
        >>> paddle.dataset.mnist.test()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        FileNotFoundError: paddle.dataset.mnist: no-such-folder/mnist/t10k-images-idx3-ubyte.gz does not exist...
        >>> common.DATA_HOME = os.path.expanduser("~/.cache/paddle/dataset")
    """
    return _reader_creator("test")
