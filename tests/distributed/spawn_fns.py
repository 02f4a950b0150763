"""Functions for `oar.distributed.spawn` tests (spawned functions must be importable by name)."""
import oar
import oar.distributed as dist


def sum_of_ranks(offset):
    dist.init_parallel_env()
    x = oar.to_tensor([float(dist.get_rank() + offset)])
    dist.all_reduce(x)
    return [dist.get_rank(), dist.get_world_size(), float(x.numpy()[0])]


def fails_on_rank_1():
    dist.init_parallel_env()
    if dist.get_rank() == 1:
        raise KeyError("spawned failure")
    dist.barrier()
