"""WMT16 English-German (Multi30k, Paddle's ``wmt16.tar.gz``: tab-separated ``wmt16/train``, ``test``, ``val``)."""
import collections
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ._files import check_mode, resolve

START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"
TOTAL_WORDS = {"en": 11250, "de": 19220}


class WMT16(Dataset):
    """``(source ids, target ids, next target ids)`` per sentence pair, source language `lang` ('en' or 'de').
    Each dictionary is ``<s>, <e>, <unk>`` then the language's most frequent training words (ties in order of
    first appearance) up to its size. (Paddle counts the target dictionary's words from the *source* column, a
    bug; oar counts each language from its own column, and keeps the dictionaries in memory instead of writing
    ``DATA_HOME/wmt16/<lang>_<size>.dict``.)

    Example:
        >>> import io, tarfile
        >>> with tarfile.open("wmt16.tar.gz", "w:gz") as tar:
        ...     text = b"a cat\\teine katze\\na dog\\tein hund\\n"
        ...     for name in ("wmt16/train", "wmt16/test"):
        ...         info = tarfile.TarInfo(name); info.size = len(text); tar.addfile(info, io.BytesIO(text))
        >>> ds = paddle.text.WMT16(data_file="wmt16.tar.gz", mode="test", src_dict_size=5, trg_dict_size=6)
        >>> [a.tolist() for a in ds[0]]
        [[0, 3, 4, 1], [0, 3, 4], [3, 4, 1]]
    """

    URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
    MD5 = "0c38be43600334966403524a40dcd81e"

    def __init__(self, data_file=None, mode="train", src_dict_size=-1, trg_dict_size=-1, lang="en", download=True):
        self.mode = check_mode("WMT16", mode, ("train", "test", "val"))
        if lang not in ("en", "de"):
            raise ValueError(f"WMT16: lang must be 'en' or 'de', got {lang!r}")
        if src_dict_size <= 0 or trg_dict_size <= 0:
            raise ValueError("WMT16: src_dict_size and trg_dict_size must be positive numbers")
        self.lang, self.trg_lang = lang, "de" if lang == "en" else "en"
        self.src_dict_size = min(src_dict_size, TOTAL_WORDS[lang])
        self.trg_dict_size = min(trg_dict_size, TOTAL_WORDS[self.trg_lang])
        self.data_file = resolve("WMT16", data_file, "wmt16", self.URL, self.MD5, download)
        with tarfile.open(self.data_file) as tar:
            train = self._pairs(tar, "train")
            self._dicts = {lang: self._build_dict(train, lang, self.src_dict_size),
                           self.trg_lang: self._build_dict(train, self.trg_lang, self.trg_dict_size)}
            pairs = train if self.mode == "train" else self._pairs(tar, self.mode)
        self.src_dict, self.trg_dict = self._dicts[lang], self._dicts[self.trg_lang]
        self._load(pairs)

    def _pairs(self, tar, split):
        try:
            f = tar.extractfile(f"wmt16/{split}")
        except KeyError:
            raise ValueError(f"WMT16: {self.data_file!r} has no wmt16/{split}") from None
        rows = (line.decode("utf-8").strip().split("\t") for line in f)
        return [r for r in rows if len(r) == 2]

    @staticmethod
    def _build_dict(pairs, lang, size):
        col = 0 if lang == "en" else 1
        counts = collections.Counter(w for p in pairs for w in p[col].split())
        words = [w for w, _ in sorted(counts.items(), key=lambda x: x[1], reverse=True)][:max(size - 3, 0)]
        return {w: i for i, w in enumerate([START_MARK, END_MARK, UNK_MARK] + words)}

    def _load(self, pairs):
        start, end, unk = (self.src_dict[m] for m in (START_MARK, END_MARK, UNK_MARK))
        src_col = 0 if self.lang == "en" else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for p in pairs:
            src = [start] + [self.src_dict.get(w, unk) for w in p[src_col].split()] + [end]
            trg = [self.trg_dict.get(w, unk) for w in p[1 - src_col].split()]
            self.src_ids.append(src)
            self.trg_ids.append([start] + trg)
            self.trg_ids_next.append(trg + [end])

    def get_dict(self, lang, reverse=False):
        """The word dictionary of `lang` ('en' or 'de'): word -> id, or id -> word with `reverse`."""
        d = self._dicts[lang]
        return {v: k for k, v in d.items()} if reverse else dict(d)

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)
