"""`cross_entropy` / `CrossEntropyLoss` over every combination of options against a NumPy reference written
from Paddle 2.x's rules (python/paddle/nn/functional/loss.py):

* hard labels ``[N]`` give a ``[N]`` loss with reduction='none', ``[N, 1]`` labels a ``[N, 1]`` one; soft labels
  and label smoothing keep the size-1 class dim;
* label smoothing turns hard labels into ``one_hot * (1 - eps) + eps / C`` (soft from then on, so
  ignore_index no longer applies);
* `weight` scales each sample by ``weight[label]`` (soft: ``label @ weight``); 'mean' divides by the summed
  weights of the non-ignored samples, or by the count of non-ignored samples without weights.
"""
import itertools

import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from nn_gradcheck import check_grad

T = oar.to_tensor
C = 4


def np_reference(x, label, soft, weight, ignore, reduction, axis, use_softmax, eps, label_has_class_dim):
    xc = np.moveaxis(x, axis, -1)
    if use_softmax:
        s = xc - xc.max(-1, keepdims=True)
        logp = s - np.log(np.exp(s).sum(-1, keepdims=True))
    else:
        logp = np.log(xc)
    if soft:
        lab = np.moveaxis(label, axis, -1)
    else:
        ids = np.squeeze(label, axis) if label_has_class_dim else label
    if eps > 0:
        lab = (np.eye(C)[ids] if not soft else lab) * (1 - eps) + eps / C
        soft = True
    if soft:
        loss = -(lab * logp).sum(-1)
        wg = lab @ weight if weight is not None else None
        valid = np.ones(loss.shape, bool)
    else:
        valid = ids != ignore
        safe = np.where(valid, ids, 0)
        loss = -np.take_along_axis(logp, safe[..., None], -1)[..., 0] * valid
        wg = weight[safe] * valid if weight is not None else None
    if wg is not None:
        loss = loss * wg
    if reduction == "none":
        return loss if (not soft and not label_has_class_dim) else np.expand_dims(loss, axis)
    if reduction == "sum":
        return loss.sum()
    if not valid.all() or wg is not None:
        denom = wg.sum() if wg is not None else valid.sum()
        return loss.sum() / (denom + (denom == 0))
    return loss.mean()


def make_case(soft, ignore, axis, use_softmax, class_dim, seed):
    r = np.random.default_rng(seed)
    shape = (5, C) if axis == -1 else (2, C, 3)
    x = r.normal(size=shape)
    if not use_softmax:  # probabilities
        e = np.exp(x)
        x = e / e.sum(axis, keepdims=True)
    if soft:
        lab = r.random(shape)
        lab /= lab.sum(axis, keepdims=True)
        return x, lab
    batch = (5,) if axis == -1 else (2, 3)
    ids = r.integers(0, C, batch)
    ids.flat[::2] = 1  # class 1 is present (and is the ignore_index in half the cases)
    return x, (np.expand_dims(ids, axis) if class_dim else ids)


# soft labels always carry the class dim, so class_dim=True is a hard-label option only
CASES = [c for c in itertools.product([False, True], [None, "w"], [-100, 1], ["none", "sum", "mean"], [-1, 1],
                                      [True, False], [0.0, 0.2], [False, True]) if not (c[0] and c[-1])]


@pytest.mark.parametrize("soft,weight,ignore,reduction,axis,use_softmax,eps,class_dim", CASES)
def test_cross_entropy_all_options(soft, weight, ignore, reduction, axis, use_softmax, eps, class_dim):
    x, lab = make_case(soft, ignore, axis, use_softmax, class_dim, seed=len(str((soft, axis, use_softmax))))
    w = np.array([0.5, 2.0, 1.0, 3.0]) if weight else None
    ref = np_reference(x, lab, soft, w, ignore, reduction, axis, use_softmax, eps, class_dim)
    kw = dict(weight=None if w is None else T(w), ignore_index=ignore, reduction=reduction, soft_label=soft,
              axis=axis, use_softmax=use_softmax, label_smoothing=eps)
    got = F.cross_entropy(T(x), T(lab), **kw)
    assert got.shape == list(np.shape(ref))
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-12)
    layer = nn.CrossEntropyLoss(**kw)
    np.testing.assert_allclose(layer(T(x), T(lab)).numpy(), ref, rtol=1e-10, atol=1e-12)
    if reduction == "mean":
        check_grad(lambda t: F.cross_entropy(t, T(lab), **kw), [x])


def test_all_labels_ignored_gives_zero_not_nan():
    x = np.random.default_rng(0).normal(size=(3, C))
    lab = np.full(3, 2)
    for w in (None, T(np.ones(C))):
        out = F.cross_entropy(T(x), T(lab), ignore_index=2, weight=w).numpy()
        assert out == 0.0


def test_label_shapes_are_checked_on_every_call_until_a_combination_passes():
    """Shapes are checked once per (input shape, label shape, axis, hard/soft): a failing pair fails every time, and
    a pair that passed as hard labels is checked again as soft labels."""
    x = T(np.zeros((3, 4), np.float32))
    for _ in range(2):
        with pytest.raises(ValueError, match=r"label shape \[2, 1\]"):
            F.cross_entropy(x, T(np.zeros((2, 1), np.int64)))
    F.cross_entropy(x, T(np.zeros((3, 1), np.int64)))
    F.cross_entropy(x, T(np.zeros((3, 1), np.int64)))
    with pytest.raises(ValueError, match=r"soft labels of shape \[3, 4\], got label shape \[3, 1\]"):
        F.cross_entropy(x, T(np.zeros((3, 1), np.float32)), soft_label=True)
    with pytest.raises(ValueError, match=r"label shape \[3, 2\]"):
        F.cross_entropy(x, T(np.zeros((3, 2), np.int64)))


@pytest.mark.parametrize("n", [2, 16, 32, 33, 100])
@pytest.mark.parametrize("label_shape", ["[N]", "[N, 1]"])
def test_mean_skips_ignored_labels_in_small_and_large_batches(n, label_shape):
    """'mean' divides by the count of non-ignored labels whether the batch is scanned in Python (small) or by NumPy."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    lab = rng.integers(0, 2, n)
    lab[n // 2] = 2  # the ignored class, once
    shaped = lab.reshape(n, 1) if label_shape == "[N, 1]" else lab
    got = F.cross_entropy(T(x), T(shaped), ignore_index=2).item()
    logp = x - x.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    keep = lab != 2
    want = -logp[np.arange(n), np.where(keep, lab, 0)][keep].mean()
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_has_finds_a_label_in_any_shape_and_dtype():
    from oar.kernels.loss import has
    for n in (3, 32, 33, 200):
        for dt in (np.int64, np.int32, np.uint8):
            a = np.arange(n, dtype=dt).reshape(-1, 1) % 7
            top = min(n, 7) - 1
            assert has(a, top) is True and has(a, top + 1) is False and has(a, -100) is False
    assert has(np.zeros((0, 1), np.int64), 0) is False
