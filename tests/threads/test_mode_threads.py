"""One thread trains while others switch modes in a loop: the modes are per thread, so every step of the
training thread equals the single-threaded run exactly."""
import threading

import pytest

import oar

from thread_helpers import assert_same_run, run_together, train


def _hold():
    """Stays a while inside the region, so another thread's ops often run while it is entered."""
    for _ in range(500):
        pass


def _no_grad(stop):
    while not stop.is_set():
        with oar.no_grad():
            _hold()


def _set_grad_enabled(stop):
    while not stop.is_set():
        with oar.set_grad_enabled(False):
            _hold()
            with oar.enable_grad():
                pass


def _auto_cast(stop):
    while not stop.is_set():
        with oar.amp.auto_cast():
            _hold()


def _static_mode(stop):
    while not stop.is_set():
        oar.enable_static()
        _hold()
        oar.disable_static()


SWITCHERS = {"no_grad": _no_grad, "set_grad_enabled": _set_grad_enabled, "auto_cast": _auto_cast,
             "enable_static": _static_mode}


@pytest.mark.parametrize("n_threads", [2, 4])
@pytest.mark.parametrize("switcher", sorted(SWITCHERS))
def test_training_unaffected_by_other_threads_mode_switches(n_threads, switcher):
    want = train(0)
    got, = run_together([lambda: train(0)], [SWITCHERS[switcher]] * (n_threads - 1))
    assert_same_run(got, want)


@pytest.mark.parametrize("n_threads", [2, 4])
def test_each_thread_sees_its_own_modes(n_threads):
    """Every thread holds a different combination of modes for many switches of the others."""
    def check(k):
        def run():
            grad, amp = bool(k % 2), k >= 2
            for _ in range(300):
                with oar.set_grad_enabled(grad):
                    if amp:
                        with oar.amp.auto_cast():
                            _hold()
                            assert oar.is_grad_enabled() is grad
                            assert oar.core.state.STATE.amp is not None
                    else:
                        _hold()
                        assert oar.is_grad_enabled() is grad
                        assert oar.core.state.STATE.amp is None
                    assert oar.in_dynamic_mode()
            return True
        return run
    assert run_together([check(k) for k in range(n_threads)]) == [True] * n_threads


def test_new_thread_starts_eager_with_grad_on():
    seen = []

    def look():
        seen.append((oar.in_dynamic_mode(), oar.is_grad_enabled(), oar.core.state.STATE.amp))
    with oar.no_grad(), oar.amp.auto_cast():
        t = threading.Thread(target=look)
        t.start()
        t.join()
    assert seen == [(True, True, None)]


def test_seed_and_generator_are_process_wide():
    """`oar.seed` in one thread decides what another thread draws (as DataLoader workers rely on)."""
    oar.seed(7)
    want = oar.rand([3]).numpy().tolist()
    oar.seed(7)
    got = []
    t = threading.Thread(target=lambda: got.append(oar.rand([3]).numpy().tolist()))
    t.start()
    t.join()
    assert got == [want]


def test_context_copied_into_another_thread_never_writes_this_threads_modes():
    """`asyncio.to_thread` / `copy_context().run` in another thread: that thread starts with the modes it was
    handed, and its own switches (also the auto_cast hook's, op by op) stay its own."""
    import contextvars
    import numpy as np
    seen = []

    def other():
        seen.append(oar.is_grad_enabled())
        with oar.enable_grad():
            seen.append(oar.is_grad_enabled())
            y = oar.to_tensor(np.ones(2, "float32")) + 1.0  # runs the auto_cast hook in this thread
        seen.append(oar.core.state.STATE.amp is not None)
        seen.append(y.numpy().tolist())

    with oar.no_grad(), oar.amp.auto_cast():
        ctx = contextvars.copy_context()
        t = threading.Thread(target=ctx.run, args=(other,))
        t.start()
        t.join()
        assert not oar.is_grad_enabled() and oar.core.state.STATE.amp is not None
    assert oar.is_grad_enabled() and oar.core.state.STATE.amp is None
    assert seen == [False, True, True, [2.0, 2.0]]
