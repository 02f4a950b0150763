"""Metric base class, top-k `Accuracy`, and the functional `accuracy` built from ops (so it also builds in a
static Program)."""
import numpy as np

from ..ops.logic import any as any_, equal
from ..ops.manipulation import reshape
from ..ops.math import cast
from ..ops.metric import auc_area, auc_histograms, positive_scores
from ..ops.reduction import mean, sum as sum_
from ..ops.search import argmax, argsort, topk


def _label_column(label):
    """Labels as an int [N, 1] column: accepts [N], [N, 1] or a one-hot / soft [N, C] label."""
    if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
        return reshape(label, [-1, 1])
    return argmax(label, axis=-1, keepdim=True)


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of a batch: the fraction of rows whose ``label`` is among the ``k`` largest of ``input``.

    Args:
        input (Tensor): scores, float [N, C].
        label (Tensor): int64 [N, 1] (or [N]) class ids.
        k (int): how many top scores count as a hit. Default 1.
        correct, total (Tensor, optional): when given, receive the hit count and the row count (int64).

    Returns:
        Tensor: float32 scalar.

    Example:
        >>> pred = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
        >>> label = paddle.to_tensor([[1], [1], [1]])
        >>> round(float(paddle.metric.accuracy(pred, label)), 4)
        0.6667
        >>> float(paddle.metric.accuracy(pred, label, k=2))
        1.0
    """
    if len(input.shape) != 2:
        raise ValueError(f"accuracy: input must be scores of shape [N, C], got shape {list(input.shape)}")
    _, idx = topk(input, k)
    hit = any_(equal(idx, cast(_label_column(label), idx.dtype)), axis=1)
    acc = mean(cast(hit, "float32"))
    if correct is not None:
        correct.set_value(np.asarray(sum_(cast(hit, "int64")).numpy()).reshape(correct.shape))
    if total is not None:
        total.set_value(np.asarray(input.shape[0], np.int64).reshape(total.shape))
    return acc


class Metric:
    """Base of stateful metrics: ``compute`` (optional, on tensors, per batch) feeds ``update`` (on NumPy),
    ``accumulate`` gives the result since the last ``reset``; ``name`` labels it in logs.

    Example:
        >>> class Mean(paddle.metric.Metric):
        ...     def __init__(self):
        ...         self.reset()
        ...     def reset(self):
        ...         self.s, self.n = 0.0, 0
        ...     def update(self, x):
        ...         self.s, self.n = self.s + float(np.sum(x)), self.n + np.size(x)
        ...     def accumulate(self):
        ...         return self.s / self.n
        ...     def name(self):
        ...         return "mean"
        >>> m = Mean(); m.update(np.array([1.0, 3.0])); m.accumulate()
        2.0
    """

    def reset(self):
        raise NotImplementedError(f"{type(self).__name__} must define reset()")

    def update(self, *args):
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def accumulate(self):
        raise NotImplementedError(f"{type(self).__name__} must define accumulate()")

    def name(self):
        raise NotImplementedError(f"{type(self).__name__} must define name()")

    def compute(self, *args):
        """Per-batch preprocessing on tensors; the default passes the inputs through to ``update``."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy accumulated over batches.

    Args:
        topk (int | tuple[int]): the k values to report. Default (1,).
        name (str, optional): the metric's name prefix. Default 'acc'.

    Example:
        >>> m = paddle.metric.Accuracy()
        >>> pred = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2]])
        >>> correct = m.compute(pred, paddle.to_tensor([[1], [1]]))
        >>> m.update(correct)
        0.5
        >>> _ = m.update(m.compute(pred, paddle.to_tensor([[1], [0]])))
        >>> m.accumulate(), m.name()
        (0.75, ['acc'])
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        self.topk = (topk,) if isinstance(topk, int) else tuple(topk)
        self.maxk = max(self.topk)
        base = name or "acc"
        self._name = [f"{base}_top{k}" for k in self.topk] if self.maxk != 1 else [base]
        self.reset()

    def compute(self, pred, label, *args):
        """A float32 [N, maxk] tensor: 1 where the i-th best score of a row is its label."""
        order = argsort(pred, axis=-1, descending=True)[..., :self.maxk]
        return cast(equal(order, cast(_label_column(label), order.dtype)), "float32")

    def update(self, correct, *args):
        """Adds a batch's ``compute`` result; returns this batch's accuracy (a list when several k)."""
        correct = np.asarray(correct.numpy() if hasattr(correct, "numpy") else correct)
        rows = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            accs.append(hits / rows if rows else 0.0)
            self.total[i] += hits
            self.count[i] += rows
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


