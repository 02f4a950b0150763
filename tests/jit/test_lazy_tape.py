"""The tape under `oar.lazy()` when the eager walk runs it (a hook, `oar.grad`): the gradient rules read the
stand-ins recorded for the outputs they need (`_stand_in`), also after the outputs were dropped or the graph ran."""
import numpy as np
import pytest

import oar
from oar.ops.nn.rnn import lstm_cell


def _lstm_loss(x, h, ws, hook=None, observe=False):
    """Two LSTM steps and tanh; the steps' outputs are dropped (only their stand-ins stay on the tape), except the
    first h when a hook is registered on it (kept alive: the hook runs in eager mode while it lives)."""
    h1, c1 = lstm_cell(x, h, h, *ws)
    if hook is not None:
        h1.register_hook(hook)
        _KEEP.append(h1)
    h2, c2 = lstm_cell(x, h1, c1, *ws)
    y = oar.tanh(h2 + c2)
    del h1, c1, h2, c2
    if observe:
        y.numpy()  # the graph runs before backward: the stand-ins are computed then
    return (y * y).sum()


_KEEP = []


def _inputs():
    r = np.random.default_rng(0)
    x = oar.to_tensor(r.standard_normal((3, 4)), stop_gradient=False)
    h = oar.to_tensor(r.standard_normal((3, 5)))
    ws = [oar.to_tensor(r.standard_normal(s) * 0.3, stop_gradient=False) for s in ((20, 4), (20, 5), (20,), (20,))]
    return x, h, ws


@pytest.mark.parametrize("observe", [False, True])
def test_a_hook_on_a_lazy_intermediate_walks_the_stand_ins(observe):
    got, want = [], []
    x, h, ws = _inputs()
    _lstm_loss(x, h, ws, want.append).backward()
    eager = [t.grad.numpy() for t in [x] + ws]
    x, h, ws = _inputs()
    with oar.lazy():
        _lstm_loss(x, h, ws, got.append, observe).backward()
    _KEEP.clear()
    assert len(got) == len(want) == 1
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-12, atol=1e-12)
    for t, e in zip([x] + ws, eager):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("observe", [False, True])
def test_oar_grad_on_a_lazy_graph_reads_the_stand_ins(observe):
    x, h, ws = _inputs()
    want = [g.numpy() for g in oar.grad(_lstm_loss(x, h, ws), [x] + ws)]
    with oar.lazy():
        got = oar.grad(_lstm_loss(x, h, ws, observe=observe), [x] + ws)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12)


def test_the_eager_walk_under_lazy_through_an_op_of_many_outputs():
    """`split` makes as many outputs as asked: the tape keeps what its rule needs of each of them."""
    def loss(x, seen):
        a, b, c = oar.split(x * 2.0, 3, axis=1)
        b.register_hook(lambda g: seen.append(g.numpy()))  # a hook: the eager walk runs
        return (a * 3.0 + c * c).sum() + b.sum()
    want, got = [], []
    x = oar.to_tensor(np.arange(12.0).reshape(2, 6), stop_gradient=False)
    loss(x, want).backward()
    y = oar.to_tensor(np.arange(12.0).reshape(2, 6), stop_gradient=False)
    with oar.lazy():
        loss(y, got).backward()
    np.testing.assert_array_equal(y.grad.numpy(), x.grad.numpy())
    np.testing.assert_array_equal(got[0], want[0])
