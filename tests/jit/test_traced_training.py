"""Whole training steps (forward, loss.backward(), opt.step(), opt.clear_grad()) traced by `oar.jit.trace` (recorded,
not read from source) and run under `oar.lazy()` give eager's parameters: LinearNet, LeNet and an LSTM language
model, 20 steps, float64."""
import os
import sys

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.jit.recorder import TraceError
from oar.jit import lazy as L

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "static"))
from test_train_static import LeNet, LinearNet  # noqa: E402


class LSTMLM(nn.Layer):
    """Embedding -> LSTMCell over the tokens in a Python loop -> Linear: the LM of bench/trace_lazy.py, small."""

    def __init__(self, vocab=50, hidden=16):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        x = self.embedding(tokens)
        h = c = oar.zeros([tokens.shape[0], self.cell.hidden_size])
        outs = []
        for t in range(tokens.shape[1]):
            y, (h, c) = self.cell(x[:, t], (h, c))
            outs.append(y)
        return self.out(oar.stack(outs, 1))


def _batch(r, make):
    if make is LSTMLM:
        return oar.to_tensor(r.integers(0, 50, (4, 5))), oar.to_tensor(r.integers(0, 50, (4, 5, 1)))
    shape = [16, 784] if make is LinearNet else [4, 1, 28, 28]
    return oar.to_tensor(r.standard_normal(shape)), oar.to_tensor(r.integers(0, 10, (shape[0], 1)))


def _train(way, make, steps, lr_schedule=False):
    oar.seed(1)
    net = make()
    lr = oar.optimizer.lr.StepDecay(1e-2, step_size=3, gamma=0.5) if lr_schedule else 1e-3
    opt = oar.optimizer.Adam(lr, parameters=net.parameters())
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if lr_schedule:
            lr.step()
        return loss
    fn = oar.jit.trace(step) if way == "trace" else step
    r = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x, y = _batch(r, make)
        if way == "lazy":
            with oar.lazy():
                loss = fn(x, y)
        else:
            loss = fn(x, y)
        losses.append(loss.item())
    return [p.numpy() for p in net.parameters()], losses, fn


@pytest.mark.parametrize("make", [LinearNet, LeNet, LSTMLM], ids=["LinearNet", "LeNet", "LSTMLM"])
@pytest.mark.parametrize("way", ["trace", "lazy"])
def test_twenty_training_steps_give_eagers_parameters_float64(float64, make, way):
    steps = 20
    want, want_losses, _ = _train("eager", make, steps)
    before = (L.STATS.hits, L.STATS.misses)
    got, got_losses, fn = _train(way, make, steps)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-12)
    if way == "trace":
        # the first call delivers new gradients, the second accumulates into the zeroed ones: then one program
        assert fn.num_traces == 2 and "was None when traced" in fn.retrace_reasons[0]
        types = [op.type for op in fn.program.global_block().ops]
        assert "adam_update" in types and "zeros_like" in types
        # the program run went through the captured step's pipeline (train_passes): the updates write their own
        # parameters and accumulators (no trailing assign) and are one multi-tensor update
        run = [op.type for op in fn._last._run.run_program.global_block().ops]
        assert run.count("multi_adam_update") == 1 and "adam_update" not in run and "assign" not in run
        assert fn._last._run.passes[-3:] == list(oar.jit.train_step.train_passes())
    else:  # one graph per step, compiled once: later steps' gradients replace the zeroed ones (no 0 + g graph)
        hits, misses = L.STATS.hits - before[0], L.STATS.misses - before[1]
        assert misses == 1 and hits == steps - 1


def test_lazy_backward_is_one_record_and_leaves_grads_off_the_tape():
    net = nn.Linear(3, 2)
    x = oar.ones([4, 3])
    with oar.lazy():
        (net(x) * net(x)).sum().backward()
        graph = L._STATE.graphs[-1][0]
        assert [r.op.name for r in graph.records][-1] == "backward"   # no gradient op recorded one by one
        (net(x) * net(x)).sum().backward()                            # accumulated, as eager
    ref = nn.Linear(3, 2)
    ref.set_state_dict(net.state_dict())
    for _ in range(2):
        (ref(x) * ref(x)).sum().backward()
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
        assert p.grad._node is None and not p.grad.stop_gradient      # a leaf gradient, as eager leaves it


