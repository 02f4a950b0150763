"""`DataParallel`'s gradient all-reduce: parameters grouped into buckets, each bucket's sum all-reduce started as
soon as the backward walk has finished every gradient in it, all of them finished and averaged when the walk ends.

How a gradient is known to be final: after the wrapped layer's forward, the tape is walked from its outputs once,
counting how many recorded ops read each parameter; the backward walk delivers one contribution per such read, so
the last one makes the parameter ready. Buckets hold parameters in reverse registration order (roughly the order
backward reaches them) and start in index order on every rank, as MPI needs the same collective order everywhere.
A parameter whose count is not reached (an output the loss does not use, a parameter not used at all) is
finished when the walk ends (`autograd.engine.queue_callback`), from its accumulated ``.grad`` or zeros.

In a converted training step (`oar.jit.train_step`) nothing of this runs: `average_in_program` appends the same
buckets' average all-reduce to the step's program, as ``c_allreduce`` ops between the backward and the updates.
"""
import numpy as np

from ..core.devices import device_of, is_device_array, place_array, to_host
from ..eager import engine
from ..ops.registry import edge
from ..eager.tensor import Tensor
from . import comm

_MB = 1 << 20


def _host_flat(a):
    """`a` flattened, in host memory (a device gradient is copied to the host for MPI)."""
    return to_host(a).reshape(-1) if is_device_array(a) else a.reshape(-1)


class _Bucket:
    __slots__ = ("params", "offsets", "dtype", "wire", "size", "pending", "buf", "req")

    def __init__(self, params, dtype):
        self.params, self.dtype = params, dtype
        # MPI sums no float16 / bfloat16: those buckets travel as float32
        self.wire = np.dtype(np.float32) if dtype.kind == "V" or dtype == np.float16 else dtype
        self.offsets, off = [], 0
        for p in params:
            self.offsets.append(off)
            off += p._data.size
        self.size = off
        self.pending = len(params)
        self.buf = self.req = None


def _buckets(params, first_bytes, bytes_each):
    """Consecutive parameters of one dtype, the first bucket up to `first_bytes`, the others up to `bytes_each`."""
    out, cur, cur_bytes, cap = [], [], 0, first_bytes
    for p in params:
        nbytes = p._data.nbytes
        if cur and (cur_bytes + nbytes > cap or p._data.dtype != cur[0]._data.dtype):
            out.append(_Bucket(cur, cur[0]._data.dtype))
            cur, cur_bytes, cap = [], 0, bytes_each
        cur.append(p)
        cur_bytes += nbytes
    if cur:
        out.append(_Bucket(cur, cur[0]._data.dtype))
    return out


def _flat_tensors(obj, out):
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _flat_tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _flat_tensors(o, out)
    return out


