"""`optimizer.minimize(loss)` in static mode: append_backward, then one update op per parameter.

Each update is the optimizer's registered update op (`oar.optimizer.update_ops`) appended with its outputs
written straight into the persistable parameter and accumulator variables. Accumulators and a fixed learning
rate are persistable variables initialised by ops in the startup program; an `LRScheduler` learning rate is an
ordinary input variable that `Executor.run` feeds from the scheduler (`oar.graph.feeders`).
"""
import numpy as np

from ..core import dtype as D
from . import feeders
from .backward import append_backward, building
from .builder import BUILDER, default_startup_program, persistable_var as _persistable, user_location


class _Proto:
    """What `Optimizer._acc_init` reads from a parameter, for a static Variable."""

    def __init__(self, v):
        self.name, self.shape, self.dtype = v.name, v.shape, v.dtype
        self._data = np.zeros(v.shape, D.np_dtype(v.dtype))


def static_minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None, grad_transform=None):
    """Appends backward and update ops for `loss`; returns ``(optimize_ops, params_grads)``.

    `grad_transform(params_grads) -> params_grads`, when given, appends ops between the backward and the updates
    (the data-parallel gradient all-reduce of `oar.distributed.fleet`)."""
    main = loss.block.program
    startup = startup_program or default_startup_program()
    params_grads = append_backward(loss, parameters, no_grad_set)
    block = main.global_block()
    if opt._parameter_list is None:
        opt._parameter_list = []
    fresh = [p for p, _ in params_grads if id(p) not in opt._group_of]
    if fresh:
        opt._add_param_group({"params": fresh})
    n_before = len(block.ops)
    with building(block), BUILDER.role_guard(main, "optimize"):
        if grad_transform is not None:
            params_grads = grad_transform(params_grads)
        if opt._grad_clip is not None and params_grads:
            params_grads = opt._grad_clip(params_grads)
        # a scheduler (any callable giving the current rate, as `LRScheduler`) is re-read by every run
        sched = opt._learning_rate if callable(opt._learning_rate) else None
        lr_name = main.unique_name("learning_rate")
        if sched is None:
            lr_var = _persistable(main, startup, lr_name, np.array(opt.get_lr(), np.float32))
        else:  # a feed the executor fills with the scheduler's current value at each run
            lr_var = block.create_var(lr_name, [], "float32", stop_gradient=True, is_data=True)
            feeders.register(main, lr_name, sched)
        for p, g in params_grads:
            group = opt._group_of[id(p)]
            reg = p.attrs.get("regularizer") or group["_reg"]
            if reg is not None:
                g = reg(p, g)
            scale = group["learning_rate"] * (p.attrs.get("optimize_attr") or {}).get("learning_rate", 1.0)
            lr = lr_var if lr_var.dtype is p.dtype else lr_var.astype(p.dtype)
            if scale != 1.0:
                lr = lr * scale
            proto = _Proto(p)
            accs = [_persistable(main, startup, f"{p.name}_{n}_0", opt._acc_init(n, proto, group))
                    for n in opt._acc_names]
            op = opt._op
            ins = [p, g, *accs, lr]
            targets = [p, *accs]
            block.append_op(op.name, {slot: [v.name] for slot, v in zip(op.inputs, ins)},
                            {slot: [t.name] for slot, t in zip(op.outputs, targets)},
                            dict(opt._attrs(p, group)), user_location())
    return block.ops[n_before:], params_grads
