"""A served model: its tensor specs, a pool of predictors (one per worker thread) and the dynamic batcher.

Dynamic batching (opt-in, ``max_batch_size > 1``) joins concurrent requests along dimension 0: a batch leaves
when it holds `max_batch_size` rows or when its first request has waited `batch_timeout_ms`, and a worker is free.
While every worker is busy, requests keep gathering, so batches grow with the load. The outputs are split back
by each request's rows. Batching is only correct for models whose rows are independent, so at load time a probe
compares a batched run with row-by-row runs on random inputs, and a model that fails it is served unbatched
(logged), never with silently wrong numbers.
"""
import asyncio
import collections
import concurrent.futures
import logging
import os
import queue
import time

import numpy as np

from ..core import dtype as D
from ..inference.config import Config
from ..inference.predictor import Predictor
from .protocol import datatype

log = logging.getLogger("oar.serving")


def rows_agree(batched, single):
    """Whether a batched run's output equals the row-by-row runs' up to rounding: every difference within
    ``tol * scale``, where scale is the largest magnitude of the output and tol 1e-4 for 32/64-bit floats (1e-2 for
    16-bit ones); integers and bools must be equal, NaNs in the same places.

    Why relative to the output's scale: a batched matmul or convolution sums the same products in another order
    (other blocking, other SIMD lanes), so each value may move by a few ulps of the partial sums, which are as large
    as the biggest outputs, not as the value itself (resnet18: 9e-5 on logits up to 183, about 4e2 float32 ulps of
    183, while an output near 0 moves by the same 9e-5). Rows that interact (batch statistics, a mean over the
    batch) change the outputs by amounts of the order of the outputs themselves, far above 1e-4 of their scale.

    Example:
        >>> from oar.serving.model import rows_agree
        >>> want = np.array([[183.0, 0.0]], 'float32')
        >>> rows_agree(want + np.float32(9e-5), want), rows_agree(want - want.mean(), want)
        (True, False)
    """
    if batched.shape != single.shape or batched.dtype != single.dtype:
        return False
    low = batched.dtype.itemsize <= 2  # float16, bfloat16
    if batched.dtype.name == "bfloat16":
        batched, single = batched.astype(np.float32), single.astype(np.float32)
    if batched.dtype.kind not in "fc":
        return bool(np.array_equal(batched, single))
    nan = np.isnan(batched)
    if not np.array_equal(nan, np.isnan(single)):
        return False
    a, b = batched[~nan], single[~nan]
    if a.size == 0:
        return True
    if not np.array_equal(np.isinf(a), np.isinf(b)) or not np.array_equal(a[np.isinf(a)], b[np.isinf(b)]):
        return False
    fin = np.isfinite(a)
    a, b = a[fin].astype(np.float64), b[fin].astype(np.float64)
    if a.size == 0:
        return True
    tol = 1e-2 if low else 1e-4
    return bool(np.abs(a - b).max() <= tol * max(np.abs(a).max(), np.abs(b).max()))


class TensorSpec:
    """One input or output as the protocol describes it.

    Example:
        >>> from oar.serving import TensorSpec
        >>> TensorSpec({'name': 'x', 'shape': [-1, 4], 'dtype': 'float32'}).metadata()
        {'name': 'x', 'datatype': 'FP32', 'shape': [-1, 4]}
    """

    __slots__ = ("name", "datatype", "shape", "np_dtype", "wire_dtype")

    def __init__(self, spec):
        self.name, self.shape = spec["name"], [int(d) for d in spec["shape"]]
        self.datatype = datatype(spec["dtype"])
        self.np_dtype = np.dtype(D.np_dtype(spec["dtype"]))
        self.wire_dtype = np.dtype(np.uint16) if self.datatype == "BF16" else self.np_dtype

    def metadata(self):
        return {"name": self.name, "datatype": self.datatype, "shape": list(self.shape)}


