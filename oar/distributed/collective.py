"""Collectives on tensors (Paddle's ``paddle.distributed.all_reduce`` and friends), each one op.

Every collective is an op of the registry, so the same call runs at once on eager Tensors and, in static mode or
inside ``@oar.jit.to_static``, appends an op to the program that communicates when the program runs. The ops name
their group by id (``ring_id``, 0 for every rank) and their roots by global rank; they are marked side-effecting so
no pass removes, folds or merges them. Like Paddle's, they are not differentiable.

The Paddle functions change their tensor in place (in a program: the Python variable is rebound to the op's
result) and return None; ``sync_op=False`` returns a finished task whose ``wait()`` returns at once.
"""
from ..core.state import no_grad
from ..ops.registry import apply, defop
from . import comm
from .group import get_group, resolve


class ReduceOp:
    """How `all_reduce` and `reduce` combine the ranks' values.

    Example:
        >>> oar.distributed.ReduceOp.SUM
        'sum'
    """
    SUM, MAX, MIN, PROD, AVG = "sum", "max", "min", "prod", "avg"


def _same(metas, **attrs):
    return [metas[0]]


def _stacked(metas, nranks, **attrs):
    shape, dtype = metas[0]
    return [([nranks] + list(shape), dtype)]


def _unstacked(metas, **attrs):
    shape, dtype = metas[0]
    return [(list(shape[1:]), dtype)]


def _side_effect(op):
    # communication: the other ranks wait for it even when nothing reads the result
    return op.set(side_effect=True, differentiable=False, onnx_reason="collective communication between ranks")


ALL_REDUCE = _side_effect(defop(
    "c_allreduce", lambda x, reduce_op, ring_id: comm.all_reduce(x, reduce_op, get_group(ring_id)), infer=_same))
BROADCAST = _side_effect(defop(
    "c_broadcast", lambda x, root, ring_id: comm.broadcast(x, _in_group(root, ring_id), get_group(ring_id)),
    infer=_same))
ALL_GATHER = _side_effect(defop(
    "c_allgather", lambda x, nranks, ring_id: comm.all_gather(x, get_group(ring_id)), infer=_stacked))
REDUCE = _side_effect(defop(
    "c_reduce", lambda x, root, reduce_op, ring_id: comm.reduce(x, _in_group(root, ring_id), reduce_op,
                                                                get_group(ring_id)), infer=_same))
SCATTER = _side_effect(defop(
    "c_scatter", lambda x, root, ring_id: comm.scatter(x, _in_group(root, ring_id), get_group(ring_id)),
    infer=_unstacked))
ALL_TO_ALL = _side_effect(defop(
    "c_alltoall", lambda x, ring_id: comm.alltoall(x, get_group(ring_id)), infer=_same))
BARRIER = _side_effect(defop(
    "c_barrier", lambda x, ring_id: (comm.barrier(get_group(ring_id)), x)[1], infer=_same))
SEND = _side_effect(defop(
    "send_v2", lambda x, peer, ring_id: (comm.send(x, _in_group(peer, ring_id), get_group(ring_id)), x)[1],
    infer=_same))
RECV = _side_effect(defop(
    "recv_v2", lambda x, peer, ring_id: comm.recv(x, _in_group(peer, ring_id), get_group(ring_id)), infer=_same))


def _in_group(rank, ring_id):
    g = get_group(ring_id)
    r = g.get_group_rank(rank)
    if r < 0:
        raise ValueError(f"rank {rank} is not a member of group {ring_id} (ranks {g.ranks})")
    return r


class _Task:
    """What ``sync_op=False`` returns: oar's collectives finish before returning, so `wait` has nothing to do."""

    def wait(self):
        return True

    def is_completed(self):
        return True


def _finish(sync_op):
    return None if sync_op else _Task()


def _run(op, tensor, attrs, target=None):
    """`op` applied to `tensor`; with `target`, written into it in place. Nothing goes on the tape (as Paddle)."""
    with no_grad():
        out = tensor if op is None else apply(op, (tensor,), attrs)
        return out if target is None else target._inplace(out)  # a program Variable is rebound to the result


def _fill(tensor_list, stacked, n):
    """Puts the `n` rows of `stacked` into `tensor_list`: in place when it holds `n` tensors, else appended."""
    from ..ops.manipulation import unbind
    parts = unbind(stacked, 0) if n > 1 else [stacked[0]]
    if tensor_list and len(tensor_list) == n:
        for t, p in zip(tensor_list, parts):
            _run(None, p, None, t)
    else:
        del tensor_list[:]
        tensor_list.extend(parts)


