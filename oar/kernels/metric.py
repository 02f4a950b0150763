"""Metric kernels: the histogram AUC (score histograms per class, the area under their ROC curve, the
streaming statistics update of the `auc` op), shared by the op and the eager `oar.metric.Auc`."""
from .backend import array_module


def positive_scores(predict):
    """The probability of class 1 for each row: the last column of an [N, C] input (C is 1 or 2), else the values."""
    xp = array_module(predict)
    predict = xp.asarray(predict)
    return predict[:, -1] if predict.ndim == 2 else predict.reshape(-1)


def auc_histograms(scores, labels, num_thresholds):
    """Counts of positive (label > 0) and negative (label == 0) samples per score bin ``int(score * num_thresholds)``
    (``num_thresholds + 1`` bins, int64). Raises ValueError for scores outside [0, 1] or a count mismatch."""
    xp = array_module(scores, labels, num_thresholds)
    labels = xp.asarray(labels).reshape(-1)
    if scores.shape[0] != labels.shape[0]:
        raise ValueError(f"auc: {scores.shape[0]} predictions but {labels.shape[0]} labels")
    if xp.any((scores < 0) | (scores > 1)) or xp.any(xp.isnan(scores)):
        raise ValueError("auc: predictions must be probabilities in [0, 1] (apply softmax or sigmoid first)")
    bins = (scores * num_thresholds).astype(xp.int64)
    n = num_thresholds + 1
    return (xp.bincount(bins[labels > 0], minlength=n).astype(xp.int64),
            xp.bincount(bins[labels == 0], minlength=n).astype(xp.int64))


def auc_area(stat_pos, stat_neg):
    """Area under the ROC curve traced by walking the bins from the highest score down (trapezoids), normalised by
    the positive and negative totals; 0.0 when either class is absent."""
    xp = array_module(stat_pos, stat_neg)
    pos = xp.cumsum(xp.asarray(stat_pos, xp.float64)[::-1])
    neg = xp.cumsum(xp.asarray(stat_neg, xp.float64)[::-1])
    if pos.size == 0 or pos[-1] <= 0 or neg[-1] <= 0:
        return 0.0
    prev_pos, prev_neg = xp.concatenate([[0.0], pos[:-1]]), xp.concatenate([[0.0], neg[:-1]])
    return float(xp.sum(xp.abs(neg - prev_neg) * (pos + prev_pos) / 2.0) / pos[-1] / neg[-1])


def auc_check(stat_pos, stat_neg, num_thresholds, slide_steps):
    size = (1 + slide_steps) * (num_thresholds + 1) + (1 if slide_steps else 0)
    for name, s in (("stat_pos", stat_pos), ("stat_neg", stat_neg)):
        if s.size < size:
            raise ValueError(f"auc: {name} holds {s.size} values; num_thresholds={num_thresholds} and "
                             f"slide_steps={slide_steps} need {size}")


def auc_update(predict, label, stat_pos, stat_neg, ins_tag_weight, curve, num_thresholds, slide_steps):
    """Adds the batch to copies of the statistics and returns (auc, stat_pos, stat_neg).

    ``slide_steps == 0``: the statistics start with one histogram of every batch seen ([1, num_thresholds + 1]).
    ``slide_steps > 0``: ``slide_steps`` histograms of recent batches, their sum, and a batch counter (flat,
    ``(slide_steps + 1) * (num_thresholds + 1) + 1`` values); this batch replaces the oldest. A batch whose
    ``ins_tag_weight`` is 0 (fake data) is counted in neither."""
    xp = array_module(predict, label, stat_pos, stat_neg, ins_tag_weight)
    auc_check(stat_pos, stat_neg, num_thresholds, slide_steps)
    n = num_thresholds + 1
    pos, neg = xp.array(stat_pos, xp.int64), xp.array(stat_neg, xp.int64)   # copies: inputs are never written
    fake = xp.asarray(ins_tag_weight).reshape(-1)[:1].tolist() == [0]
    batch_pos, batch_neg = auc_histograms(positive_scores(predict), label, num_thresholds)
    if fake:
        batch_pos, batch_neg = xp.zeros_like(batch_pos), xp.zeros_like(batch_neg)
    flat_pos, flat_neg = pos.reshape(-1), neg.reshape(-1)
    if slide_steps == 0:
        flat_pos[:n] += batch_pos
        flat_neg[:n] += batch_neg
        return xp.asarray(auc_area(flat_pos[:n], flat_neg[:n])), pos, neg
    counter = (slide_steps + 1) * n
    cur = int(flat_pos[counter]) % slide_steps
    for flat, batch in ((flat_pos, batch_pos), (flat_neg, batch_neg)):
        window = flat[cur * n:(cur + 1) * n]
        total = flat[slide_steps * n:(slide_steps + 1) * n]
        total += batch - window
        window[:] = batch
        flat[counter] += 1
    s = slice(slide_steps * n, (slide_steps + 1) * n)
    return xp.asarray(auc_area(flat_pos[s], flat_neg[s])), pos, neg
