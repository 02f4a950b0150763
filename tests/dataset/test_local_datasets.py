"""Cifar10/100, DatasetFolder, paddle.text datasets from small archives written in the real formats; the restricted
unpickler guards CIFAR batches; downloads resume and check MD5 against a local HTTP server (no network)."""
import hashlib
import http.server
import io
import os
import pickle
import tarfile
import threading

import numpy as np
import pytest

import oar as paddle
from oar.io.paddle_pickle import UnsafePickleError


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _cifar(path, members, label_key, n=6, evil=False):
    rng = np.random.RandomState(0)
    truth = {}
    with tarfile.open(path, "w:gz") as tar:
        for m in members:
            data = rng.randint(0, 256, (n, 3072)).astype(np.uint8)
            labels = list(rng.randint(0, 10, n))
            batch = {b"batch_label": b"x", label_key: labels, b"data": data, b"filenames": [b"f"] * n}
            _add(tar, m, pickle.dumps(batch if not evil else os.system, protocol=2))
            truth[m] = (data, labels)
    return truth


def test_cifar10_reads_the_python_archive(tmp_path):
    path = str(tmp_path / "cifar-10-python.tar.gz")
    truth = _cifar(path, ["cifar-10-batches-py/data_batch_1", "cifar-10-batches-py/data_batch_2",
                          "cifar-10-batches-py/test_batch"], b"labels")
    train = paddle.vision.datasets.Cifar10(data_file=path, mode="train")
    test = paddle.vision.datasets.Cifar10(data_file=path, mode="test")
    assert len(train) == 12 and len(test) == 6
    img, label = train[7]
    data, labels = truth["cifar-10-batches-py/data_batch_2"]
    np.testing.assert_array_equal(img, data[1].reshape(3, 32, 32).transpose(1, 2, 0).astype("float32"))
    assert img.dtype == np.float32 and label.tolist() == [labels[1]] and label.dtype == np.int64
    t = paddle.vision.datasets.Cifar10(data_file=path, mode="test", transform=paddle.vision.transforms.ToTensor())
    assert t[0][0].shape == [3, 32, 32]


def test_cifar100_fine_labels_and_evil_archive(tmp_path):
    path = str(tmp_path / "c100.tar.gz")
    truth = _cifar(path, ["cifar-100-python/train", "cifar-100-python/test"], b"fine_labels")
    ds = paddle.vision.datasets.Cifar100(data_file=path, mode="train")
    assert [int(ds[i][1][0]) for i in range(6)] == truth["cifar-100-python/train"][1]
    bad = str(tmp_path / "bad.tar.gz")
    _cifar(bad, ["cifar-10-batches-py/test_batch"], b"labels", evil=True)
    with pytest.raises(UnsafePickleError, match="system"):
        paddle.vision.datasets.Cifar10(data_file=bad, mode="test")
    with pytest.raises(FileNotFoundError, match="download=True"):
        paddle.vision.datasets.Cifar10(data_file=str(tmp_path / "none.tar.gz"))


def test_dataset_folder_with_a_custom_loader(tmp_path):
    for c, n in (("b", 2), ("a", 1)):
        os.makedirs(tmp_path / c)
        for i in range(n):
            (tmp_path / c / f"{i}.txt").write_text(f"{c}{i}")
    ds = paddle.vision.datasets.DatasetFolder(str(tmp_path), loader=lambda p: open(p).read(), extensions=(".txt",))
    assert ds.classes == ["a", "b"] and [(ds[i][0], int(ds[i][1][0])) for i in range(3)] == \
        [("a0", 0), ("b0", 1), ("b1", 1)]
    imgs = paddle.vision.datasets.ImageFolder(str(tmp_path), loader=lambda p: p[-7:], extensions=(".txt",))
    assert len(imgs) == 3 and imgs[0] == ["a/0.txt"]


def test_uci_housing_normalization_and_split(tmp_path):
    rows = np.random.RandomState(0).rand(10, 14) * 10
    np.savetxt(tmp_path / "housing.data", rows)
    train = paddle.text.UCIHousing(data_file=str(tmp_path / "housing.data"), mode="train")
    test = paddle.text.UCIHousing(data_file=str(tmp_path / "housing.data"), mode="test")
    ref = (rows[:, :13] - rows[:, :13].mean(0)) / (rows[:, :13].max(0) - rows[:, :13].min(0))
    assert len(train) == 8 and len(test) == 2
    np.testing.assert_allclose(test[1][0], ref[9], rtol=1e-5)
    np.testing.assert_allclose(train[0][1], rows[0, 13:], rtol=1e-6)


