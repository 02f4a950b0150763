"""The softmax cross entropy kernels' flat-index paths (one index per row for the label's entry) against NumPy, with
ignored rows, a class axis that is not last, and labels out of range (an error, never another row's entry)."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F


def _reference(logits, label, axis, ignore_index):
    x = np.moveaxis(logits, axis, -1)
    lab = np.moveaxis(label, axis, -1)[..., 0]
    p = np.exp(x - x.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    keep = lab != ignore_index
    safe = np.where(keep, lab, 0)
    picked = np.take_along_axis(p, safe[..., None], -1)[..., 0]
    loss = np.where(keep, -np.log(picked), 0.0)
    d = p.copy()
    np.put_along_axis(d, safe[..., None], picked[..., None] - 1, -1)
    d *= keep[..., None] / keep.sum()
    return loss.sum() / keep.sum(), np.moveaxis(d, -1, axis)


@pytest.mark.parametrize("axis", [-1, 1])
def test_loss_and_gradient_match_numpy(axis):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((6, 5, 3))
    shape = list(logits.shape)
    shape[axis] = 1
    label = rng.integers(0, logits.shape[axis], shape)
    label.reshape(-1)[[1, 4]] = -100  # ignored rows
    x = oar.to_tensor(logits, stop_gradient=False)
    loss = F.cross_entropy(x, oar.to_tensor(label), axis=axis)
    loss.backward()
    want_loss, want_grad = _reference(logits, label, axis % 3, -100)
    np.testing.assert_allclose(loss.item(), want_loss, rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), want_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("bad", [5, -1])
def test_a_label_out_of_range_is_an_error(bad):
    label = np.array([[0], [bad], [2]])  # 5 would be row 2's entry 0 in a flat index over 5 classes
    with pytest.raises(IndexError, match="labels must be in"):
        F.cross_entropy(oar.to_tensor(np.zeros((3, 5))), oar.to_tensor(label))