def test_lazy_backward_with_a_hook_walks_the_tape_eagerly():
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    seen = []
    with oar.lazy():
        y = w * 3.0
        y.register_hook(lambda g: seen.append(g.numpy().tolist()))
        y.sum().backward()
    assert seen == [[1.0, 1.0]] and w.grad.numpy().tolist() == [3.0, 3.0]


def test_a_traced_step_follows_the_lr_schedule(float64):
    want, _, _ = _train("eager", LinearNet, 8, lr_schedule=True)
    got, _, fn = _train("trace", LinearNet, 8, lr_schedule=True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    assert fn.num_traces == 2


def test_a_replaced_grad_retraces_or_raises():
    net = nn.Linear(3, 1)
    opt = oar.optimizer.SGD(0.1, parameters=net.parameters())

    def step(x):
        loss = net(x).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fn = oar.jit.trace(step, on_change="raise")
    x = oar.ones([2, 3])
    with pytest.raises(oar.jit.TraceGuardError, match=r"the .grad of '.*' was None when traced; now another"):
        fn(x), fn(x)
    fn = oar.jit.trace(step)                  # the gradients exist now: traced accumulating into them
    w0 = net.weight.numpy()
    fn(x), fn(x)
    net.weight.clear_grad(set_to_zero=False)  # the trace started from a gradient tensor: this call retraces
    fn(x)
    assert fn.num_traces == 2 and "was the gradient tensor it had then when traced; now None" in \
        fn.retrace_reasons[0]
    np.testing.assert_allclose(net.weight.numpy(), w0 - 3 * 0.1 * 2.0, rtol=1e-6)


def test_a_broken_guard_undoes_the_programs_parameter_update():
    net = nn.Linear(2, 1, bias_attr=False)
    net.weight.set_value(oar.ones([2, 1]))
    opt = oar.optimizer.SGD(0.5, parameters=net.parameters())

    def step(x):
        loss = net(x).sum()
        if loss > 0:                  # a Python decision: guarded
            loss = loss * 2.0
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fn = oar.jit.trace(step)
    ref = nn.Linear(2, 1, bias_attr=False)
    ref.weight.set_value(oar.ones([2, 1]))
    ropt = oar.optimizer.SGD(0.5, parameters=ref.parameters())
    for x in ([[1.0, 1.0]], [[1.0, 1.0]], [[1.0, 1.0]], [[-9.0, 1.0]]):
        fn(oar.to_tensor(x))
        loss = ref(oar.to_tensor(x)).sum()
        (loss * 2.0 if loss > 0 else loss).backward()
        ropt.step()
        ropt.clear_grad()
        np.testing.assert_allclose(net.weight.numpy(), ref.weight.numpy(), rtol=1e-6)
    assert any("bool() of a tensor" in r for r in fn.retrace_reasons)


def test_check_mode_of_a_traced_training_step(monkeypatch):
    net = nn.Linear(3, 2)
    opt = oar.optimizer.Adam(0.1, parameters=net.parameters())

    def step(x):
        loss = net(x).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    ref = nn.Linear(3, 2)
    ref.set_state_dict(net.state_dict())
    ropt = oar.optimizer.Adam(0.1, parameters=ref.parameters())
    fn = oar.jit.trace(step, check=True)
    x = oar.ones([4, 3])
    for _ in range(4):                    # the checked calls update the parameters once, as eager does
        fn(x)
        step_ref = ref(x).mean()
        step_ref.backward()
        ropt.step()
        ropt.clear_grad()
    np.testing.assert_allclose(net.weight.numpy(), ref.weight.numpy(), rtol=1e-6)
    from oar.jit import traced
    real = traced.Trace.run

    def wrong(self, tensors):
        out, broken, now = real(self, tensors)
        net.weight._data = net.weight._data + 1.0   # the program's update goes wrong
        return out, broken, now
    monkeypatch.setattr(traced.Trace, "run", wrong)
    fn = oar.jit.trace(step, check=True)
    fn(x)                                 # traced from the gradients left by the calls above: one program
    with pytest.raises(AssertionError, match="trace check: .*'linear"):
        fn(x)


def test_refuses_a_gradient_into_an_argument_and_a_metric_scheduler():
    def f(x):
        (x * x).sum().backward()
        return x * 1.0
    with pytest.raises(TraceError, match="not into its arguments"):
        oar.jit.trace(f)(oar.to_tensor([1.0, 2.0], stop_gradient=False))
    sched = oar.optimizer.lr.ReduceOnPlateau(0.1)
    with pytest.raises(TraceError, match="ReduceOnPlateau"):
        oar.jit.trace(lambda x: sched.step(x.sum()) or x * 2.0)(oar.ones([2]))


def test_lazy_check_mode_compares_the_compiled_gradients_with_the_eager_walk(monkeypatch):
    from oar.jit import lazy_graph as LG
    real = LG.gradients

    def doubled(targets, inputs, seeds, no_grad):
        return [None if g is None else g * 2.0 for g in real(targets, inputs, seeds, no_grad)]
    monkeypatch.setattr(LG, "gradients", doubled)
    monkeypatch.setattr(LG, "TRIE", LG._Trie())
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with oar.lazy():
        (w * w).sum().backward()           # without check mode the wrong gradient goes unnoticed
    assert w.grad.numpy().tolist() == [4.0, 8.0]
    w.clear_grad(set_to_zero=False)
    with pytest.raises(AssertionError, match=r"lazy check: the value of 'backward' at .*test_traced_training.py"):
        with oar.lazy(check=True):
            (w * w).sum().backward()


def test_a_traced_training_step_shares_one_learning_rate_feed_per_group():
    """Every parameter of a group reads one learning-rate tensor (as in the captured step), so the updates fuse."""
    net = LinearNet()
    opt = oar.optimizer.Adam(1e-3, parameters=net.parameters())

    def step(x, y):
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fn = oar.jit.trace(step)
    x, y = _batch(np.random.default_rng(0), LinearNet)
    fn(x, y)
    ops = [op for op in fn.program.global_block().ops if op.type == "adam_update"]
    assert len(ops) == 2 and len({op.inputs["lr"][0] for op in ops}) == 1
    assert len(fn._last.host_values) == 1


def test_a_traced_training_steps_output_carries_no_gradient_like_the_captured_steps():
    """The step already ran its backward: its program runs as a plan, not as a differentiable op, so the returned
    loss is a constant (as the captured step's) and a second backward on it says so instead of re-deriving."""
    results = {}
    for way in ("trace", "to_static"):
        oar.seed(0)
        net = nn.Linear(3, 2)
        opt = oar.optimizer.SGD(0.1, parameters=net.parameters())

        def step(x):
            loss = net(x).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        fn = getattr(oar.jit, way)(step)
        for _ in range(3):
            loss = fn(oar.ones([4, 3]))
        results[way] = (loss.stop_gradient, net.weight.numpy())
        with pytest.raises(RuntimeError, match="stop_gradient=True"):
            loss.backward()
    assert results["trace"][0] is True and results["to_static"][0] is True
    np.testing.assert_array_equal(results["trace"][1], results["to_static"][1])


def test_a_traced_training_step_with_a_build_strategy_runs_its_passes_then_the_training_ones(float64):
    bs = oar.static.BuildStrategy()
    bs.fuse_elewise_add_act_ops = True
    want, _, _ = _train("eager", LinearNet, 4)
    oar.seed(1)
    net = LinearNet()
    opt = oar.optimizer.Adam(1e-3, parameters=net.parameters())
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fn = oar.jit.trace(step, build_strategy=bs)
    r = np.random.default_rng(0)
    for _ in range(4):
        fn(*_batch(r, LinearNet))
    for g, w in zip([p.numpy() for p in net.parameters()], want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    run = fn._last._run
    assert run.passes[0] == "fuse_elewise_add_act" and run.passes[-3:] == list(oar.jit.train_step.train_passes())
    assert [op.type for op in run.run_program.global_block().ops].count("multi_adam_update") == 1
    fn._last.set_build_strategy(oar.static.BuildStrategy())   # replaces the earlier passes, keeps the training ones
    assert "fuse_elewise_add_act" not in run.passes and run.passes[-3:] == list(oar.jit.train_step.train_passes())
    fn(*_batch(r, LinearNet))
