"""The MNIST test set shipped in oar/data: checksums, and MNIST(mode='test') reads it without any file or network."""
import gzip
import hashlib
import os

import numpy as np
import pytest

import oar
from oar.vision.datasets import mnist

SHA256 = {"t10k-images-idx3-ubyte.gz": "1a1a05eab793c14bb050b398624a11b0ffd1a2953baed553b1b9bd079e2a20be",
          "t10k-labels-idx1-ubyte.gz": "b91679a0acfe4ba0e50a2437a903084cba1f5f92592b016a25a7dfd00455798b"}


def test_shipped_files_match_their_checksums():
    for name, sha in SHA256.items():
        path = os.path.join(mnist.EMBEDDED_DIR, name)
        assert hashlib.sha256(open(path, "rb").read()).hexdigest() == sha
        assert hashlib.md5(gzip.open(path).read()).hexdigest() == mnist.EMBEDDED_MD5[name]


def test_mnist_test_mode_uses_the_shipped_copy(tmp_path, monkeypatch):
    import oar.dataset.common as common
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))   # an empty cache
    ds = oar.vision.datasets.MNIST(mode="test", download=False)
    assert len(ds) == 10000 and ds.image_path.startswith(mnist.EMBEDDED_DIR)
    labels = np.array([int(ds[i][1][0]) for i in range(10)])
    np.testing.assert_array_equal(labels, [7, 2, 1, 0, 4, 1, 4, 9, 5, 9])
    assert np.bincount(ds.labels[:, 0]).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    try:
        oar.vision.datasets.MNIST(mode="train", download=False)
    except FileNotFoundError as e:
        assert "download=True" in str(e)
    else:
        raise AssertionError("the train set is not shipped")


def test_mnist_train_offline_says_what_was_kept(tmp_path, monkeypatch):
    """Offline, MNIST(mode='train') fails saying that nothing was kept (and no .part file exists), and points at
    the shipped test split."""
    import socket
    import oar.dataset.common as common
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))
    with socket.socket() as s:   # a port on this machine that nothing listens on: the connection is refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(mnist.MNIST, "URL", f"http://127.0.0.1:{port}/")
    with pytest.raises(RuntimeError) as e:
        oar.vision.datasets.MNIST(mode="train", download=True)
    msg = str(e.value)
    assert "no partial file was written" in msg and "is kept" not in msg and "MNIST(mode='test')" in msg, msg
    assert not any(p.name.endswith(".part") for p in tmp_path.rglob("*")), list(tmp_path.rglob("*"))
