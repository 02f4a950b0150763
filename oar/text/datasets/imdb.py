"""The IMDB movie-review sentiment set (``aclImdb_v1.tar.gz``), tokenized as Paddle does."""
import collections
import re
import string
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ._files import check_mode, resolve

_PUNCT = string.punctuation.encode("latin-1")


def _docs(data_file, pattern):
    """Yields each matching review as a list of lower-case byte tokens with punctuation removed."""
    with tarfile.open(data_file) as tar:
        for member in tar:
            if pattern.match(member.name):
                text = tar.extractfile(member).read().rstrip(b"\n\r")
                yield text.translate(None, _PUNCT).lower().split()


class Imdb(Dataset):
    """``(word ids int64 [L], label int64 [1])`` with label 0 for positive and 1 for negative reviews; the
    vocabulary (``word_idx``, byte-string words) holds words seen more than `cutoff` times in train + test, most
    frequent first, plus ``<unk>`` last.

    Example:
        >>> import io, tarfile
        >>> with tarfile.open("imdb.tar.gz", "w:gz") as tar:
        ...     for i, (split, kind, text) in enumerate([("train", "pos", b"good film"), ("train", "neg", b"bad"),
        ...                                              ("test", "pos", b"good")]):
        ...         info = tarfile.TarInfo(f"aclImdb/{split}/{kind}/{i}.txt"); info.size = len(text)
        ...         tar.addfile(info, io.BytesIO(text))
        >>> ds = paddle.text.Imdb(data_file="imdb.tar.gz", mode="train", cutoff=0)
        >>> len(ds), sorted(ds.word_idx)
        (2, [b'<unk>', b'bad', b'film', b'good'])
    """

    URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
    MD5 = "7c2ac02c03563afcf9b574c7e56c153a"

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        self.mode = check_mode("Imdb", mode)
        self.data_file = resolve("Imdb", data_file, "imdb", self.URL, self.MD5, download)
        self.word_idx = self._build_word_dict(cutoff)
        self.docs, self.labels = self._load_anno()

    def _build_word_dict(self, cutoff):
        freq = collections.Counter()
        for doc in _docs(self.data_file, re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")):
            freq.update(doc)
        words = sorted((w for w, c in freq.items() if c > cutoff), key=lambda w: (-freq[w], w))
        word_idx = {w: i for i, w in enumerate(words)}
        word_idx[b"<unk>"] = len(words)
        return word_idx

    def _load_anno(self):
        unk = self.word_idx[b"<unk>"]
        docs, labels = [], []
        for label, kind in ((0, "pos"), (1, "neg")):
            for doc in _docs(self.data_file, re.compile(rf"aclImdb/{self.mode}/{kind}/.*\.txt$")):
                docs.append([self.word_idx.get(w, unk) for w in doc])
                labels.append(label)
        return docs, labels

    def __getitem__(self, idx):
        return np.array(self.docs[idx], np.int64), np.array([self.labels[idx]], np.int64)

    def __len__(self):
        return len(self.docs)
