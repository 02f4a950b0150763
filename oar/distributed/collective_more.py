"""Collectives composed of the ones in `collective.py` (`gather`, `reduce_scatter`, `alltoall_single`, the object
collectives), the process-group helpers (`get_backend`, `destroy_process_group`, `is_available`, `wait`) and
Paddle's enum-like constants (`ParallelMode`, `ReduceType`)."""
import enum
import importlib.util
import pickle

import numpy as np

from . import comm
from .collective import _finish, _run, all_gather, all_reduce, alltoall, ReduceOp, _check_root
from .group import _GROUPS, resolve


class ParallelMode:
    """The kinds of parallelism of a hybrid-parallel job (Paddle's values).

    Example:
        >>> oar.distributed.ParallelMode.DATA_PARALLEL, oar.distributed.ParallelMode.PIPELINE_PARALLEL
        (0, 2)
    """
    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


class ReduceType(enum.IntEnum):
    """How the partial values of a tensor are combined (Paddle's ``paddle.distributed.ReduceType``, same values);
    `reduce_op` gives the matching `ReduceOp` where there is one.

    Example:
        >>> oar.distributed.ReduceType.kRedSum.reduce_op, int(oar.distributed.ReduceType.kRedAvg)
        ('sum', 4)
    """
    kRedSum = 0
    kRedMax = 1
    kRedMin = 2
    kRedProd = 3
    kRedAvg = 4
    kRedAny = 5
    kRedAll = 6

    @property
    def reduce_op(self):
        ops = {0: ReduceOp.SUM, 1: ReduceOp.MAX, 2: ReduceOp.MIN, 3: ReduceOp.PROD, 4: ReduceOp.AVG}
        if int(self) not in ops:
            raise ValueError(f"{self.name} has no ReduceOp (any / all are logical reductions of bool tensors)")
        return ops[int(self)]


def is_available():
    """Whether `oar.distributed` can communicate: True when mpi4py (the ``distributed`` extra) is installed.

    Example:
        >>> import importlib.util
        >>> oar.distributed.is_available() == (importlib.util.find_spec('mpi4py') is not None)
        True
    """
    return importlib.util.find_spec("mpi4py") is not None


def get_backend(group=None):
    """The communication backend of `group`: ``'MPI'`` for every oar group (Paddle answers 'NCCL', 'GLOO', ...).

    Example:
        >>> oar.distributed.get_backend()
        'MPI'
    """
    g = resolve(group)
    if not g.is_member():
        raise ValueError(f"get_backend: this rank is not a member of {g}")
    return "MPI"


def destroy_process_group(group=None):
    """Frees `group`'s communicator; with None, every group, after which `is_initialized` is False until the next
    `init_parallel_env` (MPI itself stays up: it is started once per process).

    Example:
        >>> g = oar.distributed.new_group([0])
        >>> oar.distributed.destroy_process_group(g)
        >>> try:
        ...     oar.distributed.get_group(g.id)
        ... except ValueError:
        ...     print('freed')
        freed
    """
    from .env import RUNTIME
    if group is not None:
        if group.id == 0:
            raise ValueError("destroy_process_group: the world group (id 0) goes with destroy_process_group(None)")
        _free(_GROUPS.pop(group.id, None))
        return
    for gid in list(_GROUPS):
        _free(_GROUPS.pop(gid))
    RUNTIME.MPI = RUNTIME.world = None


def _free(g):
    if g is not None and g.id != 0 and g.comm is not None:
        g.comm.Free()