def test_imdb_vocabulary_and_labels(tmp_path):
    path = str(tmp_path / "imdb.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        _add(tar, "aclImdb/train/pos/0.txt", b"A great, great film!\n")
        _add(tar, "aclImdb/train/neg/1.txt", b"bad film")
        _add(tar, "aclImdb/test/neg/2.txt", b"great bore")
    ds = paddle.text.Imdb(data_file=path, mode="train", cutoff=1)
    assert ds.word_idx == {b"great": 0, b"film": 1, b"<unk>": 2}
    assert [(d.tolist(), l.tolist()) for d, l in (ds[0], ds[1])] == [([2, 0, 0, 1], [0]), ([2, 1], [1])]
    assert len(paddle.text.Imdb(data_file=path, mode="test", cutoff=1)) == 1


def test_imikolov_sequences(tmp_path):
    path = str(tmp_path / "ptb.tgz")
    with tarfile.open(path, "w:gz") as tar:
        _add(tar, "./simple-examples/data/ptb.train.txt", b"x y\nx y x y x\n")
        _add(tar, "./simple-examples/data/ptb.valid.txt", b"y\n")
    ds = paddle.text.Imikolov(data_file=path, data_type="SEQ", window_size=3, min_word_freq=0)
    w = ds.word_idx
    assert len(ds) == 1   # the 5-word sentence is longer than the window
    src, trg = ds[0]
    assert src.tolist() == [w["<s>"], w["x"], w["y"]] and trg.tolist() == [w["x"], w["y"], w["<e>"]]


def test_download_resumes_and_checks_md5(tmp_path):
    from oar.dataset.download import get_path_from_url
    served = tmp_path / "srv"
    served.mkdir()
    payload = os.urandom(300_000)
    (served / "blob.bin").write_bytes(payload)
    class Ranged(http.server.SimpleHTTPRequestHandler):   # the stdlib server ignores Range; honour it
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(served), **k)

        def log_message(self, *a):
            pass

        def do_GET(self):
            rng = self.headers.get("Range")
            if not rng:
                return super().do_GET()
            start = int(rng.split("=")[1].split("-")[0])
            body = payload[start:]
            self.send_response(206)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ranged)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/blob.bin"
        dest = tmp_path / "cache"
        dest.mkdir()
        (dest / "blob.bin.part").write_bytes(payload[:1000])   # an interrupted earlier try
        md5 = hashlib.md5(payload).hexdigest()
        path = get_path_from_url(url, str(dest), md5, verbose=False)
        assert open(path, "rb").read() == payload and not os.path.exists(path + ".part")
        with pytest.raises(RuntimeError, match="MD5"):
            get_path_from_url(url, str(tmp_path / "c2"), "0" * 32, verbose=False)
    finally:
        srv.shutdown()


def test_failed_download_message_matches_what_is_on_disk(tmp_path):
    """A refused connection keeps an earlier partial file (and says its size) and writes none when there was none."""
    import socket
    from oar.dataset.download import get_path_from_url
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/blob.bin"   # closed below: nothing listens there
    with pytest.raises(RuntimeError, match="no partial file was written"):
        get_path_from_url(url, str(tmp_path / "a"), verbose=False)
    assert not (tmp_path / "a" / "blob.bin.part").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "blob.bin.part").write_bytes(b"x" * 1000)
    with pytest.raises(RuntimeError, match=r"blob.bin.part \(1000 bytes\) is kept"):
        get_path_from_url(url, str(tmp_path / "b"), verbose=False)
    assert (tmp_path / "b" / "blob.bin.part").stat().st_size == 1000


