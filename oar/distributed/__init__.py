"""Data-parallel training on MPI (Paddle 2.x ``paddle.distributed``): ranks, groups, collectives, `DataParallel`,
the ``python -m oar.distributed.launch`` launcher and `spawn`. Needs the ``distributed`` extra (mpi4py + MPICH).
See docs/distributed.md."""
from .env import (ParallelEnv, DistributedError, init_parallel_env, is_initialized, get_rank, get_world_size)
from .group import Group, new_group, get_group
from .collective import (ReduceOp, all_reduce, broadcast, all_gather, reduce, scatter, alltoall, barrier, send,
                         recv, isend, irecv, all_gather_object)
from .collective_more import (ParallelMode, ReduceType, is_available, get_backend, destroy_process_group, wait,
                              gather, reduce_scatter, alltoall_single, broadcast_object_list, scatter_object_list)
from .auto_parallel import ProcessMesh, Placement, Shard, Replicate, Partial, DistAttr
from .dtensor import shard_tensor, dtensor_from_fn, reshard
from .shard_api import shard_layer, shard_optimizer
from .strategy import Strategy
from .dist_model import DistModel, to_static
from .mp_split import split
from .checkpoint import save_state_dict, load_state_dict
from .parallel import DataParallel
from .spawn import spawn
from . import parallel, fleet, sync_batch_norm  # noqa: F401  (installs SyncBatchNorm across ranks)
from . import io  # noqa: F401  (Paddle's paddle.distributed.io)

__all__ = ["ParallelEnv", "DistributedError", "init_parallel_env", "is_initialized", "get_rank", "get_world_size",
           "Group", "new_group", "get_group", "ReduceOp", "all_reduce", "broadcast", "all_gather", "reduce",
           "scatter", "alltoall", "barrier", "send", "recv", "isend", "irecv", "all_gather_object", "DataParallel",
           "spawn", "ParallelMode", "ReduceType", "is_available", "get_backend", "destroy_process_group", "wait",
           "gather", "reduce_scatter", "alltoall_single", "broadcast_object_list", "scatter_object_list", "io",
           "launch", "ProcessMesh", "Placement", "Shard", "Replicate", "Partial", "DistAttr", "save_state_dict",
           "load_state_dict", "shard_tensor", "dtensor_from_fn", "reshard", "shard_layer", "shard_optimizer",
           "Strategy", "to_static", "split"]


def __getattr__(name):
    """`oar.distributed.launch` (the launcher module) loads on first use, so that ``python -m
    oar.distributed.launch`` does not find it already imported by this package."""
    if name == "launch":
        import importlib
        return importlib.import_module(".launch", __name__)
    raise AttributeError(f"module 'oar.distributed' has no attribute {name!r}")
