"""Shared by the thread tests: run functions in threads that really overlap, and the small training run that
every test compares against a single-threaded reference.

The threads start together on a `threading.Barrier`; `switching()` makes the interpreter switch threads every
20 µs instead of every 5 ms, so a thread's mode switches land between another thread's ops many times per step.
"""
import contextlib
import sys
import threading
import traceback

import numpy as np

import oar

STEPS = 300
TIMEOUT_S = 60


@contextlib.contextmanager
def switching(interval=2e-5):
    prev = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(prev)


def run_together(workers, helpers=()):
    """Runs every function of `workers` and `helpers` in its own thread, all released at once by a barrier.
    A helper is called as ``helper(stop)`` and must loop until the Event `stop` is set, which happens when every
    worker has returned. Returns the workers' results in order; re-raises the first failure of any thread (with
    the thread's traceback in the message)."""
    stop = threading.Event()
    barrier = threading.Barrier(len(workers) + len(helpers))
    results = [None] * len(workers)
    errors = []
    left = [len(workers)]
    lock = threading.Lock()

    def work(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append((f"worker {i}", e, traceback.format_exc()))
            barrier.abort()
        finally:
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    stop.set()

    def help_(i, fn):
        try:
            barrier.wait()
            fn(stop)
        except BaseException as e:  # noqa: BLE001
            errors.append((f"helper {i}", e, traceback.format_exc()))
            barrier.abort()
            stop.set()

    threads = [threading.Thread(target=work, args=(i, f), daemon=True) for i, f in enumerate(workers)]
    threads += [threading.Thread(target=help_, args=(i, f), daemon=True) for i, f in enumerate(helpers)]
    with switching():
        for t in threads:
            t.start()
        for t in threads:
            t.join(TIMEOUT_S)
    if any(t.is_alive() for t in threads):
        stop.set()
        raise AssertionError(f"threads still running after {TIMEOUT_S} s (a deadlock?)")
    if errors:
        who, e, tb = errors[0]
        raise AssertionError(f"{who} failed ({len(errors)} thread(s) failed):\n{tb}") from e
    return results


def make_model(seed, d_in=8, d_out=4):
    """A Linear layer with weights from `seed` (not from oar's process-wide generator, which other threads
    may draw from), its SGD optimizer and a fixed batch."""
    rng = np.random.default_rng(seed)
    net = oar.nn.Linear(d_in, d_out)
    net.weight.set_value(rng.standard_normal((d_in, d_out)).astype("float32"))
    net.bias.set_value(rng.standard_normal(d_out).astype("float32"))
    opt = oar.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    x = oar.to_tensor(rng.standard_normal((16, d_in)).astype("float32"))
    y = oar.to_tensor(rng.standard_normal((16, d_out)).astype("float32"))
    return net, opt, x, y


def train(seed, steps=STEPS, static_forward=False):
    """Trains the `make_model(seed)` model for `steps` steps: (every step's loss, final weight and bias)."""
    net, opt, x, y = make_model(seed)
    if static_forward:
        net = oar.jit.to_static(net)
    losses = []
    for _ in range(steps):
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    return losses, net.weight.numpy().copy(), net.bias.numpy().copy()


def assert_same_run(got, want):
    losses, w, b = got
    want_losses, want_w, want_b = want
    assert losses == want_losses, f"losses differ from the single-threaded run: {losses} != {want_losses}"
    np.testing.assert_array_equal(w, want_w)
    np.testing.assert_array_equal(b, want_b)
