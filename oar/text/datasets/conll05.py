"""CoNLL-2005 semantic-role labelling, the WSJ test section Paddle ships (``conll05st-tests.tar.gz`` with
``words`` / ``props`` files) plus its word, verb and label dictionaries."""
import gzip
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ._files import resolve

UNK_IDX = 0
_BASE = "http://paddlemodels.bj.bcebos.com/conll05st/"
_FILES = {"data": ("conll05st-tests.tar.gz", "387719152ae52d60422c016e92a742fc"),
          "word": ("wordDict.txt", "ea7fb7d4c75cc6254716f0177a506baa"),
          "verb": ("verbDict.txt", "0d2977293bbb6cbefab5b0f97db1e77c"),
          "target": ("targetDict.txt", "d8c7f03ceb5fc2e5a0fa7503a4353751"),
          "emb": ("emb", "bf436eb0faa1f6f9103017f8be57cdb7")}
WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def _bio(column):
    """One predicate's bracketed column ('(A0*', '*', '*)', '(V*)') as B-/I-/O tags."""
    tags, tag, inside = [], "O", False
    for cell in column:
        if cell == "*":
            tags.append(f"I-{tag}" if inside else "O")
        elif cell == "*)":
            tags.append(f"I-{tag}")
            inside = False
        elif "(" in cell:
            tag = cell[1:cell.find("*")]
            tags.append(f"B-{tag}")
            inside = ")" not in cell
        else:
            raise ValueError(f"Conll05st: unexpected label cell {cell!r}")
    return tags


class Conll05st(Dataset):
    """One sample per (sentence, predicate): ``(word ids, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, predicate ids,
    mark, label ids)``, the five context words around the verb repeated over the sentence, `mark` flagging the
    window. Labels are B-/I- per argument type and O (types in sorted order; Paddle uses set order).

    Example:
        >>> ds = paddle.text.Conll05st(data_file="conll05st-tests.tar.gz", word_dict_file="wordDict.txt",
        ...                            verb_dict_file="verbDict.txt", target_dict_file="targetDict.txt",
        ...                            download=False)                                      # doctest: +SKIP
    """

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None, target_dict_file=None,
                 emb_file=None, download=True):
        def get(key, given):
            name, md5 = _FILES[key]
            return resolve("Conll05st", given, "conll05st", _BASE + name, md5, download)
        self.data_file = get("data", data_file)
        self.word_dict = self._load_dict(get("word", word_dict_file))
        self.predicate_dict = self._load_dict(get("verb", verb_dict_file))
        self.label_dict = self._load_label_dict(get("target", target_dict_file))
        self.emb_file = get("emb", emb_file) if emb_file is not None or download else None
        self._load_anno()

    @staticmethod
    def _load_dict(path):
        with open(path, encoding="utf-8") as f:
            return {line.strip(): i for i, line in enumerate(f)}

    @staticmethod
    def _load_label_dict(path):
        with open(path, encoding="utf-8") as f:
            tags = sorted({line.strip()[2:] for line in f if line.strip()[:2] in ("B-", "I-")})
        d = {}
        for tag in tags:
            d[f"B-{tag}"], d[f"I-{tag}"] = len(d), len(d) + 1
        d["O"] = len(d)
        return d

    def _load_anno(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with tarfile.open(self.data_file) as tar, gzip.GzipFile(fileobj=tar.extractfile(WORDS)) as wf, \
                gzip.GzipFile(fileobj=tar.extractfile(PROPS)) as pf:
            words, rows = [], []
            for word, props in zip(wf, pf):
                word, props = word.strip().decode(), props.strip().decode().split()
                if props:
                    words.append(word)
                    rows.append(props)
                    continue
                if rows:   # end of a sentence: column 0 names the verbs, each later column is one predicate
                    columns = list(zip(*rows))
                    verbs = [v for v in columns[0] if v != "-"]
                    for verb, column in zip(verbs, columns[1:]):
                        self.sentences.append(words)
                        self.predicates.append(verb)
                        self.labels.append(_bio(column))
                words, rows = [], []

    def __getitem__(self, idx):
        sentence, labels, n = self.sentences[idx], self.labels[idx], len(self.sentences[idx])
        v = labels.index("B-V")
        mark = [0] * n
        for k in range(max(0, v - 2), min(n, v + 3)):
            mark[k] = 1
        ctx = [sentence[v + d] if 0 <= v + d < n else ("bos" if d < 0 else "eos") for d in (-2, -1, 0, 1, 2)]
        ids = [[self.word_dict.get(w, UNK_IDX)] * n for w in ctx]
        return (np.array([self.word_dict.get(w, UNK_IDX) for w in sentence]), *[np.array(i) for i in ids],
                np.array([self.predicate_dict.get(self.predicates[idx])] * n), np.array(mark),
                np.array([self.label_dict.get(t) for t in labels]))

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """The word, predicate and label dictionaries."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the word-embedding file (None when it was neither given nor downloaded)."""
        return self.emb_file
