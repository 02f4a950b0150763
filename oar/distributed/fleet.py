"""Paddle's ``paddle.distributed.fleet`` entry points for collective (data-parallel) training.

In dynamic mode `distributed_model` is `DataParallel`. In static mode the optimizer from `distributed_optimizer`
appends, inside the program, an average all-reduce (a ``c_allreduce`` op) of every gradient between the backward
and the updates, and a broadcast of every parameter from rank 0 to the startup program, so the same Program run on
every rank trains one model.
"""
from ..core.state import STATE
from .collective import ALL_REDUCE, BROADCAST, _run
from .env import get_rank, get_world_size, init_parallel_env
from .group import resolve
from .parallel import DataParallel


def init(role_maker=None, is_collective=True, strategy=None):
    """Starts the job's MPI environment (`init_parallel_env`); only collective mode exists in oar.

    oar's fleet is plain data parallelism with ranks from the launcher's environment: a `role_maker` or a
    `strategy` (Paddle's DistributedStrategy: AMP, recompute, sharding, gradient merge, ...) raises
    NotImplementedError rather than being ignored.

    Example:
        >>> oar.distributed.fleet.init(is_collective=True)
    """
    if strategy is not None:
        raise NotImplementedError("fleet.init(strategy=...): DistributedStrategy options are not supported; oar's "
                                  "fleet does plain data parallelism (use oar.amp, and the optimizer's options, "
                                  "directly)")
    if role_maker is not None:
        raise NotImplementedError("fleet.init(role_maker=...): oar reads ranks from the launcher's environment "
                                  "(oar.distributed.launch); pass no role_maker")
    if not is_collective:
        raise NotImplementedError("fleet.init(is_collective=False): oar has no parameter-server mode; use "
                                  "collective (data-parallel) training")
    init_parallel_env()


def worker_index():
    """This process's rank.

    Example:
        >>> oar.distributed.fleet.worker_index()
        0
    """
    return get_rank()


def worker_num():
    """The number of ranks.

    Example:
        >>> oar.distributed.fleet.worker_num()
        1
    """
    return get_world_size()


def distributed_model(model):
    """`model` wrapped in `DataParallel` (dynamic mode).

    Example:
        >>> model = oar.distributed.fleet.distributed_model(oar.nn.Linear(2, 2))
        >>> type(model).__name__
        'DataParallel'
    """
    return DataParallel(model)


class DistributedOptimizer:
    """`optimizer` whose static `minimize` averages the gradients over the ranks inside the program; every other
    attribute is the wrapped optimizer's.

    Example:
        >>> opt = oar.distributed.fleet.distributed_optimizer(oar.optimizer.SGD(0.1, parameters=[]))
        >>> opt.get_lr()
        0.1
    """

    def __init__(self, optimizer, group=None):
        self.inner_opt, self._group = optimizer, group

    def __getattr__(self, name):
        return getattr(self.inner_opt, name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        if not STATE.static:  # dynamic mode: DataParallel has averaged the gradients during backward
            return self.inner_opt.minimize(loss, startup_program, parameters, no_grad_set)
        from ..graph.builder import default_startup_program
        from ..graph.optimize import static_minimize
        g = resolve(self._group)
        ops, params_grads = static_minimize(self.inner_opt, loss, startup_program, parameters, no_grad_set,
                                            grad_transform=lambda pg: _average(pg, g))
        _broadcast_in_startup(startup_program or default_startup_program(), [p for p, _ in params_grads], g)
        return ops, params_grads


def _average(params_grads, group):
    if group.nranks == 1:
        return params_grads
    return [(p, _run(ALL_REDUCE, gv, {"reduce_op": "avg", "ring_id": group.id})) for p, gv in params_grads]


def _broadcast_in_startup(startup, params, group):
    """Ops at the end of `startup` overwriting each parameter with rank 0's value (one model on every rank)."""
    if group.nranks == 1:
        return
    block = startup.global_block()
    for p in params:
        if p.name in block.vars:
            block.append_op(BROADCAST.name, {"x": [p.name]}, {"out": [p.name]},
                            {"root": group.ranks[0], "ring_id": group.id})


def distributed_optimizer(optimizer, strategy=None):
    """`optimizer` wrapped for collective training (see `DistributedOptimizer`).

    Example:
        >>> opt = oar.distributed.fleet.distributed_optimizer(oar.optimizer.Adam(parameters=[]))
    """
    if strategy is not None:
        raise NotImplementedError("distributed_optimizer(strategy=...): DistributedStrategy options are not "
                                  "supported; oar's fleet averages the gradients over the ranks and nothing more")
    return DistributedOptimizer(optimizer)
