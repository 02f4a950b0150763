"""CIFAR-10 / CIFAR-100 from the python-version archives (``cifar-10-python.tar.gz``, ``cifar-100-python.tar.gz``),
read without running code from the archive: the batches are pickles, loaded with oar's restricted unpickler."""
import tarfile

import numpy as np

from ...dataset.download import resolve_data_file
from ...io.dataset import Dataset
from ...io.paddle_pickle import restricted_load


class Cifar10(Dataset):
    """CIFAR-10: ``(image, label int64 [1])`` per sample; the image is HWC uint8 [32, 32, 3] given to `transform`,
    or float32 without one (Paddle's behaviour).

    Args:
        data_file (str): the archive (default ``~/.cache/paddle/dataset/cifar/cifar-10-python.tar.gz``).
        mode (str): 'train' (50,000 images) or 'test' (10,000).
        transform (callable): applied to each image.
        download (bool): fetch the default archive when it is missing.
        backend (str): 'cv2' (NumPy arrays) or 'pil' (PIL images).

    Example:
        >>> ds = paddle.vision.datasets.Cifar10(data_file="cifar-10-python.tar.gz", mode="test")  # doctest: +SKIP
        >>> image, label = ds[0]                                                                  # doctest: +SKIP
    """

    ARCHIVE, URL = "cifar-10-python.tar.gz", "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"
    MD5 = "c58f30108f718f92721af3b95e74349a"
    MEMBERS = {"train": "data_batch", "test": "test_batch"}
    LABEL_KEY = b"labels"

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        mode = mode.lower()
        if mode not in ("train", "test"):
            raise ValueError(f"{type(self).__name__}: mode must be 'train' or 'test', got {mode!r}")
        if backend not in (None, "cv2", "pil"):
            raise ValueError(f"{type(self).__name__}: backend must be 'cv2' or 'pil', got {backend!r}")
        self.mode, self.transform, self.backend, self.dtype = mode, transform, backend or "cv2", "float32"
        self.data_file = resolve_data_file(type(self).__name__, data_file, "cifar", self.URL, self.MD5, download)
        self.images, self.labels = self._load()

    def _load(self):
        images, labels = [], []
        try:
            with tarfile.open(self.data_file, mode="r") as tar:
                names = sorted(m.name for m in tar.getmembers() if self.MEMBERS[self.mode] in m.name)
                for name in names:
                    batch = restricted_load(tar.extractfile(name), f"{self.data_file}:{name}", encoding="bytes")
                    images.append(np.asarray(batch[b"data"], np.uint8).reshape(-1, 3, 32, 32))
                    labels.append(np.asarray(batch[self.LABEL_KEY], np.int64))
        except (tarfile.TarError, EOFError, KeyError) as e:
            raise ValueError(f"{type(self).__name__}: {self.data_file!r} is not a readable CIFAR python archive "
                             f"({type(e).__name__}: {e})") from None
        if not images:
            raise ValueError(f"{type(self).__name__}: {self.data_file!r} holds no '{self.MEMBERS[self.mode]}' batch")
        return np.concatenate(images).transpose(0, 2, 3, 1), np.concatenate(labels)

    def __getitem__(self, idx):
        image, label = self.images[idx], np.array([self.labels[idx]], np.int64)
        if self.backend == "pil":
            from PIL import Image
            image = Image.fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil" or not isinstance(image, np.ndarray):
            return image, label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100 (fine labels, 100 classes): the same API as `Cifar10`.

    Example:
        >>> ds = paddle.vision.datasets.Cifar100(data_file="cifar-100-python.tar.gz", mode="train")  # doctest: +SKIP
    """

    ARCHIVE, URL = "cifar-100-python.tar.gz", "https://dataset.bj.bcebos.com/cifar/cifar-100-python.tar.gz"
    MD5 = "eb9058c3a382ffc7106e4002c42a8d85"
    MEMBERS = {"train": "train", "test": "test"}
    LABEL_KEY = b"fine_labels"
