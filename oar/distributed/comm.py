"""Collectives on NumPy arrays over a group's MPI communicator: the kernels behind the collective ops and the
gradient all-reduce of `DataParallel`.

Each call is MPI's nonblocking form followed by `wait`, which polls the request and raises `DistributedError`
after the configured timeout instead of blocking forever on a rank that is gone. Roots (``root``, ``peer``) are
ranks inside the group. float16 / bfloat16 travel as float32 and bool as uint8, since MPI has no reductions on them.

Arrays on a GPU are staged through the host (`on_host`): copied to host memory, sent by MPI, the result copied
back to the array's device, so any MPI build works (no CUDA-aware MPI needed, at the cost of two copies).
"""
import functools
import time

import numpy as np

from ..core.devices import device_of, is_device_array, place_array, to_host
from .env import RUNTIME, DistributedError, mpi

REDUCE_OPS = ("sum", "max", "min", "prod", "avg")
_SPIN_S = 0.005  # poll without sleeping this long first: short waits keep MPI's latency


def wait(req, what, group):
    """Completes `req`, raising `DistributedError` when it is not done within the timeout."""
    if req.Test():
        return
    start = time.monotonic()
    deadline, spin_until, pause = start + RUNTIME.timeout, start + _SPIN_S, 5e-5
    while not req.Test():
        now = time.monotonic()
        if now < spin_until:
            continue
        if now > deadline:
            raise DistributedError(
                f"{what} on rank {group.rank} of group {group.id} waited {now - start:.0f} s for the other "
                f"{group.nranks - 1} rank(s) of the group (timeout {RUNTIME.timeout:g} s): a rank died, raised, "
                "left its training loop early, or called a different collective. Set the timeout with "
                "init_parallel_env(timeout=...) or $OAR_DISTRIBUTED_TIMEOUT")
        time.sleep(pause)
        pause = min(pause * 2, 2e-3)


def _call(what, group, start):
    """Runs `start()` (returns an MPI request) and waits, turning MPI errors into `DistributedError`."""
    try:
        wait(start(), what, group)
    except mpi().Exception as e:
        raise DistributedError(f"{what} on rank {group.rank} of group {group.id} failed in MPI: {e.Get_error_string()}"
                               " (do all ranks pass tensors of the same shape and dtype?)") from None


def on_host(fn):
    """`fn(a, ...)` of a collective, with a device array `a` staged through the host: the result (if any) goes
    back to `a`'s device."""
    @functools.wraps(fn)
    def staged(a, *args, **kwargs):
        if not is_device_array(a):
            return fn(a, *args, **kwargs)
        out = fn(to_host(a), *args, **kwargs)
        return None if out is None else place_array(out, device_of(a))
    return staged


def _wire(a):
    """`a` as a contiguous array of a dtype MPI reduces, and the dtype to cast the result back to."""
    dt = a.dtype  # (np.asarray with order="C", not ascontiguousarray, which makes a 0-d array 1-d)
    if dt.kind == "V" or dt == np.float16:
        return np.asarray(a, np.float32, order="C"), dt
    if dt == np.bool_:
        return np.asarray(a, np.uint8, order="C"), dt
    return np.asarray(a, order="C"), None


def _back(a, dt):
    return a if dt is None else a.astype(dt)


def _op(name):
    MPI = mpi()
    try:
        return {"sum": MPI.SUM, "avg": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}[name]
    except KeyError:
        raise ValueError(f"unknown reduce op {name!r}; use one of {', '.join(REDUCE_OPS)}") from None


def _finish_avg(out, op, group):
    if op == "avg":
        if out.dtype.kind not in "fc":
            raise TypeError(f"ReduceOp.AVG needs a floating-point tensor, got {out.dtype}")
        out /= group.nranks
    return out


@on_host
def all_reduce(a, op, group):
    """The elementwise `op` ('sum', 'max', 'min', 'prod', 'avg') of `a` over the group's ranks."""
    if group.comm is None:
        return a
    send, dt = _wire(a)
    out = np.empty_like(send)
    _call(f"all_reduce({op})", group, lambda: group.comm.Iallreduce(send, out, _op(op)))
    return _back(_finish_avg(out, op, group), dt)


def start_all_reduce(buf, group):
    """Starts a sum all-reduce of `buf` in place and returns the request (for `DataParallel`'s overlap)."""
    return group.comm.Iallreduce(mpi().IN_PLACE, buf, mpi().SUM)


@on_host
def broadcast(a, root, group):
    """Group rank `root`'s `a` on every rank."""
    if group.comm is None:
        return a
    buf, dt = _wire(a)
    buf = buf.copy() if group.rank != root else buf
    _call("broadcast", group, lambda: group.comm.Ibcast(buf, root))
    return _back(buf, dt)


@on_host
def all_gather(a, group):
    """Every rank's `a` stacked along a new first axis, in group-rank order."""
    if group.comm is None:
        return a[None]
    send, dt = _wire(a)
    out = np.empty((group.nranks,) + send.shape, send.dtype)
    _call("all_gather", group, lambda: group.comm.Iallgather(send, out))
    return _back(out, dt)


@on_host
def reduce(a, root, op, group):
    """`op` of `a` over the ranks, on group rank `root`; the other ranks get `a` back unchanged."""
    if group.comm is None:
        return a
    send, dt = _wire(a)
    out = np.empty_like(send)
    _call(f"reduce({op})", group, lambda: group.comm.Ireduce(send, out, _op(op), root))
    return _back(_finish_avg(out, op, group), dt) if group.rank == root else a


@on_host
def scatter(stacked, root, group):
    """Row ``i`` of root's `stacked` (shape ``[nranks, ...]``) on group rank ``i``."""
    if group.comm is None:
        return stacked[0]
    send, dt = _wire(stacked)
    out = np.empty(send.shape[1:], send.dtype)
    _call("scatter", group, lambda: group.comm.Iscatter(send if group.rank == root else None, out, root))
    return _back(out, dt)


@on_host
def alltoall(stacked, group):
    """Row ``j`` of rank ``i``'s `stacked` becomes row ``i`` on rank ``j``."""
    if group.comm is None:
        return stacked
    send, dt = _wire(stacked)
    out = np.empty_like(send)
    _call("alltoall", group, lambda: group.comm.Ialltoall(send, out))
    return _back(out, dt)


def barrier(group):
    """Returns when every rank of the group has called it."""
    if group.comm is not None:
        _call("barrier", group, lambda: group.comm.Ibarrier())


@on_host
def send(a, peer, group, tag=0):
    """Sends `a` to group rank `peer`."""
    if group.comm is not None:
        buf, _ = _wire(a)
        _call(f"send to rank {peer}", group, lambda: group.comm.Isend(buf, peer, tag))


@on_host
def recv(like, peer, group, tag=0):
    """An array shaped and typed as `like`, received from group rank `peer`."""
    if group.comm is None:
        return like
    buf, dt = _wire(like)
    buf = np.empty_like(buf)
    _call(f"recv from rank {peer}", group, lambda: group.comm.Irecv(buf, peer, tag))
    return _back(buf, dt)