def _check_root(name, rank, group):
    if rank not in group.ranks:
        raise ValueError(f"{name}: rank {rank} is not a member of the group (ranks {group.ranks})")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Replaces `tensor` on every rank by `op` (SUM, MAX, MIN, PROD, AVG) of it over the ranks.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> oar.distributed.all_reduce(x)          # one rank: the sum is x itself
        >>> x.numpy()
        array([1., 2.], dtype=float32)
    """
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    if op not in comm.REDUCE_OPS:
        raise ValueError(f"all_reduce: op must be one of ReduceOp.SUM/MAX/MIN/PROD/AVG, got {op!r}")
    _run(ALL_REDUCE, tensor, {"reduce_op": op, "ring_id": g.id}, tensor)
    return _finish(sync_op)


def broadcast(tensor, src, group=None, sync_op=True):
    """Replaces `tensor` on every rank by its value on global rank `src`.

    Example:
        >>> x = oar.to_tensor([3.0])
        >>> oar.distributed.broadcast(x, src=0)
        >>> x.numpy()
        array([3.], dtype=float32)
    """
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    _check_root("broadcast", src, g)
    _run(BROADCAST, tensor, {"root": int(src), "ring_id": g.id}, tensor)
    return _finish(sync_op)


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Appends every rank's `tensor` to `tensor_list`, in rank order (all ranks' tensors have one shape).

    Example:
        >>> parts = []
        >>> oar.distributed.all_gather(parts, oar.to_tensor([1, 2]))
        >>> [p.numpy().tolist() for p in parts]
        [[1, 2]]
    """
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    stacked = _run(ALL_GATHER, tensor, {"nranks": g.nranks, "ring_id": g.id})
    _fill(tensor_list, stacked, g.nranks)
    return _finish(sync_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Replaces `tensor` on global rank `dst` by `op` of it over the ranks; other ranks keep theirs.

    Example:
        >>> x = oar.to_tensor([2.0])
        >>> oar.distributed.reduce(x, dst=0, op=oar.distributed.ReduceOp.PROD)
        >>> x.numpy()
        array([2.], dtype=float32)
    """
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    _check_root("reduce", dst, g)
    if op not in comm.REDUCE_OPS:
        raise ValueError(f"reduce: op must be one of ReduceOp.SUM/MAX/MIN/PROD/AVG, got {op!r}")
    _run(REDUCE, tensor, {"root": int(dst), "reduce_op": op, "ring_id": g.id}, tensor)
    return _finish(sync_op)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """Sets `tensor` on rank ``i`` of the group to ``tensor_list[i]`` of global rank `src` (other ranks may pass
    ``tensor_list=None``).

    Example:
        >>> out = oar.zeros([2])
        >>> oar.distributed.scatter(out, [oar.to_tensor([5.0, 6.0])], src=0)
        >>> out.numpy()
        array([5., 6.], dtype=float32)
    """
    from ..ops.manipulation import expand, stack, unsqueeze
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    _check_root("scatter", src, g)
    if g.rank == g.get_group_rank(src):
        if tensor_list is None or len(tensor_list) != g.nranks:
            raise ValueError(f"scatter: the source rank must pass a tensor_list of {g.nranks} tensors "
                             f"(one per rank), got {None if tensor_list is None else len(tensor_list)}")
        stacked = stack(list(tensor_list), 0)
    else:  # the others only provide the shape (the program is the same on every rank)
        stacked = expand(unsqueeze(tensor, 0), [g.nranks] + list(tensor.shape))
    _run(SCATTER, stacked, {"root": int(src), "ring_id": g.id}, tensor)
    return _finish(sync_op)


def alltoall(in_tensor_list, out_tensor_list, group=None, sync_op=True):
    """Rank ``i`` sends ``in_tensor_list[j]`` to rank ``j``, which puts it at ``out_tensor_list[i]``.

    Example:
        >>> out = []
        >>> oar.distributed.alltoall([oar.to_tensor([7])], out)
        >>> out[0].numpy().tolist()
        [7]
    """
    from ..ops.manipulation import stack
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    if len(in_tensor_list) != g.nranks:
        raise ValueError(f"alltoall: in_tensor_list needs one tensor per rank ({g.nranks}), got "
                         f"{len(in_tensor_list)}")
    out = _run(ALL_TO_ALL, stack(list(in_tensor_list), 0), {"ring_id": g.id})
    _fill(out_tensor_list, out, g.nranks)
    return _finish(sync_op)


def barrier(group=None):
    """Waits until every rank of `group` has reached this call.

    Example:
        >>> oar.distributed.barrier()
    """
    from ..ops.creation import zeros
    g = resolve(group)
    if g.is_member():
        _run(BARRIER, zeros([1], "int32"), {"ring_id": g.id})


def send(tensor, dst=0, group=None, sync_op=True):
    """Sends `tensor` to global rank `dst`, which receives it with `recv`.

    Example:
        >>> # rank 0: oar.distributed.send(x, dst=1); rank 1: oar.distributed.recv(x, src=0)
    """
    g = resolve(group)
    if g.is_member():
        _check_root("send", dst, g)
        _run(SEND, tensor, {"peer": int(dst), "ring_id": g.id})
    return _finish(sync_op)


def recv(tensor, src=0, group=None, sync_op=True):
    """Fills `tensor` (its shape and dtype must match the sender's) with what global rank `src` sends.

    Example:
        >>> # rank 0: oar.distributed.send(x, dst=1); rank 1: oar.distributed.recv(x, src=0)
    """
    g = resolve(group)
    if g.is_member():
        _check_root("recv", src, g)
        _run(RECV, tensor, {"peer": int(src), "ring_id": g.id}, tensor)
    return _finish(sync_op)


def isend(tensor, dst=0, group=None):
    """`send` returning a task (oar finishes the send before returning; ``task.wait()`` returns at once).

    Example:
        >>> # rank 0: oar.distributed.isend(x, dst=1).wait()
    """
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=0, group=None):
    """`recv` returning a task (the tensor is filled before it returns).

    Example:
        >>> # rank 1: oar.distributed.irecv(x, src=0).wait()
    """
    return recv(tensor, src, group, sync_op=False)


def all_gather_object(object_list, obj, group=None):
    """Appends every rank's picklable `obj` to `object_list`, in rank order.

    Example:
        >>> got = []
        >>> oar.distributed.all_gather_object(got, {"acc": 0.9})
        >>> got
        [{'acc': 0.9}]
    """
    import pickle
    import numpy as np
    g = resolve(group)
    if not g.is_member():
        return
    mine = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = comm.all_gather(np.array([mine.size], np.int64), g)[:, 0]
    padded = np.zeros(int(sizes.max()), np.uint8)
    padded[:mine.size] = mine
    rows = comm.all_gather(padded, g)
    del object_list[:]
    object_list.extend(pickle.loads(rows[i, :n].tobytes()) for i, n in enumerate(sizes))