def wait(tensor, group=None, use_calc_stream=True):
    """Waits until the communication writing `tensor` is done. oar's collectives complete before they return,
    so there is nothing left to wait for; the group is checked.

    Example:
        >>> x = oar.ones([2])
        >>> oar.distributed.all_reduce(x, sync_op=False).wait()
        True
        >>> oar.distributed.wait(x)
    """
    resolve(group)
    if not hasattr(tensor, "shape"):
        raise TypeError(f"wait: expected a Tensor, got {type(tensor).__name__}")


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Collects every rank's `tensor` on global rank `dst`, in rank order, into `gather_list` (other ranks' lists
    are left as they are).

    Example:
        >>> got = []
        >>> oar.distributed.gather(oar.to_tensor([1, 2]), got, dst=0)
        >>> [t.numpy().tolist() for t in got]
        [[1, 2]]
    """
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    _check_root("gather", dst, g)
    if g.rank == g.get_group_rank(dst) and gather_list is None:
        raise ValueError("gather: the destination rank must pass a gather_list")
    parts = []
    all_gather(parts, tensor, group=g)
    if g.rank == g.get_group_rank(dst):
        del gather_list[:]
        gather_list.extend(parts)
    return _finish(sync_op)


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduces ``tensor_list[i]`` over the ranks by `op` and puts the result in `tensor` on group rank i.

    Example:
        >>> out = oar.zeros([2])
        >>> oar.distributed.reduce_scatter(out, [oar.to_tensor([1.0, 2.0])])
        >>> out.numpy().tolist()
        [1.0, 2.0]
    """
    from ..ops.manipulation import stack
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    if len(tensor_list) != g.nranks:
        raise ValueError(f"reduce_scatter: tensor_list needs one tensor per rank ({g.nranks}), got "
                         f"{len(tensor_list)}")
    stacked = stack(list(tensor_list), 0)
    all_reduce(stacked, op=op, group=g)
    _run(None, stacked[g.rank], None, tensor)
    return _finish(sync_op)


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None, group=None, sync_op=True):
    """`alltoall` on one tensor: `in_tensor` is split along dim 0 (equally, or by `in_split_sizes`), piece j goes
    to rank j, and the pieces received are concatenated in rank order into `out_tensor`.

    Example:
        >>> out = oar.zeros([2])
        >>> oar.distributed.alltoall_single(out, oar.to_tensor([3.0, 4.0]))
        >>> out.numpy().tolist()
        [3.0, 4.0]
    """
    from ..ops.manipulation import concat, split
    g = resolve(group)
    if not g.is_member():
        return _finish(sync_op)
    n = g.nranks
    sizes = list(in_split_sizes) if in_split_sizes else None
    if sizes is None and in_tensor.shape[0] % n:
        raise ValueError(f"alltoall_single: dim 0 of in_tensor ({in_tensor.shape[0]}) does not split into {n} "
                         "equal pieces: give in_split_sizes")
    if sizes is not None and (len(sizes) != n or sum(sizes) != in_tensor.shape[0]):
        raise ValueError(f"alltoall_single: in_split_sizes {sizes} must give {n} sizes summing to "
                         f"{in_tensor.shape[0]}")
    pieces = split(in_tensor, sizes or n, axis=0)
    if sizes is None and not out_split_sizes:
        received = []
        alltoall(pieces, received, group=g)
    else:  # unequal pieces: send each through the object-free path, one pair of ranks at a time
        received = _alltoall_uneven(pieces, out_split_sizes, g)
    _run(None, concat(received, axis=0), None, out_tensor)
    return _finish(sync_op)


def _alltoall_uneven(pieces, out_split_sizes, g):
    from ..eager.tensor import to_tensor
    arrays = [p.numpy() for p in pieces]
    sizes = comm.all_gather(np.array([a.shape[0] for a in arrays], np.int64), g)  # [sender, receiver]
    want = sizes[:, g.rank]
    if out_split_sizes and list(out_split_sizes) != want.tolist():
        raise ValueError(f"alltoall_single: out_split_sizes {list(out_split_sizes)} differ from what the ranks send "
                         f"({want.tolist()})")
    width = int(sizes.max())
    padded = np.zeros((g.nranks, width) + arrays[0].shape[1:], arrays[0].dtype)
    for j, a in enumerate(arrays):
        padded[j, :a.shape[0]] = a
    got = comm.alltoall(padded, g)
    return [to_tensor(got[i, :int(want[i])]) for i in range(g.nranks)]


def _bytes_of(obj):
    return np.frombuffer(pickle.dumps(obj), np.uint8)


def broadcast_object_list(object_list, src, group=None):
    """Replaces the items of `object_list` on every rank by those of global rank `src` (picklable objects; every
    rank passes a list of the same length).

    Example:
        >>> objs = [{'epoch': 3}, 'resnet']
        >>> oar.distributed.broadcast_object_list(objs, src=0)
        >>> objs
        [{'epoch': 3}, 'resnet']
    """
    g = resolve(group)
    if not g.is_member():
        return
    _check_root("broadcast_object_list", src, g)
    root = g.get_group_rank(src)
    data = _bytes_of(list(object_list)) if g.rank == root else np.zeros(0, np.uint8)
    size = comm.broadcast(np.array([data.size], np.int64), root, g)
    buf = np.zeros(int(size[0]), np.uint8)
    if g.rank == root:
        buf[:] = data
    got = pickle.loads(comm.broadcast(buf, root, g).tobytes())
    if len(got) != len(object_list):
        raise ValueError(f"broadcast_object_list: rank {src} sent {len(got)} objects, this rank's list holds "
                         f"{len(object_list)}")
    object_list[:] = got


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    """Puts ``in_object_list[i]`` of global rank `src` into ``out_object_list[0]`` on group rank i (picklable
    objects).

    Example:
        >>> out = [None]
        >>> oar.distributed.scatter_object_list(out, [{'shard': 0}], src=0)
        >>> out
        [{'shard': 0}]
    """
    g = resolve(group)
    if not g.is_member():
        return
    _check_root("scatter_object_list", src, g)
    root = g.get_group_rank(src)
    objs = [None] * g.nranks
    if g.rank == root:
        if in_object_list is None or len(in_object_list) != g.nranks:
            raise ValueError(f"scatter_object_list: the source rank must pass {g.nranks} objects, got "
                             f"{None if in_object_list is None else len(in_object_list)}")
        objs = list(in_object_list)
    box = [objs]
    broadcast_object_list(box, src, g)
    if not out_object_list:
        out_object_list.append(None)
    out_object_list[0] = box[0][g.rank]
