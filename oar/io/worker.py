"""Worker processes for `DataLoader(num_workers > 0)`.

Workers are forked (the dataset reaches them by fork, nothing about the model is sent). Each gets tasks on its own
queue and puts results on one shared queue: ``(key, batch, error)`` where `batch` is the pickled nested structure of
NumPy arrays and plain values (pickled in the worker, so a batch that cannot be sent becomes an error the main
process raises, not a hang), and `error` is ``(exception type name, message, worker traceback text)``. The main
process polls the result queue with a short timeout and checks that every worker is alive, so a worker that dies
raises a clear RuntimeError instead of hanging.

Workers never outlive the main process: on Linux the kernel kills them when it dies (parent-death signal), and each
also runs a watchdog thread that exits the worker when its parent is gone (SIGKILLed included); they ignore Ctrl-C,
and a KeyboardInterrupt in the main process (or any error while iterating) stops them at once.
"""
import multiprocessing as mp
import os
import pickle
import queue
import signal
import sys
import threading
import time
import traceback

import numpy as np

from .collate import to_arrays, to_tensors

_POLL_S = 0.1
_worker_info = None


class WorkerInfo:
    """What a worker process knows about itself: ``id``, ``num_workers``, ``dataset``, ``seed``.

    Example:
        >>> oar.io.get_worker_info() is None  # in the main process
        True
        >>> info = oar.io.WorkerInfo(id=0, num_workers=2, dataset=None, seed=7)
        >>> info.id, info.num_workers
        (0, 2)
    """

    def __init__(self, id, num_workers, dataset, seed):  # noqa: A002  (Paddle's field name)
        self.id, self.num_workers, self.dataset, self.seed = id, num_workers, dataset, seed

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """In a DataLoader worker process: its `WorkerInfo`; in the main process: None.

    Example:
        >>> n = 6
        >>> info = oar.io.get_worker_info()
        >>> shard = range(info.id, n, info.num_workers) if info else range(n)
        >>> list(shard)  # the main process reads everything
        [0, 1, 2, 3, 4, 5]
    """
    return _worker_info


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else methods[0])


_WATCHDOG_S = 0.5


def _error_of(exc):
    return (type(exc).__name__, str(exc), traceback.format_exc())


def _watch_parent(parent, pdeathsig):
    """Exits this worker as soon as its parent process is gone: at once on Linux when the pool was made by the main
    thread (the kernel's parent-death signal fires when the creating *thread* ends), and everywhere through a
    watchdog thread that sees the worker's parent id change."""
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch():
        while os.getppid() == parent:
            time.sleep(_WATCHDOG_S)
        os._exit(0)
    threading.Thread(target=watch, daemon=True, name="oar-dataloader-watchdog").start()