class _Request:
    __slots__ = ("arrays", "rows", "future", "arrived")

    def __init__(self, arrays, rows, future):
        self.arrays, self.rows, self.future, self.arrived = arrays, rows, future, time.monotonic()


class ServedModel:
    """A saved model behind the protocol. `infer(arrays)` (a coroutine) returns the output arrays.

    Args:
        name: the model's name in URLs (``/v2/models/{name}``).
        prefix: the prefix given to `oar.jit.save` (or its ``.pdmodel`` file).
        workers: inference threads (each with its own predictor).
        max_batch_size: rows per dynamic batch; 0 or 1 turns batching off.
        batch_timeout_ms: how long the first request of a batch waits for more.

    Example:
        >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net',
        ...              input_spec=[oar.static.InputSpec([None, 4], 'float32', 'x')])
        >>> from oar.serving import ServedModel
        >>> ServedModel('net', 'model/net', max_batch_size=32).metadata()['inputs']
        [{'name': 'x', 'datatype': 'FP32', 'shape': [-1, 4]}]
    """

    version = "1"

    def __init__(self, name, prefix, workers=1, max_batch_size=0, batch_timeout_ms=2.0):
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.name, self.prefix = name, os.fspath(prefix)
        config = Config(self.prefix)
        config.disable_glog_info()
        first = Predictor(config)
        self.inputs = [TensorSpec(s) for s in first.inputs]
        self.outputs = [TensorSpec(s) for s in first.outputs]
        self.input_names = [s.name for s in self.inputs]
        self.output_names = [s.name for s in self.outputs]
        self.input_index = {n: i for i, n in enumerate(self.input_names)}
        self.output_index = {n: i for i, n in enumerate(self.output_names)}
        self.workers = workers
        self._predictors = queue.SimpleQueue()
        self._predictors.put(first)
        for _ in range(workers - 1):
            self._predictors.put(first.clone())
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix=f"oar-serve-{name}")
        self.max_batch_size = max_batch_size if max_batch_size > 1 else 1
        self.batch_timeout = max(0.0, batch_timeout_ms) / 1000.0
        if self.max_batch_size > 1:
            why = self._unbatchable()
            if why:
                log.warning("model '%s': dynamic batching off: %s", name, why)
                self.max_batch_size = 1
        self._pending = collections.deque()
        self._wakeup = self._slots = self._task = None
        self._running = set()  # batch tasks (asyncio keeps only weak references to tasks)
        self.batches = self.batched_rows = 0  # statistics (bench/serve.py prints the mean batch size)

    # ---- metadata --------------------------------------------------------------------------------------------
    def metadata(self):
        return {"name": self.name, "versions": [self.version], "platform": "oar",
                "inputs": [s.metadata() for s in self.inputs], "outputs": [s.metadata() for s in self.outputs]}

    # ---- running ---------------------------------------------------------------------------------------------
    def run(self, arrays):
        """Runs the model on one thread's predictor (blocking)."""
        p = self._predictors.get()
        try:
            return p.run(arrays)
        finally:
            self._predictors.put(p)

    def _unbatchable(self):
        """Why batching would change results (None when a probe finds batched == row-by-row)."""
        if any(not s.shape or s.shape[0] != -1 for s in self.inputs):
            return "an input has no variable first dimension"
        rng = np.random.default_rng(0)
        rows = []
        for _ in range(3):
            rows.append([(rng.standard_normal([1] + [d if d >= 0 else 2 for d in s.shape[1:]]).astype(s.np_dtype)
                          if s.np_dtype.kind in "fc" else np.zeros([1] + [d if d >= 0 else 2 for d in s.shape[1:]],
                                                                   s.np_dtype)) for s in self.inputs])
        try:
            single = [self.run(r) for r in rows]
            joined = self.run([np.concatenate(c) for c in zip(*rows)])
        except Exception as e:  # noqa: BLE001  (the probe's inputs may not suit the model; be safe)
            return f"the batching probe could not run the model ({type(e).__name__}: {e})"
        for k, out in enumerate(joined):
            want = np.concatenate([s[k] for s in single])
            if not rows_agree(out, want):
                return f"output '{self.output_names[k]}' of a batch differs from row-by-row runs (rows interact)"
        return None

    async def infer(self, arrays):
        """The outputs for one request's inputs, run alone or in a dynamic batch."""
        if self._task is None:
            self._start()
        fut = asyncio.get_running_loop().create_future()
        self._pending.append(_Request(arrays, int(arrays[0].shape[0]) if arrays and arrays[0].ndim else 1, fut))
        self._wakeup.set()
        return await fut

    def _start(self):
        self._wakeup = asyncio.Event()
        self._slots = asyncio.Semaphore(self.workers)
        self._task = asyncio.get_running_loop().create_task(self._batch_loop())

    async def _batch_loop(self):
        loop = asyncio.get_running_loop()
        while True:
            if not self._pending:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            await self._slots.acquire()  # a worker is free; requests keep gathering until then
            while self.max_batch_size > 1 and sum(r.rows for r in self._pending) < self.max_batch_size:
                left = self._pending[0].arrived + self.batch_timeout - time.monotonic()
                if left <= 0:
                    break
                self._wakeup.clear()
                try:
                    await asyncio.wait_for(self._wakeup.wait(), left)
                except asyncio.TimeoutError:
                    break
            batch = [self._pending.popleft()]
            rows = batch[0].rows
            while self._pending and rows + self._pending[0].rows <= self.max_batch_size:
                rows += self._pending[0].rows
                batch.append(self._pending.popleft())
            task = loop.create_task(self._run_batch(batch))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _run_batch(self, batch):
        try:
            groups = collections.defaultdict(list)  # requests whose inputs agree beyond dim 0 can be joined
            for r in batch:
                same_rows = all(a.ndim and a.shape[0] == r.rows for a in r.arrays)
                groups[tuple(a.shape[1:] for a in r.arrays) if same_rows else id(r)].append(r)
            loop = asyncio.get_running_loop()
            for group in groups.values():
                results, joined = await loop.run_in_executor(self._pool, self._run_group, group)
                if joined:
                    self.batches += 1
                    self.batched_rows += sum(r.rows for r in group)
                for r, out in zip(group, results):
                    if r.future.done():  # the client went away
                        continue
                    if isinstance(out, Exception):
                        r.future.set_exception(out)
                    else:
                        r.future.set_result(out)
        finally:
            self._slots.release()

    def _run_one(self, arrays):
        try:
            return self.run(arrays)
        except Exception as e:  # noqa: BLE001  (handed to the request's future)
            return e

    def _run_group(self, group):
        """(per-request outputs or exceptions, whether one joined run served them). When a joined run fails, each
        request runs alone, so one request's bad input fails only that request."""
        if len(group) > 1:
            try:
                joined = self.run([np.concatenate(c) for c in zip(*(r.arrays for r in group))])
            except Exception:  # noqa: BLE001  (retried one by one below)
                pass
            else:
                cuts = np.cumsum([r.rows for r in group])[:-1]
                per = [np.split(o, cuts) for o in joined]
                return [[p[i] for p in per] for i in range(len(group))], True
        return [self._run_one(r.arrays) for r in group], False

    async def close(self):
        """Stops the batcher once every pending request is answered, and the worker threads."""
        while self._pending and self._task is not None and not self._task.done():
            await asyncio.sleep(0.01)
        if self._slots is not None:
            for _ in range(self.workers):  # wait for running batches
                await self._slots.acquire()
        if self._task is not None:
            self._task.cancel()
        self._pool.shutdown(wait=True)
        if self.max_batch_size > 1:
            log.info("model '%s': %d batched runs, %.1f rows on average", self.name, self.batches,
                     self.batched_rows / max(self.batches, 1))
