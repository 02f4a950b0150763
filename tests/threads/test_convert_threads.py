"""Training in one thread while other threads convert and call `to_static` functions (new ones, and one
shared function traced from several threads at once) or build and run a static Program: every result equals
its reference."""
import time

import numpy as np
import pytest

import oar

from thread_helpers import assert_same_run, make_model, run_together, train

SHAPES = 8
LONG = 1000  # training steps while the other threads convert


def _convert_round(k, i):
    """Converts a new function (a fresh StaticFunction: a new trace) and checks its result."""
    def f(x, scale=float(k + i)):
        y = x * scale + 1.0
        if y.sum() > 0:  # a tensor-dependent branch: a cond op in the program
            y = y - 1.0
        return y
    sf = oar.jit.to_static(f)
    a = np.full([2, 3], 0.5, "float32")
    np.testing.assert_array_equal(sf(oar.to_tensor(a)).numpy(), a * np.float32(k + i))


def _converter(k):
    def loop(stop):
        i = 0
        while not stop.is_set():
            i += 1
            _convert_round(k, i)
    return loop


def _shared_caller(sf):
    """Calls the shared converted function with shapes that are new to it, in the same order as the other
    threads, so several threads ask for the same new program at the same moment."""
    def loop(stop):
        while not stop.is_set():
            for n in range(1, SHAPES + 1):
                a = np.arange(n * 3, dtype="float32").reshape(n, 3)
                out = sf(oar.to_tensor(a))
                np.testing.assert_array_equal(out.numpy(), np.tanh(a) * 2.0 + a.sum())
            # a tight calling loop under a 20 µs switch interval starves the training thread for a minute or more
            # (the GIL handed back and forth, no deadlock); yielding once per round keeps thousands of overlapping
            # calls while the other thread trains
            time.sleep(0)
    return loop


def _shared_fn():
    def g(x):
        return oar.tanh(x) * 2.0 + x.sum()
    return oar.jit.to_static(g)


@pytest.mark.parametrize("n_threads", [2, 4])
def test_training_while_other_threads_convert_new_functions(n_threads):
    _convert_round(0, 0)  # the first conversion of f's code is slow: done before, so the threads overlap many rounds
    want = train(0, LONG)
    got, = run_together([lambda: train(0, LONG)], [_converter(k) for k in range(n_threads - 1)])
    assert_same_run(got, want)


@pytest.mark.parametrize("n_threads", [2, 4])
def test_one_function_traced_and_called_from_several_threads(n_threads):
    sf = _shared_fn()
    want = train(0, LONG)
    got, = run_together([lambda: train(0, LONG)], [_shared_caller(sf)] * (n_threads - 1))
    assert_same_run(got, want)
    assert len(sf.program_cache) == SHAPES  # one program per shape, however many threads asked for it


@pytest.mark.parametrize("n_threads", [2, 4])
def test_shared_function_first_calls_race(n_threads):
    """Every thread's first call of a fresh converted function comes at once: all get correct results."""
    def first_calls():
        sf = _shared_fn()

        def call():
            a = np.ones([4, 3], "float32")
            return sf(oar.to_tensor(a)).numpy()
        outs = run_together([call] * n_threads)
        a = np.ones([4, 3], "float32")
        for o in outs:
            np.testing.assert_array_equal(o, np.tanh(a) * 2.0 + a.sum())
        assert len(sf.program_cache) == 1
    for _ in range(5):
        first_calls()


def _static_builder(k):
    """Builds a Program under program_guard in static mode and runs it with an Executor, in its own scope."""
    def loop(stop):
        i = 0
        while not stop.is_set():
            i += 1
            main, startup = oar.static.Program(), oar.static.Program()
            oar.enable_static()
            try:
                with oar.static.program_guard(main, startup):
                    x = oar.static.data("x", [None, 3], "float32")
                    w = oar.static.create_parameter(
                        [3, 2], "float32", name=f"w_{k}", default_initializer=oar.nn.initializer.Constant(0.5))
                    y = oar.matmul(x, w) + float(i)
            finally:
                oar.disable_static()
            exe = oar.static.Executor()
            a = np.arange(6, dtype="float32").reshape(2, 3)
            with oar.static.scope_guard(oar.static.Scope()):
                exe.run(startup)
                out, = exe.run(main, feed={"x": a}, fetch_list=[y])
            np.testing.assert_array_equal(out, a @ np.full([3, 2], 0.5, "float32") + np.float32(i))
    return loop


@pytest.mark.parametrize("n_threads", [2, 4])
def test_training_while_other_threads_build_static_programs(n_threads):
    want = train(0)
    got, = run_together([lambda: train(0)], [_static_builder(k) for k in range(n_threads - 1)])
    assert_same_run(got, want)


def _train_step_static(seed, rounds=6, steps=4):
    """A whole training step (forward, backward, SGD step) converted by to_static, traced afresh every round so
    the captures overlap the other threads' work."""
    net, opt, x, y = make_model(seed)
    losses = []
    for _ in range(rounds):
        @oar.jit.to_static
        def step(x, y):
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        losses += [float(step(x, y).numpy()) for _ in range(steps)]
    return losses, net.weight.numpy().copy(), net.bias.numpy().copy()


@pytest.mark.parametrize("n_threads", [2, 4])
def test_converted_training_steps_and_eager_training_in_threads(n_threads):
    """Tracing a training step (its backward and optimizer calls are captured) in some threads while others
    train eagerly: captures and eager steps never reach each other's thread."""
    jobs = [(lambda s=s: _train_step_static(s)) if s % 2 else (lambda s=s: train(s)) for s in range(n_threads)]
    want = [job() for job in jobs]
    got = run_together(jobs)
    for g, w in zip(got, want):
        assert_same_run(g, w)
