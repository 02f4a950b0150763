"""`DatasetFolder` (one sub-folder per class) and `ImageFolder` (every image under a folder, no labels)."""
import os

import numpy as np

from ...io.dataset import Dataset

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp", ".npy")


def default_loader(path):
    """A NumPy HWC uint8 image: ``.npy`` files directly, other formats through PIL (``pip install pillow``).

    Example:
        >>> from oar.vision.datasets.folder import default_loader
        >>> np.save("img.npy", np.zeros([2, 2, 3], "uint8"))
        >>> default_loader("img.npy").shape
        (2, 2, 3)
    """
    if path.lower().endswith(".npy"):
        return np.load(path, allow_pickle=False)
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"reading {path!r} needs Pillow (`pip install pillow`), or pass loader=") from None
    with Image.open(path) as img:
        return np.asarray(img.convert("RGB"))


def _files(root, extensions, is_valid_file):
    if extensions is not None and is_valid_file is not None:
        raise ValueError("give either extensions or is_valid_file, not both")
    ok = is_valid_file or (lambda p: p.lower().endswith(tuple(extensions or IMG_EXTENSIONS)))
    out = []
    for d, _, names in sorted(os.walk(root, followlinks=True)):
        out += [os.path.join(d, n) for n in sorted(names) if ok(os.path.join(d, n))]
    return out


class DatasetFolder(Dataset):
    """Samples from ``root/<class>/**/<file>``: ``(loader(file) after transform, class index int64 [1])``, classes
    sorted by folder name.

    Example:
        >>> import os
        >>> for c in ("cat", "dog"):
        ...     os.makedirs(f"pets/{c}", exist_ok=True)
        ...     np.save(f"pets/{c}/0.npy", np.zeros([2, 2, 3], "uint8"))
        >>> ds = paddle.vision.datasets.DatasetFolder("pets")
        >>> ds.classes, len(ds), ds[1][1].tolist()
        (['cat', 'dog'], 2, [1])
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        if not os.path.isdir(root):
            raise FileNotFoundError(f"DatasetFolder: {root!r} is not a folder")
        self.root, self.loader, self.transform = root, loader or default_loader, transform
        self.classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.samples = [(p, self.class_to_idx[c]) for c in self.classes
                        for p in _files(os.path.join(root, c), extensions, is_valid_file)]
        if not self.samples:
            raise RuntimeError(f"DatasetFolder: found no files under the class folders of {root!r} "
                               f"(extensions: {', '.join(extensions or IMG_EXTENSIONS)})")
        self.targets = [t for _, t in self.samples]

    def __getitem__(self, idx):
        path, target = self.samples[idx]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, np.array([target], np.int64)

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every image file under `root` (recursively), as ``[loader(file) after transform]`` (no labels).

    Example:
        >>> import os
        >>> os.makedirs("imgs", exist_ok=True); np.save("imgs/a.npy", np.zeros([2, 2, 3], "uint8"))
        >>> ds = paddle.vision.datasets.ImageFolder("imgs")
        >>> len(ds), ds[0][0].shape
        (1, (2, 2, 3))
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        if not os.path.isdir(root):
            raise FileNotFoundError(f"ImageFolder: {root!r} is not a folder")
        self.root, self.loader, self.transform = root, loader or default_loader, transform
        self.samples = _files(root, extensions, is_valid_file)
        if not self.samples:
            raise RuntimeError(f"ImageFolder: found no image files under {root!r}")

    def __getitem__(self, idx):
        sample = self.loader(self.samples[idx])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
