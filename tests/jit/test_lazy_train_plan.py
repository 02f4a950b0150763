"""The compiled plan of a lazy training step (`oar.lazy()`): the optimizer's updates are written into the parameters'
and accumulators' own arrays by one fused in-place update (the captured step's passes), and a gradient zeroed by
``clear_grad()`` takes the next backward's gradient as it is (no ``0 + g``). Each test compares with eager mode in
float64 where the shortcut would be wrong if it ignored what the user did between steps."""
import numpy as np

import oar
import oar.nn as nn
from oar.jit import lazy_graph as LG


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 5), nn.Linear(5, 3)

    def forward(self, x):
        return self.fc2(oar.nn.functional.relu(self.fc1(x)))


def _run(lazy, body, steps=4, opts=("adam",)):
    """`body(net, opts, x, y, step, seen)` for `steps` steps, lazily or eagerly; (parameters, seen values)."""
    oar.seed(3)
    net = _Net()
    made = {"adam": lambda: oar.optimizer.Adam(1e-2, parameters=net.parameters()),
            "sgd": lambda: oar.optimizer.SGD(0.1, parameters=net.parameters())}
    optimizers = [made[k]() for k in opts]
    r = np.random.default_rng(0)
    x, y = oar.to_tensor(r.standard_normal((8, 6))), oar.to_tensor(r.integers(0, 3, (8, 1)))
    seen = []
    for i in range(steps):
        if lazy:
            with oar.lazy():
                body(net, optimizers, x, y, i, seen)
        else:
            body(net, optimizers, x, y, i, seen)
    return [p.numpy() for p in net.parameters()], [np.asarray(v) for v in seen]


def _same_as_eager(body, **kw):
    want, want_seen = _run(False, body, **kw)
    got, got_seen = _run(True, body, **kw)
    for g, w in zip(got + got_seen, want + want_seen):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    return got_seen


def _loss(net, x, y):
    return nn.functional.cross_entropy(net(x), y)


def test_the_plan_updates_in_place_with_one_fused_update_and_no_add_into_the_zeroed_gradients(float64, monkeypatch):
    programs = []
    real = LG.compile_program
    monkeypatch.setattr(LG, "compile_program", lambda prog, *a: programs.append(prog) or real(prog, *a))
    monkeypatch.setattr(LG, "TRIE", LG._Trie())
    arrays, versions = [], []

    def body(net, opts, x, y, i, seen):
        _loss(net, x, y).backward()
        opts[0].step()
        opts[0].clear_grad()
        arrays.append([id(p._data) for p in net.parameters()])
        versions.append([p._version for p in net.parameters()])
    _same_as_eager(body)
    # one program for every step: the second step's gradients replaced the zeroed ones as the first step's did
    assert len(programs) == 1
    types = [op.type for op in programs[0].global_block().ops]
    assert types.count("multi_adam_update") == 1 and "adam_update" not in types and "assign" not in types
    lazy_arrays = arrays[4:]                                     # (the first four: the eager run's)
    assert all(a == lazy_arrays[0] for a in lazy_arrays)         # the parameters' own arrays, updated in place
    assert versions[4:] == versions[:4]                          # one version per step, as eager


def test_a_detached_parameter_keeps_its_old_values_as_in_eager(float64):
    def body(net, opts, x, y, i, seen):
        held = net.fc1.weight.detach()                           # shares the array: no in-place update of it
        _loss(net, x, y).backward()
        opts[0].step()
        opts[0].clear_grad()
        seen.append(held.numpy())
        seen.append(net.fc1.weight.numpy())
    seen = _same_as_eager(body)
    assert not np.array_equal(seen[0], seen[1])


def test_parameters_and_gradients_read_between_steps_equal_eagers(float64):
    def body(net, opts, x, y, i, seen):
        seen.append(net.fc2.bias.numpy())                        # a parameter observed mid-loop
        _loss(net, x, y).backward()
        seen.append(net.fc1.weight.grad.numpy())
        opts[0].step()
        opts[0].clear_grad()
        seen.append(net.fc1.weight.grad.numpy())                 # zeros
    seen = _same_as_eager(body)
    assert not seen[2].any() and seen[1].any()


def test_clear_grad_without_zeroing(float64):
    def body(net, opts, x, y, i, seen):
        _loss(net, x, y).backward()
        opts[0].step()
        opts[0].clear_grad(set_to_zero=False)
        seen.append(float(net.fc1.weight.grad is None))
    _same_as_eager(body)


def test_a_gradient_written_after_clear_grad_is_added_to(float64):
    def body(net, opts, x, y, i, seen):
        if i:
            with oar.no_grad():                                  # no longer zero: 0.5 + g
                net.fc1.weight.grad.add_(oar.full(net.fc1.weight.shape, 0.5))
        _loss(net, x, y).backward()
        seen.append(net.fc1.weight.grad.numpy())
        opts[0].step()
        opts[0].clear_grad()
    seen = _same_as_eager(body)
    assert len(seen) == 4


def test_two_backwards_accumulate_before_the_step(float64):
    def body(net, opts, x, y, i, seen):
        _loss(net, x, y).backward()
        (_loss(net, x * 2.0, y) * 0.5).backward()                # the second adds to the first
        seen.append(net.fc2.weight.grad.numpy())
        opts[0].step()
        opts[0].clear_grad()
    _same_as_eager(body)


def test_two_optimizers_over_shared_parameters(float64):
    def body(net, opts, x, y, i, seen):
        _loss(net, x, y).backward()
        opts[0].step()                                           # Adam, then SGD on the same gradients
        opts[1].step()
        opts[0].clear_grad()
        opts[1].clear_grad()
        seen.append(net.fc2.bias.numpy())
    _same_as_eager(body, opts=("adam", "sgd"))
