"""Loss kernels: softmax cross entropy (hard or soft labels, ignore_index) and its gradient, the count of
non-ignored labels, and CTC (forward-backward in log space)."""

import numpy as np

from ..core.devices import RUNTIME
from .activation import log_softmax
from .backend import array_module, errstate


def pick(a, idx, axis):
    """``a`` at class ids ``idx`` (size-1 class dim) along `axis`; fancy indexing for the common last axis. The ids
    must be in range (`hard_index` checked them): a flat index does not catch one past its row."""
    xp = array_module(a, idx) if RUNTIME.types else np
    if axis == a.ndim - 1:
        c = a.shape[-1]
        if not c or not a.flags.c_contiguous:
            flat = a.reshape(-1, c)
            return flat[xp.arange(flat.shape[0]), idx.reshape(-1)].reshape(idx.shape)
        at = xp.arange(0, a.size, c)  # one flat index per row (row * classes + id): cheaper than a pair of arrays
        at += idx.reshape(-1)
        return a.reshape(-1)[at].reshape(idx.shape)
    return xp.take_along_axis(a, idx, axis=axis)


def all_class_ids(label, n_cls):
    """True when every label is in [0, n_cls): one reduction over the labels seen as unsigned (a negative label
    becomes huge), the common case's whole check."""
    if not label.size or label.dtype.kind != "i":
        return not label.size
    d = label.dtype
    u = _UNSIGNED.get(d)
    if u is None:  # (made once per label dtype: a dtype from a string costs more than the reduction)
        u = _UNSIGNED[d] = np.dtype(d.str.replace("i", "u"))
    if type(label) is np.ndarray:  # (the ufunc's reduce: `max` is a Python wrapper around it)
        return int(np.maximum.reduce(label.view(u), axis=None)) < n_cls
    return int(label.view(u).max()) < n_cls


_UNSIGNED = {}  # signed integer dtype -> the unsigned dtype of its size and byte order


def hard_index(label, ignore_index, n_cls):
    """(mask of non-ignored labels or None when none is ignored, labels safe to index with)."""
    xp = array_module(label) if RUNTIME.types else np
    if (ignore_index < 0 or ignore_index >= n_cls) and all_class_ids(label, n_cls):
        return None, label
    lo, hi = (label.min(), label.max()) if label.size else (0, 0)
    if lo > ignore_index or hi < ignore_index:
        mask, safe = None, label
    else:
        mask = label != ignore_index
        safe = xp.where(mask, label, 0)
        lo, hi = (safe.min(), safe.max()) if safe.size else (0, 0)
    if lo < 0 or hi >= n_cls:
        raise IndexError(f"labels must be in [0, {n_cls}) or equal ignore_index={ignore_index}, "
                         f"got values in [{int(label.min())}, {int(label.max())}]")
    return mask, safe


def softmax_parts(x, axis):
    """(shifted logits, exp of them, their sum): the pieces both the loss and its gradient need."""
    if RUNTIME.types and array_module(x) is not np:
        xp = array_module(x)
        sh = x - x.max(axis=axis, keepdims=True)
        e = xp.exp(sh)
        return sh, e, e.sum(axis=axis, keepdims=True)
    sh = x - np.maximum.reduce(x, axis=axis, keepdims=True)  # (the ufuncs' reduce: `max`/`sum` are Python wrappers)
    e = np.exp(sh)
    return sh, e, np.add.reduce(e, axis=axis, keepdims=True)


def swce(logits, label, soft_label, ignore_index, axis):
    """(loss, softmax): the softmax is a second output so the gradient need not recompute it."""
    xp = array_module(logits, label) if RUNTIME.types else np  # (the test costs less than the call)
    sh, e, se = softmax_parts(logits, axis)
    softmax = e / se
    if soft_label:
        loss = -(label * (sh - xp.log(se))).sum(axis=axis, keepdims=True)
        return loss.astype(logits.dtype, copy=False), softmax
    mask, safe = hard_index(label, ignore_index, logits.shape[axis])
    loss = xp.log(se) - pick(sh, safe, axis)  # -log_softmax at the label, without the full log_softmax
    if mask is not None:
        loss = loss * mask
    return loss.astype(logits.dtype, copy=False), softmax


