"""The Penn Treebank language-model data in Mikolov's ``simple-examples.tgz``, as n-grams or sequences."""
import collections
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ._files import check_mode, resolve

_FILES = {"train": "./simple-examples/data/ptb.train.txt", "test": "./simple-examples/data/ptb.valid.txt"}


def _lines(tar, name):
    try:
        f = tar.extractfile(name)
    except KeyError:
        f = tar.extractfile(name[2:])   # archives written without the leading './'
    return [line.decode("utf-8", "replace").strip() for line in f]


class Imikolov(Dataset):
    """PTB sentences as word ids: ``data_type='NGRAM'`` gives every `window_size`-gram of ``<s> words <e>`` (a
    tuple of int64 arrays); ``'SEQ'`` gives ``(<s> + ids, ids + <e>)`` per sentence (skipping sentences longer than
    `window_size` when it is positive). Words seen more than `min_word_freq` times in train + valid get ids, most
    frequent first; others are ``<unk>``.

    Example:
        >>> import io, tarfile
        >>> with tarfile.open("ptb.tgz", "w:gz") as tar:
        ...     for name, text in [("train", b"a b a\\n"), ("valid", b"b a\\n")]:
        ...         info = tarfile.TarInfo(f"./simple-examples/data/ptb.{name}.txt"); info.size = len(text)
        ...         tar.addfile(info, io.BytesIO(text))
        >>> ds = paddle.text.Imikolov(data_file="ptb.tgz", data_type="NGRAM", window_size=2, min_word_freq=0)
        >>> len(ds), [int(v) for v in ds[0]]
        (4, [2, 0])
    """

    URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
    MD5 = "30177ea32e27c525793142b6bf2c8e2d"

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train", min_word_freq=50,
                 download=True):
        self.data_type = data_type.upper()
        if self.data_type not in ("NGRAM", "SEQ"):
            raise ValueError(f"Imikolov: data_type must be 'NGRAM' or 'SEQ', got {data_type!r}")
        if self.data_type == "NGRAM" and window_size < 1:
            raise ValueError("Imikolov: NGRAM needs window_size >= 1")
        self.mode = check_mode("Imikolov", mode)
        self.window_size, self.min_word_freq = window_size, min_word_freq
        self.data_file = resolve("Imikolov", data_file, "imikolov", self.URL, self.MD5, download)
        with tarfile.open(self.data_file) as tar:
            train, valid = _lines(tar, _FILES["train"]), _lines(tar, _FILES["test"])
        self.word_idx = self._build_word_dict(train + valid)
        self.data = self._load(train if self.mode == "train" else valid)

    def _build_word_dict(self, lines):
        freq = collections.Counter()
        for line in lines:
            freq.update(line.split() + ["<s>", "<e>"])
        freq.pop("<unk>", None)
        words = sorted((w for w, c in freq.items() if c > self.min_word_freq), key=lambda w: (-freq[w], w))
        word_idx = {w: i for i, w in enumerate(words)}
        word_idx["<unk>"] = len(words)
        return word_idx

    def _load(self, lines):
        unk, out = self.word_idx["<unk>"], []
        for line in lines:
            if self.data_type == "NGRAM":
                ids = [self.word_idx.get(w, unk) for w in ["<s>"] + line.split() + ["<e>"]]
                n = self.window_size
                out += [tuple(ids[i - n:i]) for i in range(n, len(ids) + 1)]
            else:
                ids = [self.word_idx.get(w, unk) for w in line.split()]
                src, trg = [self.word_idx["<s>"]] + ids, ids + [self.word_idx["<e>"]]
                if self.window_size > 0 and len(src) > self.window_size:
                    continue
                out.append((src, trg))
        return out

    def __getitem__(self, idx):
        return tuple(np.array(v, np.int64) for v in self.data[idx])

    def __len__(self):
        return len(self.data)
