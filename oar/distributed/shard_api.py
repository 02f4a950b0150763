"""Paddle's auto-parallel `shard_layer` and `shard_optimizer` on oar's distributed tensors (see dtensor.py: every
rank holds the whole global value, the placements describe the layout). A sharded layer computes what the plain
layer computes; a sharded optimizer steps as the plain one does, its accumulators laid out like their parameters."""
import types

from ..eager.tensor import Tensor
from .auto_parallel import ProcessMesh, Replicate
from .dtensor import shard_tensor


def _replicate_rest(layer, mesh):
    """Parameters and buffers that `shard_fn` left plain become replicated on `mesh` (Paddle's default)."""
    for key, param in list(layer._parameters.items()):
        if param is not None and not param.is_dist():
            layer.add_parameter(key, shard_tensor(param, mesh, [Replicate()] * mesh.ndim))
    for key, buf in list(layer._buffers.items()):
        if isinstance(buf, Tensor) and not buf.is_dist():
            persistable = key not in layer._non_persistable_buffer_names_set
            layer.register_buffer(key, shard_tensor(buf, mesh, [Replicate()] * mesh.ndim), persistable)


def shard_layer(layer, process_mesh, shard_fn=None, input_fn=None, output_fn=None):
    """Lays out the parameters and buffers of `layer` (and its sublayers) on `process_mesh`; returns `layer`.

    Args:
        layer: an `oar.nn.Layer` (changed in place: its parameters are replaced by distributed parameters, so
            build the optimizer after this call, as in Paddle).
        process_mesh: a `ProcessMesh`.
        shard_fn: ``shard_fn(name, sublayer, process_mesh)`` called on every sublayer (the layer itself too, named
            ``""``); it may replace parameters with ``shard_tensor(param, mesh, placements)``. What it leaves
            plain is replicated.
        input_fn: ``input_fn(inputs, process_mesh)``, a forward pre-hook (its result, if not None, replaces the
            inputs tuple).
        output_fn: ``output_fn(outputs, process_mesh)``, a forward post-hook (its result replaces the outputs).

    Example:
        >>> mesh = oar.distributed.ProcessMesh([0, 1], dim_names=['x'])
        >>> def shard_fn(name, sub, mesh):
        ...     if isinstance(sub, oar.nn.Linear):
        ...         sub.weight = oar.distributed.shard_tensor(sub.weight, mesh, [oar.distributed.Shard(1)])
        >>> net = oar.distributed.shard_layer(oar.nn.Sequential(oar.nn.Linear(4, 4)), mesh, shard_fn)
        >>> net[0].weight.placements, net[0].bias.placements
        ([Shard(dim=1)], [Replicate()])
    """
    from ..nn import Layer
    if not isinstance(layer, Layer):
        raise TypeError(f"shard_layer: layer must be an oar.nn.Layer, got {type(layer).__name__}")
    if not isinstance(process_mesh, ProcessMesh):
        raise TypeError(f"shard_layer: process_mesh must be a ProcessMesh, got {type(process_mesh).__name__}")
    for name, sub in layer.named_sublayers(include_self=True):
        if shard_fn is not None:
            shard_fn(name, sub, process_mesh)
        _replicate_rest(sub, process_mesh)
    if input_fn is not None:
        layer.register_forward_pre_hook(lambda _, inputs: input_fn(inputs, process_mesh))
    if output_fn is not None:
        layer.register_forward_post_hook(lambda _, inputs, outputs: output_fn(outputs, process_mesh))
    return layer


def shard_optimizer(optimizer, shard_fn=None):
    """`optimizer`, with each accumulator (moments, ...) created as a distributed tensor: by default laid out as
    its parameter (an accumulator of another shape, such as Adam's ``beta1_pow_acc``, replicated), or by
    ``shard_fn(accumulator_name, param, accumulator)``. Parameters that are not distributed keep plain
    accumulators. The updates are those of the plain optimizer. Unlike Paddle (a wrapper object), the same
    optimizer object is returned.

    Example:
        >>> mesh = oar.distributed.ProcessMesh([0, 1], dim_names=['x'])
        >>> net = oar.distributed.shard_layer(oar.nn.Linear(2, 2), mesh)
        >>> opt = oar.distributed.shard_optimizer(oar.optimizer.Adam(parameters=net.parameters()))
        >>> net(oar.ones([1, 2])).sum().backward(); opt.step()
        >>> [t.placements for t in opt.state_dict().values()][0]
        [Replicate()]
    """
    if not hasattr(optimizer, "_accumulators") or not hasattr(optimizer, "_acc_names"):
        raise TypeError(f"shard_optimizer: takes an oar optimizer, got {type(optimizer).__name__}")
    if optimizer._acc:
        raise ValueError("shard_optimizer: call it before the optimizer's first step (its accumulators exist)")
    plain = optimizer._accumulators

    def _accumulators(self, p):
        accs = self._acc.get(id(p))
        if accs is not None or not p.is_dist():
            return plain(p)
        made = []
        for n, a in zip(self._acc_names, plain(p)):
            if shard_fn is not None:
                d = shard_fn(n, p, a)
                if not (isinstance(d, Tensor) and d.is_dist()):
                    raise TypeError(f"shard_optimizer: shard_fn({n!r}, ...) must return a distributed tensor "
                                    f"(shard_tensor), got {type(d).__name__}")
            elif a.shape == p.shape:
                d = shard_tensor(a, p.process_mesh, p.placements)
            else:
                d = shard_tensor(a, p.process_mesh, [Replicate()] * p.process_mesh.ndim)
            if d.shape != a.shape:
                raise ValueError(f"shard_optimizer: shard_fn changed the shape of {a.name} from {a.shape} to "
                                 f"{d.shape}")
            d._name, d.persistable = a.name, True
            made.append(d)
        self._acc[id(p)] = made
        return made

    optimizer._accumulators = types.MethodType(_accumulators, optimizer)
    return optimizer
