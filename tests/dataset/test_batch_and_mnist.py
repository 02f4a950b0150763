"""paddle.batch and paddle.dataset.mnist (seed 002's MNIST reader: paddle.batch(paddle.dataset.mnist.train(), ...))."""
import gzip
import struct

import numpy as np
import pytest

import oar as paddle
import oar.dataset.common as common


def _write_mnist(folder, prefix, images, labels):
    d = folder / "mnist"
    d.mkdir(parents=True, exist_ok=True)
    n = len(images)
    with gzip.open(d / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.astype(np.uint8).tobytes())
    with gzip.open(d / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.astype(np.uint8).tobytes())


@pytest.fixture
def mnist_home(tmp_path, monkeypatch):
    rng = np.random.RandomState(0)
    data = {}
    for prefix, n in (("train", 10), ("t10k", 4)):
        images, labels = rng.randint(0, 256, (n, 28, 28)), rng.randint(0, 10, n)
        _write_mnist(tmp_path, prefix, images, labels)
        data[prefix] = (images, labels)
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))
    return data


def test_batch_groups_and_keeps_the_short_tail():
    reader = lambda: iter(range(7))  # noqa: E731
    assert list(paddle.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(paddle.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    assert list(paddle.batch(reader, 7, drop_last=True)()) == [list(range(7))]
    assert list(paddle.batch(lambda: iter([]), 2)()) == []


def test_batch_reader_can_be_iterated_again():
    r = paddle.batch(lambda: iter("abcde"), 2)
    assert list(r()) == list(r()) == [["a", "b"], ["c", "d"], ["e"]]


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_batch_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match="batch_size"):
        paddle.batch(lambda: iter([]), bad)


def test_batch_rejects_a_generator_instead_of_a_creator():
    with pytest.raises(TypeError, match="reader creator"):
        paddle.batch(iter([1, 2]), 2)


def test_mnist_train_matches_paddle_scaling(mnist_home):
    images, labels = mnist_home["train"]
    samples = list(paddle.dataset.mnist.train()())
    assert len(samples) == 10
    for (img, lab), ref_img, ref_lab in zip(samples, images, labels):
        assert img.dtype == np.float32 and img.shape == (784,)
        np.testing.assert_allclose(img, ref_img.reshape(-1) / 255.0 * 2.0 - 1.0, rtol=1e-6, atol=1e-6)
        assert isinstance(lab, int) and lab == ref_lab


def test_mnist_test_split_and_seed_batching(mnist_home):
    images, labels = mnist_home["t10k"]
    batches = list(paddle.batch(paddle.dataset.mnist.test(), batch_size=3, drop_last=True)())
    assert len(batches) == 1 and len(batches[0]) == 3
    # the seed's conversion into an image batch and a label column
    x = np.array([s[0].reshape(1, 28, 28) for s in batches[0]]).astype("float32")
    y = np.array([s[1] for s in batches[0]]).astype("int64").reshape(3, 1)
    assert x.shape == (3, 1, 28, 28) and y[:, 0].tolist() == labels[:3].tolist()


def test_mnist_missing_files_name_the_path(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte.gz.*does not download"):
        paddle.dataset.mnist.train()


def test_mnist_mismatched_counts(tmp_path, monkeypatch):
    _write_mnist(tmp_path, "train", np.zeros((3, 28, 28)), np.zeros(2))
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))
    with pytest.raises(ValueError):
        list(paddle.dataset.mnist.train()())
