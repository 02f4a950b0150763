"""WMT14 English-French (Paddle's shrunk ``wmt14.tgz``: ``src.dict``, ``trg.dict`` and tab-separated
``train/train``, ``test/test``, ``gen/gen`` files)."""
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ._files import check_mode, resolve

START, END, UNK_IDX = "<s>", "<e>", 2


def _first_words(f, size):
    out = {}
    for i, line in enumerate(f):
        if i >= size:
            break
        out[line.decode("utf-8").strip()] = i
    return out


class WMT14(Dataset):
    """``(source ids, target ids, next target ids)`` per sentence pair: the source is wrapped in ``<s> ... <e>``,
    the target starts with ``<s>`` and the next-word target ends with ``<e>``; the dictionaries keep the first
    `dict_size` lines of ``src.dict`` / ``trg.dict``, unknown words are id 2; pairs longer than 80 are dropped.

    Example:
        >>> import io, tarfile
        >>> with tarfile.open("wmt14.tgz", "w:gz") as tar:
        ...     for name, text in [("data/src.dict", b"<s>\\n<e>\\n<unk>\\nhello\\n"),
        ...                        ("data/trg.dict", b"<s>\\n<e>\\n<unk>\\nbonjour\\n"),
        ...                        ("data/train/train", b"hello world\\tbonjour\\n")]:
        ...         info = tarfile.TarInfo(name); info.size = len(text); tar.addfile(info, io.BytesIO(text))
        >>> ds = paddle.text.WMT14(data_file="wmt14.tgz", mode="train", dict_size=4)
        >>> [a.tolist() for a in ds[0]]
        [[0, 3, 2, 1], [0, 3], [3, 1]]
    """

    URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
    MD5 = "0791583d57d5beb693b9414c5b36798c"

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        self.mode = check_mode("WMT14", mode, ("train", "test", "gen"))
        if dict_size <= 0:
            raise ValueError(f"WMT14: dict_size must be a positive number, got {dict_size}")
        self.data_file = resolve("WMT14", data_file, "wmt14", self.URL, self.MD5, download)
        self.dict_size = dict_size
        with tarfile.open(self.data_file) as tar:
            members = {m.name: m for m in tar.getmembers()}
            self.src_dict = _first_words(tar.extractfile(self._one(members, "src.dict")), dict_size)
            self.trg_dict = _first_words(tar.extractfile(self._one(members, "trg.dict")), dict_size)
            self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
            for name in (n for n in members if n.endswith(f"{self.mode}/{self.mode}")):
                for line in tar.extractfile(name):
                    self._add(line.decode("utf-8").strip().split("\t"))

    def _one(self, members, suffix):
        names = [n for n in members if n.endswith(suffix)]
        if len(names) != 1:
            raise ValueError(f"WMT14: {self.data_file!r} should hold one '*{suffix}' file, found {len(names)}")
        return names[0]

    def _add(self, pair):
        if len(pair) != 2:
            return
        src = [self.src_dict.get(w, UNK_IDX) for w in [START] + pair[0].split() + [END]]
        trg = [self.trg_dict.get(w, UNK_IDX) for w in pair[1].split()]
        if len(src) > 80 or len(trg) > 80:
            return
        self.src_ids.append(src)
        self.trg_ids.append([self.trg_dict[START]] + trg)
        self.trg_ids_next.append(trg + [self.trg_dict[END]])

    def get_dict(self, reverse=False):
        """The source and target dictionaries (word -> id, or id -> word with `reverse`)."""
        if reverse:
            return {v: k for k, v in self.src_dict.items()}, {v: k for k, v in self.trg_dict.items()}
        return self.src_dict, self.trg_dict

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)
