"""Activation range calibration for post-training quantization (PaddleSlim's PTQ ``algo``): each observer sees the
values of one activation over the calibration batches and returns the threshold T of its symmetric int8 range
(the scale is ``T / 127``).

- ``abs_max``: the largest |x| seen.
- ``avg``: the mean over batches of each batch's largest |x| (Paddle's ``avg``).
- ``moving_average``: ``T = rate * T + (1 - rate) * batch abs max`` (Paddle's ``moving_average_abs_max``).
- ``hist``: the `hist_percent` quantile of |x|, from a histogram of `bins` bins over [0, abs max].
- ``KL``: the threshold minimizing the KL divergence between the |x| histogram clipped at it and that histogram
  quantized to 127 levels and expanded back over its non-empty bins (TensorRT's entropy calibration, Paddle's
  ``KL``; thresholds from half the range up, as Paddle). Exact zeros are left out of the histogram: int8
  represents 0 exactly at every scale, so they say nothing about the threshold, and after a ReLU their spike in
  the first bin made every wide candidate look bad (the search then picked a threshold 2-16x too tight).

Histogram algorithms take two passes over the data: the first finds the range, the second fills the bins.

Example:
    >>> batches = [np.linspace(-1, 1, 1000), np.linspace(-2, 2, 1000)]
    >>> obs = make_observer('abs_max')
    >>> for x in batches: obs.observe(x)
    >>> obs.threshold()
    2.0
"""
import numpy as np

ALGOS = ("abs_max", "avg", "moving_average", "hist", "KL")
LEVELS = 127  # positive levels of symmetric int8 (values 1..127)


class AbsMax:
    passes = 1

    def __init__(self):
        self.value = 0.0

    def observe(self, x):
        self.value = max(self.value, float(np.max(np.abs(x))) if x.size else 0.0)

    def threshold(self):
        return self.value


class Avg(AbsMax):
    def __init__(self):
        self.total, self.n = 0.0, 0

    def observe(self, x):
        self.total += float(np.max(np.abs(x))) if x.size else 0.0
        self.n += 1

    def threshold(self):
        return self.total / max(self.n, 1)


class MovingAverage(AbsMax):
    def __init__(self, rate=0.9):
        self.rate, self.value = rate, None

    def observe(self, x):
        m = float(np.max(np.abs(x))) if x.size else 0.0
        self.value = m if self.value is None else self.rate * self.value + (1 - self.rate) * m

    def threshold(self):
        return self.value or 0.0


class Histogram:
    """|x| histogram over [0, abs max]; `threshold` by percentile (``hist``) or by KL divergence (``KL``)."""
    passes = 2

    def __init__(self, bins=2048, method="KL", percent=0.99999):
        self.bins, self.method, self.percent = int(bins), method, float(percent)
        self.max, self.hist, self.second = 0.0, None, False

    def start_second_pass(self):
        self.second = True
        self.hist = np.zeros(self.bins, np.int64)

    def observe(self, x):
        a = np.abs(np.asarray(x, np.float64)).reshape(-1)
        if not self.second:
            self.max = max(self.max, float(a.max()) if a.size else 0.0)
        elif self.max > 0:
            if self.method == "KL":
                a = a[a > 0]
            self.hist += np.histogram(np.minimum(a, self.max), bins=self.bins, range=(0.0, self.max))[0]

    def threshold(self):
        if self.hist is None or self.max == 0 or not self.hist.any():
            return self.max
        width = self.max / self.bins
        if self.method == "hist":
            cdf = np.cumsum(self.hist) / self.hist.sum()
            return (int(np.searchsorted(cdf, self.percent)) + 1) * width
        return (kl_bins(self.hist) + 0.5) * width


def kl_bins(hist, levels=LEVELS):
    """The number of histogram bins to keep (larger values clipped into the last kept bin) that minimizes
    KL(P || Q): P is the clipped histogram, Q the kept bins merged into `levels` groups and each group's count
    spread evenly over the group's bins that P has non-empty (TensorRT's expansion). As Paddle's
    ``cal_kl_threshold``, candidates start at half the bins and end on a non-empty bin: clipping most of a
    distribution into its last bin makes P and Q both nearly one spike, a KL near 0 that destroys the data
    (a normalised MNIST input, 90% background, was clipped at the background value).

    Example:
        >>> kl_bins(np.ones(1024, np.int64))     # nothing to clip: keep every bin
        1024
    """
    n = len(hist)
    if n <= levels:
        return n
    hist = np.asarray(hist, np.float64)
    tail = np.cumsum(hist[::-1])[::-1]  # tail[i]: the count of bins i and above
    best, best_kl = n, np.inf
    for i in range(max(levels, (n - 1) // 2), n + 1):
        if hist[i - 1] == 0:
            continue
        kept = hist[:i]
        p = kept.copy()
        if i < n:
            p[-1] += tail[i]
        group = (np.arange(i) * levels) // i
        nonzero = p > 0
        sums = np.bincount(group, weights=kept, minlength=levels)
        counts = np.bincount(group, weights=nonzero, minlength=levels)
        q = np.where(nonzero, sums[group] / np.maximum(counts[group], 1), 0.0)
        ps, qs = p.sum(), q.sum()
        if qs == 0:
            continue
        p, q = p[nonzero] / ps, np.maximum(q[nonzero] / qs, 1e-12)  # q = 0 where p > 0: a group of clipped mass only
        kl = float(np.sum(p * np.log(p / q)))
        if kl < best_kl - 1e-12:
            best, best_kl = i, kl
    return best


def make_observer(algo, bins=2048, hist_percent=0.99999, moving_rate=0.9):
    """An observer for calibration algorithm `algo` (one of `ALGOS`)."""
    if algo == "abs_max":
        return AbsMax()
    if algo == "avg":
        return Avg()
    if algo == "moving_average":
        return MovingAverage(moving_rate)
    if algo in ("hist", "KL"):
        return Histogram(bins, algo, hist_percent)
    raise ValueError(f"unknown calibration algo {algo!r}; choose one of {list(ALGOS)}")


def weight_scales(w, axis):
    """Symmetric int8 scales of weight `w`: per index of `axis` (per channel), or one when `axis` is None."""
    a = np.abs(w)
    m = a.max() if axis is None else a.max(axis=tuple(d for d in range(w.ndim) if d != axis))
    return np.maximum(np.asarray(m, np.float32) / 127.0, np.float32(1e-12)).astype(w.dtype)
