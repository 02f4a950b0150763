"""The eager backward walk's paths give the same gradients: `Tensor.backward` (one root: the written-out entry, rules
of single-output nodes called inline), `oar.autograd.backward` of several roots, and `oar.grad` (captures, hooks run
without storing), on a graph with a multi-output op, an unused output, a tensor used twice, a shared intermediate,
hooks and retain_graph; all against gradients worked out with NumPy."""
import numpy as np
import pytest

import oar


def _inputs():
    rng = np.random.default_rng(0)
    x = oar.to_tensor(rng.standard_normal((4, 3)), stop_gradient=False)
    w = oar.to_tensor(rng.standard_normal((3, 5)), stop_gradient=False)
    b = oar.to_tensor(rng.standard_normal(5), stop_gradient=False)
    return x, w, b


def _loss(x, w, b, hook=True):
    h = oar.matmul(x, w) + b
    if hook:
        h.register_hook(lambda g: g * 2.0)
    r = oar.maximum(h, 0.0)
    p0, _ = oar.split(r, [2, 3], axis=1)  # multi-output; the second output gets no gradient
    return oar.mean(p0 * p0) + oar.mean(r)  # p0 used twice; r feeds split and mean


def _reference(x, w, b, hook=True):
    x, w, b = x.numpy(), w.numpy(), b.numpy()
    h = x @ w + b
    r = np.maximum(h, 0.0)
    dr = np.full(r.shape, 1.0 / r.size)
    dr[:, :2] += 2.0 * r[:, :2] / r[:, :2].size
    dh = dr * (h >= 0) * (2.0 if hook else 1.0)
    return dh @ w.T, x.T @ dh, dh.sum(0)


def test_tensor_backward_matches_numpy():
    x, w, b = _inputs()
    _loss(x, w, b).backward()
    for got, want in zip((x.grad, w.grad, b.grad), _reference(x, w, b)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_oar_grad_matches_tensor_backward():
    x, w, b = _inputs()
    got = oar.grad(_loss(x, w, b), [x, w, b])
    assert x.grad is None and w.grad is None  # captured, not delivered
    for g, want in zip(got, _reference(x, w, b)):
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)


def test_several_roots_match_one_root_per_walk():
    x, w, b = _inputs()
    oar.autograd.backward([_loss(x, w, b), _loss(x, w, b, hook=False)])
    several = [t.grad.numpy() for t in (x, w, b)]
    for t in (x, w, b):
        t.clear_grad(set_to_zero=False)
    _loss(x, w, b).backward()
    _loss(x, w, b, hook=False).backward()
    for t, s, a, c in zip((x, w, b), several, _reference(x, w, b), _reference(x, w, b, hook=False)):
        np.testing.assert_allclose(t.grad.numpy(), s, rtol=1e-12)
        np.testing.assert_allclose(s, a + c, rtol=1e-12)


def test_retain_graph_twice_accumulates():
    x, w, b = _inputs()
    loss = _loss(x, w, b)
    loss.backward(retain_graph=True)
    loss.backward()
    for got, want in zip((x.grad, w.grad, b.grad), _reference(x, w, b)):
        np.testing.assert_allclose(got.numpy(), 2 * want, rtol=1e-12)


def test_output_hook_sees_and_replaces_the_gradient_on_the_inline_path():
    x = oar.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
    y = oar.exp(x)  # single-output, its rule reads its output
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 3.0)
    (y * 2.0).sum().backward()
    np.testing.assert_allclose(seen[0], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 6.0 * np.exp([1.0, -2.0, 3.0]), rtol=1e-6)


def test_a_dropped_output_read_by_its_rule_is_rebuilt():
    x = oar.to_tensor([0.5, 1.5], stop_gradient=False)
    loss = (oar.exp(x) * 2.0).sum()  # exp's output is not held by the caller: the rule reads the saved array
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.exp([0.5, 1.5]), rtol=1e-6)


def test_in_place_change_of_a_saved_input_is_still_caught():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 1.0
    loss = oar.matmul(y.reshape([1, 2]), oar.ones([2, 1])).sum()  # matmul's rule reads its inputs (a view of y)
    with oar.no_grad():
        y.scale_(2.0)
    with pytest.raises(RuntimeError, match="changed in place"):
        loss.backward()


def test_no_grad_vars_block_a_second_output_and_nothing_else():
    x = oar.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    a, b = oar.split(x * 2.0, 2)  # b is output 1 of split: reached through a (node, 1) edge
    loss = (a * b).sum() + (b * b).sum()
    (g,) = oar.grad(loss, x, no_grad_vars=[b], retain_graph=True)  # b a constant: only a's path counts
    np.testing.assert_allclose(g.numpy(), [12.0, 16.0, 0.0, 0.0])
    (g,) = oar.grad(loss, x)  # unblocked again
    np.testing.assert_allclose(g.numpy(), [12.0, 16.0, 2 * (2 + 2 * 6.0), 2 * (4 + 2 * 8.0)])


def test_clear_grad_of_a_read_only_gradient_buffer_makes_new_zeros():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    frozen = x.grad._data
    frozen.flags.writeable = False  # (as a buffer shared with something that must not change)
    x.clear_grad()
    assert x.grad.numpy().tolist() == [0.0, 0.0] and frozen.tolist() == [2.0, 4.0]
    (x * x).sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0]