def _as_numpy(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _binary_pairs(who, preds, labels):
    preds, labels = _as_numpy(preds), _as_numpy(labels)
    if preds.size != labels.size:
        raise ValueError(f"{who}.update: preds ({list(preds.shape)}) and labels ({list(labels.shape)}) must have one "
                         "value per sample (binary classification: preds are probabilities of class 1)")
    return np.rint(preds.reshape(-1)).astype(np.int64), labels.reshape(-1).astype(np.int64)


class Precision(Metric):
    """Binary precision ``tp / (tp + fp)``: a prediction counts as positive when it rounds to 1.

    Example:
        >>> m = paddle.metric.Precision()
        >>> m.update(np.array([0.1, 0.6, 0.8, 0.7]), np.array([0, 1, 0, 1]))
        >>> m.accumulate()
        0.6666666666666666
    """

    def __init__(self, name="precision", *args, **kwargs):
        self._name = name
        self.reset()

    def update(self, preds, labels):
        p, l = _binary_pairs("Precision", preds, labels)
        self.tp += int(np.sum((p == 1) & (l == 1)))
        self.fp += int(np.sum((p == 1) & (l != 1)))

    def reset(self):
        self.tp = self.fp = 0

    def accumulate(self):
        n = self.tp + self.fp
        return float(self.tp) / n if n else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall ``tp / (tp + fn)``: a prediction counts as positive when it rounds to 1.

    Example:
        >>> m = paddle.metric.Recall()
        >>> m.update(np.array([0.1, 0.6, 0.8, 0.2]), np.array([0, 1, 0, 1]))
        >>> m.accumulate()
        0.5
    """

    def __init__(self, name="recall", *args, **kwargs):
        self._name = name
        self.reset()

    def update(self, preds, labels):
        p, l = _binary_pairs("Recall", preds, labels)
        self.tp += int(np.sum((p == 1) & (l == 1)))
        self.fn += int(np.sum((p != 1) & (l == 1)))

    def reset(self):
        self.tp = self.fn = 0

    def accumulate(self):
        n = self.tp + self.fn
        return float(self.tp) / n if n else 0.0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve, from histograms of the class-1 probability (the last column of `preds`) over
    ``num_thresholds + 1`` bins (Paddle's approximation; exact when scores fall on distinct bins). The static form
    is `paddle.static.auc`, which computes the same numbers in a Program.

    Args:
        curve (str): 'ROC' (Paddle computes ROC for 'PR' too). num_thresholds (int): bins. name (str).

    Example:
        >>> m = paddle.metric.Auc()
        >>> preds = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
        >>> m.update(preds, np.array([[0], [1], [0], [1]]))
        >>> m.accumulate()
        1.0
    """

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        self._curve, self._num_thresholds, self._name = curve, int(num_thresholds), name
        self.reset()

    def update(self, preds, labels):
        pos, neg = auc_histograms(positive_scores(_as_numpy(preds)), _as_numpy(labels), self._num_thresholds)
        self._stat_pos += pos
        self._stat_neg += neg

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1, np.int64)
        self._stat_neg = np.zeros(self._num_thresholds + 1, np.int64)

    def accumulate(self):
        return auc_area(self._stat_pos, self._stat_neg)

    def name(self):
        return self._name