def _put(result_q, key, batch):
    """Sends a collated batch, pickled here: a batch that cannot be pickled is reported as this key's error."""
    try:
        data = pickle.dumps(to_arrays(batch), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001
        result_q.put((key, None, (type(e).__name__ if type(e).__name__ in ("TypeError", "ValueError") else
                                  "RuntimeError", f"the batch (from collate_fn) cannot be sent to the main process: "
                                  f"{type(e).__name__}: {e}; return NumPy arrays, numbers, strings or dicts/lists of "
                                  "them", traceback.format_exc())))
        return
    result_q.put((key, data, None))


def unpack(data):
    """The batch a worker sent (`_put`), as oar Tensors."""
    return to_tensors(pickle.loads(data))


def _worker_loop(wid, num_workers, seed, dataset, task_q, result_q, collate_fn, worker_init_fn, iterable,
                 batch_size, drop_last, parent):
    global _worker_info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle (it stops the workers)
    _watch_parent(*parent)
    _worker_info = WorkerInfo(wid, num_workers, dataset, seed)
    from ..core import state
    state.seed(seed)
    np.random.seed(seed % (2 ** 32))
    try:
        if worker_init_fn is not None:
            worker_init_fn(wid)
    except Exception as e:  # noqa: BLE001  (reported to the main process)
        result_q.put((("init", wid), None, _error_of(e)))
        return
    while True:
        task = task_q.get()
        if task is None:
            break
        key, payload = task
        if not iterable:
            try:
                samples = [dataset[i] for i in payload]
                out = collate_fn(samples) if batch_size != "unbatched" else collate_fn(samples[0])
            except Exception as e:  # noqa: BLE001
                result_q.put((key, None, _error_of(e)))
                continue
            _put(result_q, key, out)
            continue
        _stream(key, wid, dataset, result_q, collate_fn, batch_size, drop_last)


def _stream(epoch, wid, dataset, result_q, collate_fn, batch_size, drop_last):
    """An iterable dataset's epoch in one worker: batches keyed (epoch, wid, seq), then an end marker."""
    seq = 0
    try:
        batch = []
        for sample in dataset:
            batch.append(sample)
            if batch_size is None or len(batch) == batch_size:
                out = collate_fn(batch) if batch_size is not None else collate_fn(batch[0])
                _put(result_q, (epoch, wid, seq), out)
                seq, batch = seq + 1, []
        if batch and not drop_last:
            _put(result_q, (epoch, wid, seq), collate_fn(batch))
            seq += 1
    except Exception as e:  # noqa: BLE001
        result_q.put(((epoch, wid, seq), None, _error_of(e)))
        seq += 1
    result_q.put(((epoch, wid, seq), None, "end"))


def _raise_worker_error(wid, err):
    name, msg, tb = err
    import builtins
    cls = getattr(builtins, name, None)
    text = f"DataLoader worker {wid} raised {name}: {msg}\n\nWorker traceback:\n{tb}"
    exc = None
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            exc = cls(text)
        except TypeError:  # an exception type with another constructor
            pass
    raise exc if exc is not None else RuntimeError(text)


class WorkerPool:
    """`num_workers` forked processes serving one DataLoader (kept across epochs with persistent_workers)."""

    def __init__(self, loader):
        ctx = _context()
        self.loader = loader
        self.n = loader.num_workers
        self.result_q = ctx.Queue()
        self.task_qs = [ctx.Queue() for _ in range(self.n)]
        base = int(loader._base_seed())
        self.procs = []
        for w in range(self.n):
            p = ctx.Process(target=_worker_loop, daemon=True,
                            args=(w, self.n, base + w, loader.dataset, self.task_qs[w], self.result_q,
                                  loader.collate_fn, loader.worker_init_fn, loader._iterable,
                                  "unbatched" if loader._unbatched_map() else loader.batch_size,
                                  loader.drop_last,
                                  (os.getpid(), threading.current_thread() is threading.main_thread())))
            p.start()
            self.procs.append(p)
        self.closed = False
        self._owner = os.getpid()
        self.epoch = 0

    def get(self, timeout):
        """The next result; raises if a worker died or `timeout` (> 0) seconds pass with nothing."""
        start = time.monotonic()
        while True:
            try:
                return self.result_q.get(timeout=_POLL_S)
            except queue.Empty:
                pass
            for w, p in enumerate(self.procs):
                if not p.is_alive():
                    code = p.exitcode
                    self.shutdown()
                    why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                    raise RuntimeError(f"DataLoader worker {w} (pid {p.pid}) exited unexpectedly ({why}); if it ran "
                                       "out of memory, lower num_workers or batch_size")
            if timeout and time.monotonic() - start > timeout:
                self.shutdown()
                raise RuntimeError(f"DataLoader timed out: no batch from the workers in {timeout} seconds")

    def shutdown(self, now=False):
        """Stops the workers: asks them to finish (up to 1 s), or with `now` (Ctrl-C) terminates them at once."""
        if self.closed:
            return
        self.closed = True
        for q, p in zip(self.task_qs, self.procs):
            if now:
                p.terminate()
            elif p.is_alive():
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + (0.0 if now else 1.0)
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.terminate()
                p.join(0.5)
        for q in self.task_qs + [self.result_q]:
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        try:
            if os.getpid() == getattr(self, "_owner", os.getpid()):
                self.shutdown()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


class _PoolIter:
    """Iteration over a WorkerPool's batches (`_next` in the subclass); a failed iteration shuts the pool down."""

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self._next()
        except StopIteration:
            raise
        except BaseException as e:  # an error, or Ctrl-C (then at once): no worker outlives a failed iteration
            self.pool.shutdown(now=isinstance(e, KeyboardInterrupt))
            raise


class MapIter(_PoolIter):
    """Ordered batches of a map-style dataset, with up to ``prefetch_factor * num_workers`` batches in flight."""

    def __init__(self, loader, pool):
        self.loader, self.pool = loader, pool
        pool.epoch += 1
        self.epoch = pool.epoch
        bs = loader.batch_sampler
        self.batches = iter(bs) if bs is not None else ([i] for i in range(len(loader.dataset)))
        self.sent = self.next_key = 0
        self.buffer = {}
        self.done_sending = False
        for _ in range(loader.prefetch_factor * pool.n):
            self._send()

    def _send(self):
        if self.done_sending:
            return
        try:
            idx = next(self.batches)
        except StopIteration:
            self.done_sending = True
            return
        self.pool.task_qs[self.sent % self.pool.n].put(((self.epoch, self.sent), list(idx)))
        self.sent += 1

    def _next(self):
        if self.next_key >= self.sent and self.done_sending:
            self._finish()
            raise StopIteration
        while self.next_key not in self.buffer:
            (tag, n), data, err = self.pool.get(self.loader.timeout)
            if err is not None:
                self.pool.shutdown()
                _raise_worker_error(n if tag == "init" else n % self.pool.n, err)
            if tag == self.epoch:  # results of an abandoned earlier epoch are dropped
                self.buffer[n] = data
        data = self.buffer.pop(self.next_key)
        self.next_key += 1
        self._send()
        return unpack(data)

    def _finish(self):
        if not self.loader.persistent_workers:
            self.pool.shutdown()


class StreamIter(_PoolIter):
    """Batches of an iterable dataset from all workers, round-robin by worker, until every worker has ended."""

    def __init__(self, loader, pool):
        pool.epoch += 1
        self.loader, self.pool, self.epoch = loader, pool, pool.epoch
        epoch = self.epoch
        for q in pool.task_qs:
            q.put((epoch, None))
        self.active = list(range(pool.n))
        self.turn = 0
        self.seq = [0] * pool.n
        self.buffer = {}

    def _next(self):
        while self.active:
            w = self.active[self.turn % len(self.active)]
            want = (self.epoch, w, self.seq[w])
            while want not in self.buffer:
                key, data, err = self.pool.get(self.loader.timeout)
                if key[0] == "init":
                    self.pool.shutdown()
                    _raise_worker_error(key[1], err)
                self.buffer[key] = (data, err)
            data, err = self.buffer.pop(want)
            self.seq[w] += 1
            if err == "end":
                self.active.remove(w)
                continue
            if err is not None:
                self.pool.shutdown()
                _raise_worker_error(w, err)
            self.turn += 1
            return unpack(data)
        if not self.loader.persistent_workers:
            self.pool.shutdown()
        raise StopIteration
