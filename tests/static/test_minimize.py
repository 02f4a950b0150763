"""Static `optimizer.minimize` gives the same parameter trajectory as the eager optimizer."""
import numpy as np
import pytest

import oar


def _data(seed):
    r = np.random.default_rng(seed)
    return r.standard_normal((8, 4)).astype("float32"), r.standard_normal((8, 3)).astype("float32")


@pytest.mark.parametrize("make", [
    lambda ps: oar.optimizer.SGD(0.1, parameters=ps),
    lambda ps: oar.optimizer.Momentum(0.1, momentum=0.9, parameters=ps),
    lambda ps: oar.optimizer.Adam(0.01, parameters=ps),
    lambda ps: oar.optimizer.AdamW(0.01, parameters=ps, weight_decay=0.1),
], ids=["sgd", "momentum", "adam", "adamw"])
def test_static_minimize_matches_eager(make):
    r = np.random.default_rng(0)
    w0, b0 = r.standard_normal((4, 3)).astype("float32"), r.standard_normal(3).astype("float32")
    # eager
    W = oar.Parameter(w0.copy(), name="W")
    B = oar.Parameter(b0.copy(), name="B")
    opt = make([W, B])
    eager = []
    for step in range(5):
        x, y = _data(step)
        loss = ((oar.matmul(oar.to_tensor(x), W) + B - oar.to_tensor(y)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        eager.append(loss.item())
    # static
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None, 4])
            y = oar.static.data("y", [None, 3])
            w = oar.static.create_parameter([4, 3], "float32", name="w",
                                            default_initializer=oar.nn.initializer.Assign(w0))
            b = oar.static.create_parameter([3], "float32", name="b",
                                            default_initializer=oar.nn.initializer.Assign(b0))
            loss = ((oar.matmul(x, w) + b - y) ** 2).mean()
            make(None).minimize(loss)
    finally:
        oar.disable_static()
    exe = oar.static.Executor()
    scope = oar.static.Scope()
    exe.run(startup, scope=scope)
    static = []
    for step in range(5):
        xv, yv = _data(step)
        static.append(float(exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss], scope=scope)[0]))
    np.testing.assert_allclose(static, eager, rtol=1e-5)
    np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), W.numpy(), rtol=1e-5, atol=1e-6)


def test_a_scheduled_learning_rate_is_an_input_the_executor_feeds():
    """The scheduler is not stored on the Program: the lr is a feed variable, filled at each run from what
    minimize registered (oar.graph.feeders); stepping the scheduler changes the next update, as in eager."""
    from oar.graph import feeders
    main, startup = oar.static.Program(), oar.static.Program()
    sched = oar.optimizer.lr.StepDecay(0.5, step_size=1, gamma=0.1)
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            w = oar.static.create_parameter([1], "float32", name="w_sched",
                                            default_initializer=oar.nn.initializer.Constant(1.0))
            loss = (w * 1.0).sum()   # d loss / d w = 1: each step moves w by exactly the learning rate
            oar.optimizer.SGD(sched).minimize(loss)
    finally:
        oar.disable_static()
    (lr_name,) = feeders.sources(main)
    lr = main.global_block().var(lr_name)
    assert lr.is_data and not lr.persistable and not hasattr(main, "lr_scheduler")
    exe, scope = oar.static.Executor(), oar.static.Scope()
    exe.run(startup, scope=scope)
    ws = []
    for _ in range(3):
        exe.run(main, fetch_list=[loss], scope=scope)
        ws.append(float(np.array(scope.find_var("w_sched").get_tensor())[0]))
        sched.step()
    np.testing.assert_allclose(ws, [0.5, 0.45, 0.445], rtol=1e-6)
    assert feeders.sources(main.clone()) == feeders.sources(main)
    exe.run(main, feed={lr_name: np.float32(0.0)}, fetch_list=[loss], scope=scope)   # a caller's feed wins
    assert float(np.array(scope.find_var("w_sched").get_tensor())[0]) == np.float32(0.445)
