"""MNIST reads real IDX files (gzip or not) that the test writes."""
import gzip
import struct

import numpy as np
import pytest

from oar.vision.datasets import MNIST, read_idx
from oar.vision.transforms import Compose, Normalize, ToTensor


def write_idx(path, array, magic, compress):
    data = struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape) + array.tobytes()
    (gzip.open if compress else open)(path, "wb").write(data)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    write_idx(tmp_path / "img.gz", images, 2051, True)
    write_idx(tmp_path / "lab", labels, 2049, False)
    return tmp_path, images, labels


def test_reads_gzip_and_plain(files):
    d, images, labels = files
    ds = MNIST(image_path=str(d / "img.gz"), label_path=str(d / "lab"), mode="test")
    assert len(ds) == 5
    img, lab = ds[2]
    assert img.dtype == np.float32 and img.shape == (28, 28)
    np.testing.assert_array_equal(img, images[2].astype(np.float32))
    assert lab.dtype == np.int64 and lab.tolist() == [4]


def test_transform(files):
    d, images, _ = files
    ds = MNIST(image_path=str(d / "img.gz"), label_path=str(d / "lab"),
               transform=Compose([ToTensor(), Normalize(mean=[0.5], std=[0.5])]))
    img, _ = ds[0]
    assert img.shape == [1, 28, 28]
    np.testing.assert_allclose(img.numpy()[0], (images[0] / 255.0 - 0.5) / 0.5, rtol=1e-5, atol=1e-6)


def test_errors(files):
    d, images, _ = files
    with pytest.raises(FileNotFoundError, match="nope.gz"):
        MNIST(image_path=str(d / "nope.gz"), label_path=str(d / "lab"))
    with pytest.raises(ValueError, match="magic number is 2049, expected 2051"):
        MNIST(image_path=str(d / "lab"), label_path=str(d / "lab"))
    raw = open(d / "lab", "rb").read()
    (d / "short").write_bytes(raw[:-2])
    with pytest.raises(ValueError, match="truncated"):
        read_idx(str(d / "short"), 2049)
    write_idx(d / "lab3", np.array([1, 2, 3], np.uint8), 2049, False)
    with pytest.raises(ValueError, match="5 images but"):
        MNIST(image_path=str(d / "img.gz"), label_path=str(d / "lab3"))
    with pytest.raises(ValueError, match="mode"):
        MNIST(image_path=str(d / "img.gz"), label_path=str(d / "lab"), mode="val")
