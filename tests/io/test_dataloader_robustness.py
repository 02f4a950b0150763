"""DataLoader workers never hang or outlive their parent: SIGKILLed main process, unsendable batches, Ctrl-C,
string samples. Every wait is bounded; every test checks that no worker process is left."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from oar.io import DataLoader, Dataset, IterableDataset

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork-based workers")


def gone(pid):
    """True when `pid` has exited (a zombie awaiting its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def wait_gone(pids, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if all(gone(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


class Slow(Dataset):
    def __init__(self, n=1000, delay=0.2):
        self.n, self.delay = n, delay

    def __getitem__(self, i):
        time.sleep(self.delay)
        return np.full([2], i, np.float32)

    def __len__(self):
        return self.n


class Strings(Dataset):
    def __getitem__(self, i):
        return np.array(["cat", "dog"][i % 2]), np.float32(i)

    def __len__(self):
        return 4


@pytest.mark.parametrize("thread", ["main", "other"])
def test_workers_exit_when_the_main_process_is_killed(thread):
    """Made by the main thread: the parent-death signal (Linux) or the watchdog. Made by a thread that has ended
    since: the workers stay (the loader is still in use), and the watchdog ends them with the process."""
    script = textwrap.dedent("""
        import sys, threading, time
        import numpy as np
        sys.path.insert(0, sys.argv[1])
        from test_dataloader_robustness import Slow
        from oar.io import DataLoader
        its = []
        def start():
            its.append(iter(DataLoader(Slow(), batch_size=2, num_workers=2)))
            next(its[0])
        if sys.argv[2] == "main":
            start()
        else:
            t = threading.Thread(target=start)
            t.start()
            t.join()
            time.sleep(0.5)
        print(" ".join(str(p.pid) for p in its[0].pool.procs), flush=True)
        time.sleep(60)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    parent = subprocess.Popen([sys.executable, "-c", script, os.path.dirname(__file__), thread],
                              stdout=subprocess.PIPE, env=env, text=True)
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2
        assert not any(gone(p) for p in pids)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        assert wait_gone(pids), "DataLoader workers outlived their SIGKILLed parent"
    finally:
        parent.kill()
        parent.wait(10)


def test_unsendable_batch_raises_in_the_main_process():
    loader = DataLoader(Slow(4, 0.0), batch_size=2, num_workers=1, timeout=30,
                        collate_fn=lambda batch: threading.Lock())
    it = iter(loader)
    with pytest.raises((TypeError, RuntimeError), match="cannot be sent to the main process.*pickle"):
        next(it)
    assert wait_gone([p.pid for p in it.pool.procs], 5)


def test_unsendable_batch_of_an_iterable_dataset_raises():
    class Stream(IterableDataset):
        def __iter__(self):
            yield np.zeros(2)
    loader = DataLoader(Stream(), batch_size=1, num_workers=1, timeout=30, collate_fn=lambda b: (lambda: 0))
    with pytest.raises((TypeError, RuntimeError), match="cannot be sent"):
        list(loader)


def test_keyboard_interrupt_stops_the_workers_at_once():
    it = iter(DataLoader(Slow(1000, 2.0), batch_size=1, num_workers=2))
    pids = [p.pid for p in it.pool.procs]
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            next(it)
    finally:
        timer.cancel()
    assert it.pool.closed
    assert wait_gone(pids, 2.0), "workers still running after KeyboardInterrupt"


@pytest.mark.parametrize("workers", [0, 2])
def test_string_samples_raise_a_clear_error(workers):
    loader = DataLoader(Strings(), batch_size=2, num_workers=workers, timeout=30)
    it = iter(loader)
    with pytest.raises(TypeError, match=r"holds <U3 values.*cannot become a Tensor"):
        next(it)
    if workers:
        assert wait_gone([p.pid for p in it.pool.procs], 5), "workers left after a failed batch"


def test_strings_kept_as_a_list_by_a_collate_fn_pass():
    loader = DataLoader(Strings(), batch_size=2, collate_fn=lambda b: ([s.item() for s, _ in b],
                                                                       np.stack([y for _, y in b])))
    names, y = next(iter(loader))
    assert names == ["cat", "dog"] and y.numpy().tolist() == [0.0, 1.0]