def test_movielens_split_matches_paddles_draws(tmp_path):
    import zipfile
    path = str(tmp_path / "ml-1m.zip")
    ratings = [f"{1 + i % 2}::{1 + i % 3}::{1 + i % 5}::0" for i in range(40)]
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ml-1m/movies.dat", "1::A b (1990)::X\n2::C (1991)::X|Y\n3::B a c (1992)::Y\n")
        z.writestr("ml-1m/users.dat", "1::M::25::3::0\n2::F::56::7::0\n")
        z.writestr("ml-1m/ratings.dat", "\n".join(ratings) + "\n")
    train = paddle.text.Movielens(data_file=path, mode="train", test_ratio=0.3, rand_seed=4)
    test = paddle.text.Movielens(data_file=path, mode="test", test_ratio=0.3, rand_seed=4)
    draws = np.random.RandomState(4).random_sample(40)
    assert len(test) == int((draws < 0.3).sum()) and len(train) + len(test) == 40
    first_test = int(np.argmax(draws < 0.3))
    sample = test[0]
    uid, mov, stars = (int(x) for x in ratings[first_test].split("::")[:3])
    assert int(sample[0][0]) == uid and int(sample[4][0]) == mov and float(sample[-1][0]) == stars * 2 - 5.0
    assert sample[2].tolist() == [[2, 6][uid - 1]]   # age bucket of 25 / 56


def test_wmt16_both_directions_and_wmt14_length_filter(tmp_path):
    path = str(tmp_path / "wmt16.tar.gz")
    text = b"a cat\teine katze\na dog\tein hund\nbad line\n"
    with tarfile.open(path, "w:gz") as tar:
        for split in ("train", "val"):
            _add(tar, f"wmt16/{split}", text)
    de = paddle.text.WMT16(data_file=path, mode="val", src_dict_size=10, trg_dict_size=10, lang="de")
    src_d, trg_d = de.get_dict("de"), de.get_dict("en", reverse=True)
    assert len(de) == 2 and trg_d[3] == "a"
    assert de[1][0].tolist() == [0, src_d["ein"], src_d["hund"], 1]
    assert [trg_d[i] for i in de[1][2].tolist()] == ["a", "dog", "<e>"]
    path14 = str(tmp_path / "wmt14.tgz")
    with tarfile.open(path14, "w:gz") as tar:
        _add(tar, "x/src.dict", b"<s>\n<e>\n<unk>\n")
        _add(tar, "x/trg.dict", b"<s>\n<e>\n<unk>\n")
        _add(tar, "x/test/test", ("w " * 79 + "\tv\n" + "w " * 78 + "\tv\n").encode())
    ds = paddle.text.WMT14(data_file=path14, mode="test", dict_size=3)
    assert len(ds) == 1 and len(ds[0][0]) == 80   # 78 words + <s> + <e>; the 79-word source is dropped


def test_conll05st_bio_labels_and_context(tmp_path):
    import gzip as gz
    words = ["The", "cat", "sat", "on", "mats", "."]
    props = [["-", "(A0*"], ["-", "*)"], ["sit", "(V*)"], ["-", "(AM-LOC*"], ["-", "*)"], ["-", "*"]]
    wtxt = ("\n".join(words) + "\n\n").encode()
    ptxt = ("\n".join(" ".join(p) for p in props) + "\n\n").encode()
    path = str(tmp_path / "conll.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        _add(tar, "conll05st-release/test.wsj/words/test.wsj.words.gz", gz.compress(wtxt))
        _add(tar, "conll05st-release/test.wsj/props/test.wsj.props.gz", gz.compress(ptxt))
    (tmp_path / "w.txt").write_text("<unk>\nThe\ncat\nsat\non\nmats\n.\nbos\neos\n")
    (tmp_path / "v.txt").write_text("sit\n")
    (tmp_path / "t.txt").write_text("B-A0\nI-A0\nB-V\nI-V\nB-AM-LOC\nI-AM-LOC\nO\n")
    ds = paddle.text.Conll05st(data_file=path, word_dict_file=str(tmp_path / "w.txt"),
                               verb_dict_file=str(tmp_path / "v.txt"), target_dict_file=str(tmp_path / "t.txt"),
                               download=False)
    assert len(ds) == 1 and ds.labels[0] == ["B-A0", "I-A0", "B-V", "B-AM-LOC", "I-AM-LOC", "O"]
    word, n2, n1, c0, p1, p2, pred, mark, label = ds[0]
    w = ds.word_dict
    assert word.tolist() == [1, 2, 3, 4, 5, 6] and n2.tolist() == [w["The"]] * 6 and p2.tolist() == [w["mats"]] * 6
    assert mark.tolist() == [1, 1, 1, 1, 1, 0] and pred.tolist() == [0] * 6
    lab = ds.label_dict
    assert label.tolist() == [lab["B-A0"], lab["I-A0"], lab["B-V"], lab["B-AM-LOC"], lab["I-AM-LOC"], lab["O"]]
    assert ds.get_embedding() is None
