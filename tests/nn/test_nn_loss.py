"""Every loss against a NumPy reference (values and, where differentiable, gradients)."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from nn_gradcheck import check_grad

rng = np.random.default_rng(4)
T = oar.to_tensor


def np_log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def test_cross_entropy_hard_labels():
    x = rng.normal(size=(5, 4))
    lab = np.array([0, 3, 1, 1, 2])
    lp = np_log_softmax(x)
    per = -lp[np.arange(5), lab]
    np.testing.assert_allclose(F.cross_entropy(T(x), T(lab)).numpy(), per.mean(), rtol=1e-12)
    np.testing.assert_allclose(F.cross_entropy(T(x), T(lab[:, None])).numpy(), per.mean(), rtol=1e-12)
    none = F.cross_entropy(T(x), T(lab), reduction="none")
    assert none.shape == [5]
    np.testing.assert_allclose(none.numpy(), per, rtol=1e-12)
    assert F.cross_entropy(T(x), T(lab[:, None]), reduction="none").shape == [5, 1]
    np.testing.assert_allclose(F.cross_entropy(T(x), T(lab), reduction="sum").numpy(), per.sum(), rtol=1e-12)
    # weight: weighted sum divided by the total weight
    w = np.array([0.5, 1.0, 2.0, 3.0])
    got = F.cross_entropy(T(x), T(lab), weight=T(w)).numpy()
    np.testing.assert_allclose(got, (per * w[lab]).sum() / w[lab].sum(), rtol=1e-12)
    # ignore_index: ignored samples count neither in the sum nor in the mean
    lab2 = np.array([0, -100, 1, 1, -100])
    keep = lab2 != -100
    got = F.cross_entropy(T(x), T(lab2)).numpy()
    np.testing.assert_allclose(got, per[keep].mean(), rtol=1e-12)
    got = F.cross_entropy(T(x), T(np.array([0, 2, 1, 1, 2])), ignore_index=2, weight=T(w)).numpy()
    m = np.array([True, False, True, True, False])
    lab3 = [0, 2, 1, 1, 2]
    per3 = -lp[np.arange(5), lab3] * w[lab3] * m
    np.testing.assert_allclose(got, per3.sum() / (w[lab3] * m).sum(), rtol=1e-12)
    check_grad(lambda t: F.cross_entropy(t, T(lab2)), [x])
    check_grad(lambda t: F.cross_entropy(t, T(lab), weight=T(w)), [x])


def test_cross_entropy_soft_smoothing_axis_no_softmax():
    x = rng.normal(size=(3, 4))
    soft = rng.random((3, 4))
    soft /= soft.sum(1, keepdims=True)
    lp = np_log_softmax(x)
    np.testing.assert_allclose(F.cross_entropy(T(x), T(soft), soft_label=True).numpy(),
                               (-(soft * lp).sum(1)).mean(), rtol=1e-12)
    check_grad(lambda t: F.cross_entropy(t, T(soft), soft_label=True), [x])
    lab = np.array([1, 0, 3])
    eps = 0.1
    smooth = np.eye(4)[lab] * (1 - eps) + eps / 4
    np.testing.assert_allclose(F.cross_entropy(T(x), T(lab), label_smoothing=eps).numpy(),
                               (-(smooth * lp).sum(1)).mean(), rtol=1e-12)
    # class axis 1 of a [N, C, L] input
    x3 = rng.normal(size=(2, 4, 3))
    lab3 = rng.integers(0, 4, (2, 3))
    lp3 = np_log_softmax(x3, axis=1)
    ref = -np.take_along_axis(lp3, lab3[:, None], axis=1)[:, 0]
    np.testing.assert_allclose(F.cross_entropy(T(x3), T(lab3), axis=1, reduction="none").numpy(), ref, rtol=1e-12)
    # use_softmax=False: input holds probabilities
    p = np.exp(lp)
    np.testing.assert_allclose(F.cross_entropy(T(p), T(lab), use_softmax=False).numpy(),
                               -np.log(p[np.arange(3), lab]).mean(), rtol=1e-12)
    check_grad(lambda t: F.cross_entropy(t, T(lab), use_softmax=False), [p])
    layer = nn.CrossEntropyLoss(reduction="sum")
    np.testing.assert_allclose(layer(T(x), T(lab)).numpy(), -lp[np.arange(3), lab].sum(), rtol=1e-12)
    with pytest.raises(IndexError, match=r"\[0, 4\)"):
        F.cross_entropy(T(x), T(np.array([0, 9, 1])))


def test_softmax_with_cross_entropy_and_nll():
    x = rng.normal(size=(4, 3))
    lab = np.array([[2], [0], [1], [1]])
    lp = np_log_softmax(x)
    loss, sm = F.softmax_with_cross_entropy(T(x), T(lab), return_softmax=True)
    np.testing.assert_allclose(loss.numpy(), -np.take_along_axis(lp, lab, 1), rtol=1e-12)
    np.testing.assert_allclose(sm.numpy(), np.exp(lp), rtol=1e-12)
    w = np.array([1.0, 2.0, 0.5])
    l1 = lab[:, 0]
    ref = (-lp[np.arange(4), l1] * w[l1]).sum() / w[l1].sum()
    np.testing.assert_allclose(F.nll_loss(T(lp), T(l1), weight=T(w)).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(nn.NLLLoss(reduction="none")(T(lp), T(l1)).numpy(), -lp[np.arange(4), l1])
    check_grad(lambda t: F.nll_loss(t, T(l1), ignore_index=0), [lp])


def test_regression_losses():
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)) * 2
    d = a - b
    np.testing.assert_allclose(F.mse_loss(T(a), T(b)).numpy(), (d ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(nn.MSELoss("sum")(T(a), T(b)).numpy(), (d ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(F.l1_loss(T(a), T(b), "none").numpy(), np.abs(d))
    ad = np.abs(d)
    huber = np.where(ad < 1.0, 0.5 * ad ** 2, ad - 0.5)
    np.testing.assert_allclose(F.smooth_l1_loss(T(a), T(b)).numpy(), huber.mean(), rtol=1e-12)
    huber2 = np.where(ad < 0.5, 0.5 * ad ** 2, 0.5 * ad - 0.125)
    np.testing.assert_allclose(nn.SmoothL1Loss(delta=0.5)(T(a), T(b)).numpy(), huber2.mean(), rtol=1e-12)
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss):
        check_grad(lambda t, fn=fn: fn(t, T(b)), [a])


def test_binary_losses():
    p = rng.uniform(0.05, 0.95, size=(4, 3))
    y = (rng.random((4, 3)) > 0.5).astype(np.float64)
    w = rng.random((4, 3))
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(F.binary_cross_entropy(T(p), T(y)).numpy(), bce.mean(), rtol=1e-12)
    np.testing.assert_allclose(nn.BCELoss(weight=T(w), reduction="sum")(T(p), T(y)).numpy(), (bce * w).sum(),
                               rtol=1e-12)
    z = rng.normal(size=(4, 3)) * 3
    s = 1 / (1 + np.exp(-z))
    ref = -(y * np.log(s) + (1 - y) * np.log(1 - s))
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(T(z), T(y)).numpy(), ref.mean(), rtol=1e-10)
    pw = np.array([1.0, 2.0, 3.0])
    ref = -(pw * y * np.log(s) + (1 - y) * np.log(1 - s))
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(pos_weight=T(pw))(T(z), T(y)).numpy(), ref.mean(), rtol=1e-10)
    check_grad(lambda t: F.binary_cross_entropy(t, T(y)), [p])
    check_grad(lambda t: F.binary_cross_entropy_with_logits(t, T(y), pos_weight=T(pw)), [z])
    # logs are clipped at -100 like Paddle
    assert float(F.binary_cross_entropy(T(np.array([0.0])), T(np.array([1.0])))) == pytest.approx(100.0)


def test_kl_margin_ctc():
    x = np_log_softmax(rng.normal(size=(3, 4)))
    t = rng.random((3, 4))
    t[0, 0] = 0.0
    ref = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)
    np.testing.assert_allclose(F.kl_div(T(x), T(t)).numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(nn.KLDivLoss("batchmean")(T(x), T(t)).numpy(), ref.sum() / 3, rtol=1e-12)
    check_grad(lambda a: F.kl_div(a, T(t), reduction="sum"), [x])
    a, b = rng.normal(size=5), rng.normal(size=5)
    lab = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    np.testing.assert_allclose(nn.MarginRankingLoss(0.3)(T(a), T(b), T(lab)).numpy(),
                               np.maximum(0, -lab * (a - b) + 0.3).mean(), rtol=1e-12)


def ctc_brute(logits, label, blank=0):
    """-log sum over all alignments that collapse to `label` (exhaustive: tiny T and C only)."""
    import itertools
    tn, c = logits.shape
    p = np.exp(np_log_softmax(logits))
    total = 0.0
    for path in itertools.product(range(c), repeat=tn):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(label):
            total += np.prod([p[t, k] for t, k in enumerate(path)])
    return -np.log(total)


def test_ctc_loss_matches_brute_force():
    logits = rng.normal(size=(4, 2, 3))  # T, N, C
    labels = np.array([[1, 2], [2, 2]])
    in_len, lab_len = np.array([4, 3]), np.array([2, 1])
    ref = np.array([ctc_brute(logits[:4, 0], [1, 2]), ctc_brute(logits[:3, 1], [2])])
    got = F.ctc_loss(T(logits), T(labels), T(in_len), T(lab_len), reduction="none").numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10)
    np.testing.assert_allclose(nn.CTCLoss()(T(logits), T(labels), T(in_len), T(lab_len)).numpy(),
                               (ref / lab_len).mean(), rtol=1e-10)
    check_grad(lambda t: F.ctc_loss(t, T(labels), T(in_len), T(lab_len), reduction="sum"), [logits])