def count_reads(outputs, wanted):
    """How many recorded ops on the tape behind `outputs` read each tensor of `wanted` (id -> count)."""
    counts = dict.fromkeys(wanted, 0)
    seen, stack = set(), [t._node for t in outputs if t._node is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen or node.edges is None:
            continue
        seen.add(id(node))
        nondiff = node.op.nondiff
        for i, e in enumerate(node.edges):
            e = edge(e)
            if e is None or i in nondiff:
                continue
            n, t = e
            if n is None:
                if not t.stop_gradient and id(t) in counts:
                    counts[id(t)] += 1
            else:
                stack.append(n)
    return counts


class Reducer:
    """Averages the gradients of `params` over `group` after each backward walk (see the module docstring)."""

    def __init__(self, params, group, comm_buffer_mb, last_comm_buffer_mb, find_unused_parameters):
        self.params, self.group, self.find_unused = params, group, find_unused_parameters
        self.buckets = _buckets(params[::-1], int(last_comm_buffer_mb * _MB), int(comm_buffer_mb * _MB))
        self.where = {}
        for b in self.buckets:
            for k, p in enumerate(b.params):
                self.where[id(p)] = (b, k)
        self.enabled = True
        self.expected = None  # id -> reads counted after the forward (None: forward not seen, no overlap)
        self.got = {}
        self.ready = set()
        self.next_bucket = self.done = 0  # buckets started / known finished in this walk
        self.active = self.finishing = False
        self.stats = {"steps": 0, "bytes": 0, "early": 0, "buckets": 0}  # early: started during the backward walk
        for p in params:
            p.register_hook(self._hook(p))

    # ---- per step ----------------------------------------------------------------------------------------------
    def prepare(self, outputs):
        """Called after each forward of the wrapped layer: adds up each parameter's reads for the next backward."""
        counts = count_reads(_flat_tensors(outputs, []), [id(p) for p in self.params])
        if self.expected is not None:
            for k, v in self.expected.items():
                counts[k] += v
        self.expected = counts

    def _start_step(self):
        """At the first gradient of a backward walk: fresh buckets, and the end-of-walk callback."""
        if self.active:
            return
        self.active = True
        self.got, self.ready, self.next_bucket, self.done = {}, set(), 0, 0
        for b in self.buckets:
            b.pending, b.buf, b.req = len(b.params), np.empty(b.size, b.wire), None
        engine.queue_callback(self.finish)
        if self.find_unused and self.expected is not None:  # unused in this forward: ready at once
            for p in self.params:
                if self.expected[id(p)] == 0:
                    self._mark_ready(p, None)

    def _hook(self, p):
        def on_grad(g):
            if not self.enabled:
                return None
            self._start_step()
            n = self.got[id(p)] = self.got.get(id(p), 0) + 1
            if id(p) in self.ready:
                raise RuntimeError(f"DataParallel: parameter {p.name} {p.shape} got a gradient after its all-reduce "
                                   "had started: it is used outside the wrapped layer's forward (for instance in "
                                   "the loss); use it inside forward, or call the wrapped layer directly")
            if self.expected is not None and n == self.expected.get(id(p)):
                self._mark_ready(p, g)
            if self.done < self.next_bucket:  # MPICH moves a started all-reduce's data only inside MPI calls
                if self.buckets[self.done].req.Test():
                    self.done += 1
            return None
        return on_grad

    def _mark_ready(self, p, g):
        """Copies `p`'s final gradient (its ``.grad`` plus the last contribution `g`) into its bucket."""
        self.ready.add(id(p))
        b, k = self.where[id(p)]
        dst = b.buf[b.offsets[k]:b.offsets[k] + p._data.size]
        acc = p._grad
        if acc is None and g is None:
            dst[...] = 0
        elif acc is None:
            dst[...] = _host_flat(g._data)
        elif g is None:
            dst[...] = _host_flat(acc._data)
        elif is_device_array(acc._data):  # added on the device, one copy to the host
            dst[...] = _host_flat(acc._data + g._data)
        else:
            np.add(acc._data.reshape(-1), g._data.reshape(-1), out=dst)
        b.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1

    def _launch(self, b):
        b.req = comm.start_all_reduce(b.buf, self.group)
        self.stats["bytes"] += b.buf.nbytes
        self.stats["buckets"] += 1
        self.stats["early"] += self.active and not self.finishing

    def finish(self):
        """At the end of the backward walk: the rest of the buckets, then wait, average and write ``.grad``."""
        if not self.active:
            return
        self.finishing = True
        for b in self.buckets:
            for p in b.params:
                if id(p) not in self.ready:
                    self._mark_ready(p, None)
        self.active, self.expected, self.finishing = False, None, False
        used = None
        if self.find_unused:  # a parameter no rank used keeps grad None, as in one process
            mine = np.array([p._grad is not None for p in self.params], np.uint8)
            used = comm.all_reduce(mine, "max", self.group)
        scale = 1.0 / self.group.nranks
        for b in self.buckets:
            comm.wait(b.req, "DataParallel gradient all-reduce", self.group)
            b.buf *= scale
            for p, off in zip(b.params, b.offsets):
                g = b.buf[off:off + p._data.size].reshape(p._data.shape)
                g = g if b.wire == b.dtype else g.astype(b.dtype)
                p._grad = Tensor(place_array(g, device_of(p._data)) if is_device_array(p._data) else g)
            b.buf = b.req = None
        if used is not None:
            for p, u in zip(self.params, used):
                if not u:
                    p._grad = None
        self.stats["steps"] += 1


def average_in_program(reducer, capture):
    """After a backward captured in a converted training step: each gradient of `reducer`'s parameters replaced by
    its average over the group, one ``c_allreduce`` (AVG) op per bucket (a bucket of several gradients travels
    flattened and concatenated). Inside ``no_sync()`` nothing is appended, as eagerly."""
    if reducer.enabled:
        capture.reduce_grads(reducer.params, lambda pairs: _all_reduce_buckets(reducer, pairs),
                             fill_unreached=not reducer.find_unused)


def _all_reduce_buckets(reducer, pairs):
    from ..ops.manipulation import concat, reshape, split
    from .collective import ALL_REDUCE, _run
    attrs = {"reduce_op": "avg", "ring_id": reducer.group.id}
    grads = {id(p): g for p, g in pairs}
    out = {}
    for b in reducer.buckets:
        ps = [p for p in b.params if id(p) in grads]
        if len(ps) == 1:
            out[id(ps[0])] = _run(ALL_REDUCE, grads[id(ps[0])], attrs)
        elif ps:
            flat = _run(ALL_REDUCE, concat([reshape(grads[id(p)], [-1]) for p in ps]), attrs)
            parts = split(flat, [p._data.size for p in ps])
            for p, part in zip(ps, parts):
                out[id(p)] = reshape(part, list(p._data.shape))
    return [out[id(p)] for p, _ in pairs]
