"""A whole training step converted by to_static: one program, same numbers as eager (oar/jit/train_step.py)."""
import numpy as np
import pytest

import oar
import oar.nn as nn


class LSTMLM(nn.Layer):
    def __init__(self, vocab=40, hidden=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        x = self.emb(tokens)
        h = c = oar.zeros([tokens.shape[0], self.cell.hidden_size])
        outs = []
        for t in range(tokens.shape[1]):
            y, (h, c) = self.cell(x[:, t], (h, c))
            outs.append(y)
        return self.out(oar.stack(outs, 1))


class LeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2D(1, 4, 5), nn.Conv2D(4, 6, 5)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc1, self.fc2 = nn.Linear(96, 20), nn.Linear(20, 10)

    def forward(self, x):
        x = self.pool(oar.nn.functional.relu(self.conv1(x)))
        x = self.pool(oar.nn.functional.relu(self.conv2(x)))
        return self.fc2(oar.nn.functional.relu(self.fc1(oar.flatten(x, 1))))


def _data(kind, n=3, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "linear":
        return [(rng.random((8, 20), dtype=np.float32), rng.integers(0, 5, (8, 1))) for _ in range(n)]
    if kind == "lstm":
        return [(rng.integers(0, 40, (4, 6)), rng.integers(0, 40, (4, 6, 1))) for _ in range(n)]
    return [(rng.random((4, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, (4, 1))) for _ in range(n)]


def _model(kind):
    oar.seed(1)
    return {"linear": lambda: nn.Linear(20, 5), "lstm": LSTMLM, "lenet": LeNet}[kind]()


def _step_fn(model, opt, loss_fn=None, sched=None):
    loss_fn = loss_fn or nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step()
        return loss
    return step


def _assert_same(m1, m2, atol=1e-5):
    for (n, a), b in zip(m1.named_parameters(), m2.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=atol, err_msg=n)


@pytest.mark.parametrize("kind,make_opt", [
    ("linear", lambda ps: oar.optimizer.Adam(0.01, parameters=ps)),
    ("lstm", lambda ps: oar.optimizer.SGD(0.5, parameters=ps)),
    ("lenet", lambda ps: oar.optimizer.Adam(0.01, parameters=ps)),
])
def test_twenty_captured_steps_equal_eager(kind, make_opt):
    data = [tuple(map(oar.to_tensor, d)) for d in _data(kind)]
    m_e, m_c = _model(kind), _model(kind)
    eager = _step_fn(m_e, make_opt(m_e.parameters()))
    captured = oar.jit.to_static(_step_fn(m_c, make_opt(m_c.parameters())))
    for i in range(20):
        le, lc = eager(*data[i % 3]), captured(*data[i % 3])
        np.testing.assert_allclose(float(lc), float(le), rtol=1e-5)
    _assert_same(m_e, m_c)
    assert len(captured.program_cache) == 1 and captured.concrete_program.train is not None


def test_one_program_holds_forward_backward_and_updates():
    m = _model("linear")
    opt = oar.optimizer.Adam(0.01, parameters=m.parameters())
    step = oar.jit.to_static(_step_fn(m, opt))
    step(*map(oar.to_tensor, _data("linear")[0]))
    text = str(step.concrete_program.main_program)
    assert "matmul" in text and "softmax_with_cross_entropy_grad" in text and "adam_update" in text
    runner = step.concrete_program.runner
    assert "multi_adam_update" in str(runner.fresh[0].program)  # the fuse_optimizer_updates pass ran


def test_alternating_captured_and_eager_steps_equal_eager_all_along():
    data = [tuple(map(oar.to_tensor, d)) for d in _data("linear")]
    m_e, m_a = _model("linear"), _model("linear")
    opt_e, opt_a = (oar.optimizer.Momentum(0.1, parameters=m.parameters()) for m in (m_e, m_a))
    eager, plain = _step_fn(m_e, opt_e), _step_fn(m_a, opt_a)
    captured = oar.jit.to_static(_step_fn(m_a, opt_a))
    for i in range(8):
        eager(*data[i % 3])
        (captured if i % 3 else plain)(*data[i % 3])
    _assert_same(m_e, m_a)


def test_state_dict_after_captured_steps_resumes_eagerly():
    data = [tuple(map(oar.to_tensor, d)) for d in _data("linear")]
    m_e, m_c = _model("linear"), _model("linear")
    opt_e, opt_c = (oar.optimizer.Adam(0.01, parameters=m.parameters()) for m in (m_e, m_c))
    eager = _step_fn(m_e, opt_e)
    captured = oar.jit.to_static(_step_fn(m_c, opt_c))
    for i in range(4):
        eager(*data[i % 3])
        captured(*data[i % 3])
    saved = {k: v.numpy().copy() for k, v in opt_c.state_dict().items()}
    assert len(saved) == 8   # moments and beta powers of both parameters, written by the captured steps
    opt_r = oar.optimizer.Adam(0.01, parameters=m_c.parameters())
    opt_r.set_state_dict(saved)
    resumed = _step_fn(m_c, opt_r)
    for i in range(4, 8):
        eager(*data[i % 3])
        resumed(*data[i % 3])
    _assert_same(m_e, m_c)


def test_lr_scheduler_clip_and_weight_decay_inside_the_step():
    data = [tuple(map(oar.to_tensor, d)) for d in _data("linear")]
    models, steps, scheds = [], [], []
    for convert in (False, True):
        m = _model("linear")
        sched = oar.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
        opt = oar.optimizer.Momentum(sched, parameters=m.parameters(), weight_decay=0.01,
                                     grad_clip=nn.ClipGradByGlobalNorm(0.5))
        fn = _step_fn(m, opt, sched=sched)
        models.append(m)
        scheds.append(sched)
        steps.append(oar.jit.to_static(fn) if convert else fn)
    for i in range(6):
        for s in steps:
            s(*data[i % 3])
    assert scheds[0].last_epoch == scheds[1].last_epoch == 6
    assert scheds[0]() == scheds[1]()
    _assert_same(*models)


def test_gradient_accumulation_over_micro_batches():
    data = [tuple(map(oar.to_tensor, d)) for d in _data("linear", n=4)]
    m_e, m_c = _model("linear"), _model("linear")
    loss_fn = nn.CrossEntropyLoss()

    def make(m):
        opt = oar.optimizer.Adam(0.01, parameters=m.parameters())

        def step(x0, y0, x1, y1):
            total = 0.0
            for x, y in ((x0, y0), (x1, y1)):
                loss = loss_fn(m(x), y) / 2
                loss.backward()
                total = total + loss
            opt.step()
            opt.clear_grad()
            return total
        return step
    eager, captured = make(m_e), oar.jit.to_static(make(m_c))
    for i in range(5):
        args = [t for d in (data[i % 4], data[(i + 1) % 4]) for t in d]
        np.testing.assert_allclose(float(captured(*args)), float(eager(*args)), rtol=1e-5)
    _assert_same(m_e, m_c)


def test_gradients_left_uncleared_are_fetched_into_grad():
    x, y = map(oar.to_tensor, _data("linear")[0])
    grads = []
    for convert in (False, True):
        m = _model("linear")
        opt = oar.optimizer.SGD(0.1, parameters=m.parameters())

        def step(x, y):
            loss = nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            return loss
        fn = oar.jit.to_static(step) if convert else step
        fn(x, y)
        fn(x, y)   # the second backward accumulates into the first one's .grad
        grads.append([p.grad.numpy().copy() for p in m.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)


def test_clear_grad_without_zeroing_and_minimize_with_backward():
    x, y = map(oar.to_tensor, _data("linear")[0])
    models = []
    for convert in (False, True):
        m = _model("linear")
        opt = oar.optimizer.SGD(0.1, parameters=m.parameters())

        def step(x, y):
            loss = nn.functional.cross_entropy(m(x), y)
            opt.minimize(loss)
            opt.clear_grad(set_to_zero=False)
            return loss
        fn = oar.jit.to_static(step) if convert else step
        for _ in range(3):
            fn(x, y)
        assert all(p.grad is None for p in m.parameters())
        models.append(m)
    _assert_same(*models)


def test_optimizer_step_in_a_static_program_outside_to_static_is_a_clear_error():
    m = nn.Linear(2, 1)
    opt = oar.optimizer.SGD(0.1, parameters=m.parameters())
    oar.enable_static()
    try:
        with pytest.raises(RuntimeError, match="outside a to_static function"):
            opt.step()
    finally:
        oar.disable_static()


def _scaled_step(m, opt, scaler):
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y, k):
        loss = loss_fn(m(x), y) * k
        scaler.scale(loss).backward()
        scaler.minimize(opt, loss)
        opt.clear_grad()
        return loss
    return step


@pytest.mark.parametrize("overflow_at", [None, 2])
def test_grad_scaler_inside_the_step_skips_overflowing_steps_like_eager(overflow_at):
    data = [tuple(map(oar.to_tensor, d)) for d in _data("linear")]
    models, scalers, steps = [], [], []
    for convert in (False, True):
        m = _model("linear")
        opt = oar.optimizer.Adam(0.01, parameters=m.parameters())
        scaler = oar.amp.GradScaler(init_loss_scaling=1024.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=1)
        step = _scaled_step(m, opt, scaler)
        models.append(m)
        scalers.append(scaler)
        steps.append(oar.jit.to_static(step) if convert else step)
    for i in range(6):
        k = oar.to_tensor(np.float32(np.inf if i == overflow_at else 1.0))
        for s in steps:
            s(*data[i % 3], k)
        assert scalers[0].get_loss_scaling() == scalers[1].get_loss_scaling()
    _assert_same(*models)


def test_batch_norm_dropout_and_adamw_inside_the_step():
    rng = np.random.default_rng(0)
    x, y = oar.to_tensor(rng.random((5, 6), dtype=np.float32)), oar.to_tensor(rng.integers(0, 3, (5, 1)))
    models, steps = [], []
    for convert in (False, True):
        oar.seed(3)
        m = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1D(8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 3))
        opt = oar.optimizer.AdamW(0.01, parameters=m.parameters(), weight_decay=0.05)
        step = _step_fn(m, opt)
        models.append(m)
        steps.append(oar.jit.to_static(step) if convert else step)
    for i in range(5):
        losses = []
        for s in steps:
            oar.seed(100 + i)   # the same dropout masks
            losses.append(float(s(x, y)))
        assert losses[0] == losses[1]
    for (n, a), b in zip(models[0].state_dict().items(), models[1].state_dict().values()):
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=n)   # running mean/variance too


def test_forward_values_the_backward_does_not_read_are_dropped_before_the_backward():
    from oar.graph.executor import _LINE_OPS
    m = nn.Sequential(nn.Linear(20, 16), nn.Tanh(), nn.Linear(16, 5))
    opt = oar.optimizer.SGD(0.1, parameters=m.parameters())
    step = oar.jit.to_static(_step_fn(m, opt))
    step(*map(oar.to_tensor, _data("linear")[0]))
    plan = step.concrete_program.runner.fresh[0]
    lines = plan.fn.source.splitlines()
    ops = plan.fn.__globals__[_LINE_OPS]                      # plan line number -> Operator
    later = {n for op in ops.values() if op.role is not None for n in op.input_names()}
    first_backward = min(ln for ln, op in ops.items() if op.role is not None)
    dropped = 0
    for ln, op in ops.items():
        if op.role is None and ln < first_backward:
            lhs = lines[ln - 1].split("=")[0].replace(",", " ").split()
            for local, name in zip(lhs, op.output_names()):
                if name in later or name in plan.fetch_names:
                    continue
                dels = [k for k, text in enumerate(lines, 1) if text.strip().startswith("del ") and
                        local in text.replace(",", " ").split()[1:]]
                assert dels and dels[0] < first_backward, (name, lines)
                dropped += 1
    assert dropped >= 2, dropped


def _plateau_step(m, opt, sched):
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(m(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step(loss)   # needs the loss value: runs on the host after the program
        return loss
    return step


def test_reduce_on_plateau_steps_on_the_fetched_loss_after_each_run():
    x, y = map(oar.to_tensor, _data("linear")[0])
    scheds, models = [], []
    for convert in (False, True):
        m = _model("linear")
        sched = oar.optimizer.lr.ReduceOnPlateau(0.5, patience=0, factor=0.5, mode="max")  # loss falls: reduce
        opt = oar.optimizer.SGD(sched, parameters=m.parameters())
        step = _plateau_step(m, opt, sched)
        fn = oar.jit.to_static(step) if convert else step
        for _ in range(4):
            fn(x, y)
        models.append(m)
        scheds.append(sched)
    assert scheds[0].last_lr == scheds[1].last_lr < 0.5
    _assert_same(*models)