def swce_grad(softmax, label, g, soft_label, ignore_index, axis):
    xp = array_module(softmax, label, g) if RUNTIME.types else np
    if soft_label:
        d = softmax * label.sum(axis=axis, keepdims=True) - label
        return (d * g).astype(softmax.dtype, copy=False)
    n_cls = softmax.shape[axis]
    ignorable = 0 <= ignore_index < n_cls or not all_class_ids(label, n_cls)
    mask = label != ignore_index if ignorable else None
    safe = label if mask is None else xp.where(mask, label, 0)  # labels were range-checked by the forward
    d = softmax.copy()
    if axis == d.ndim - 1:  # one flat index per row (row * classes + label): cheaper than a pair of index arrays
        c = d.shape[-1]
        at = xp.arange(0, d.size, c) if c else xp.zeros(safe.size, xp.intp)  # (no classes: the index fails below)
        at += safe.reshape(-1)
        flat = d.reshape(-1)  # (a view: `d` is a fresh contiguous copy)
        flat[at] -= 1
    else:
        xp.put_along_axis(d, safe, xp.take_along_axis(d, safe, axis=axis) - 1, axis=axis)
    d *= g if mask is None else g * mask
    return d


def count_valid(label, ignore_index, dtype):
    xp = array_module(label, ignore_index, dtype)
    n = xp.count_nonzero(label != ignore_index)
    return xp.asarray(max(n, 1), dtype=dtype)  # all ignored: the summed loss is 0, and so is the mean


def has(a, value):
    """Whether the integer array `a` holds `value` (a small host array by a Python scan: a label batch is
    usually a few dozen values, and NumPy's reductions cost ~1 us each however few; a negative value in larger
    non-negative labels: one reduction, no comparison)."""
    if type(a) is np.ndarray and a.size <= 32:
        return value in a.reshape(-1).tolist()
    if value < 0 and a.size:
        low = np.minimum.reduce(a, axis=None) if type(a) is np.ndarray else a.min()  # (`min`: a Python wrapper)
        if low >= 0:
            return False
    return bool((a == value).any())


def lse(*arrs):
    xp = array_module(*arrs)
    m = xp.maximum.reduce(arrs)
    safe = xp.where(xp.isfinite(m), m, 0)
    with errstate(xp, divide="ignore"):  # log(0) = -inf marks unreachable states
        return safe + xp.log(sum(xp.exp(a - safe) for a in arrs))


def ctc_one(lp, lab, blank):
    """Loss and d(loss)/d(logits) of one sequence; `lp` is [T, C] log-softmax."""
    xp = array_module(lp, lab, blank)
    t_len = lp.shape[0]
    ext = xp.full(2 * len(lab) + 1, blank, xp.int64)
    ext[1::2] = lab
    s_len = len(ext)
    skip = xp.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    ninf = -xp.inf
    alpha = xp.full((t_len, s_len), ninf)
    beta = xp.full((t_len, s_len), ninf)
    em = lp[:, ext]
    alpha[0, 0] = em[0, 0]
    if s_len > 1:
        alpha[0, 1] = em[0, 1]
    for t in range(1, t_len):
        a = alpha[t - 1]
        a1 = xp.concatenate([[ninf], a[:-1]])
        a2 = xp.where(skip, xp.concatenate([[ninf, ninf], a[:-2]]), ninf)
        alpha[t] = lse(a, a1, a2) + em[t]
    beta[-1, -1] = em[-1, -1]
    if s_len > 1:
        beta[-1, -2] = em[-1, -2]
    skip_next = xp.zeros(s_len, bool)
    skip_next[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        b = beta[t + 1]
        b1 = xp.concatenate([b[1:], [ninf]])
        b2 = xp.where(skip_next, xp.concatenate([b[2:], [ninf, ninf]]), ninf)
        beta[t] = lse(b, b1, b2) + em[t]
    ll = lse(alpha[-1, -1], alpha[-1, -2]) if s_len > 1 else alpha[-1, -1]
    gamma = alpha + beta - em  # log of the posterior mass through (t, s), times P
    grad = xp.exp(lp)
    post = xp.full((t_len, lp.shape[1]), ninf)
    for s in range(s_len):
        post[:, ext[s]] = lse(post[:, ext[s]], gamma[:, s])
    grad = grad - xp.exp(post - ll)
    return -ll, grad


def warpctc(logits, label, logits_length, labels_length, blank, norm_by_times):
    xp = array_module(logits, label, logits_length, labels_length, blank, norm_by_times)
    t_max, n, c = logits.shape
    loss = xp.zeros((n, 1), logits.dtype)
    grad = xp.zeros_like(logits)
    for i in range(n):
        t_i, l_i = int(logits_length[i]), int(labels_length[i])
        lp = log_softmax(logits[:t_i, i].astype(xp.float64), -1)
        li, gi = ctc_one(lp, label[i, :l_i], blank)
        loss[i, 0] = li
        grad[:t_i, i] = gi / t_i if norm_by_times else gi
    return loss, grad
