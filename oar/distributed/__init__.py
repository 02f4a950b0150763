"""Data-parallel training on MPI (Paddle 2.x ``paddle.distributed``): ranks, groups, collectives, `DataParallel`,
the ``python -m oar.distributed.launch`` launcher and `spawn`. Needs the ``distributed`` extra (mpi4py + MPICH).
See docs/distributed.md."""
from .env import (ParallelEnv, DistributedError, init_parallel_env, is_initialized, get_rank, get_world_size)
from .group import Group, new_group, get_group
from .collective import (ReduceOp, all_reduce, broadcast, all_gather, reduce, scatter, alltoall, barrier, send,
                         recv, isend, irecv, all_gather_object)
from .parallel import DataParallel
from .spawn import spawn
from . import parallel, fleet, sync_batch_norm  # noqa: F401  (installs SyncBatchNorm across ranks)

__all__ = ["ParallelEnv", "DistributedError", "init_parallel_env", "is_initialized", "get_rank", "get_world_size",
           "Group", "new_group", "get_group", "ReduceOp", "all_reduce", "broadcast", "all_gather", "reduce",
           "scatter", "alltoall", "barrier", "send", "recv", "isend", "irecv", "all_gather_object", "DataParallel",
           "spawn"]
