"""`DataParallel`: each rank runs the same model on its share of the batch, gradients averaged over the ranks."""
import contextlib

from ..core.state import STATE
from ..nn.layer import Layer
from ..core import capture
from . import comm
from .env import get_world_size
from .group import resolve
from .reducer import Reducer, average_in_program


def sync_params_buffers(layer, group=None, src_rank=0):
    """Overwrites every parameter and persistable buffer of `layer` with its value on global rank `src_rank`.

    Example:
        >>> net = oar.nn.Linear(2, 2)
        >>> oar.distributed.parallel.sync_params_buffers(net)   # one rank: nothing changes
    """
    g = resolve(group)
    if g.nranks == 1 or not g.is_member():
        return
    root = g.get_group_rank(src_rank)
    for t in list(layer.parameters()) + list(layer.buffers()):
        t._data = comm.broadcast(t._data, root, g)
        t._version += 1


class DataParallel(Layer):
    """Wraps `layers` for data-parallel training: one process per rank, each on its own part of the data.

    At construction the parameters and buffers of rank 0 are broadcast to every rank. Each ``loss.backward()``
    then averages the gradients over the ranks, in buckets of about `comm_buffer_size` MB whose all-reduce
    starts while the rest of the backward is still running. After it every rank holds the same gradients, so
    the same ``optimizer.step()`` keeps the replicas equal. With one rank it is a plain pass-through. In a training
    step converted whole by ``to_static``, the same average is ``c_allreduce`` ops of the step's program, after
    each backward that is not under ``no_sync()``.

    Args:
        layers (Layer): the model.
        strategy: accepted for Paddle compatibility (unused).
        comm_buffer_size (float): size in MB of a gradient bucket.
        last_comm_buffer_size (float): size in MB of the first bucket to fill (the last parameters), kept small
            so its all-reduce starts early.
        find_unused_parameters (bool): parameters that this rank's forward did not use count as ready (zero
            gradient) at once, and a parameter that no rank used keeps ``grad`` None. Without it an unused
            parameter gets a zero gradient averaged with the other ranks'.
        group (Group, optional): the ranks to average over (default: all).

    Example:
        >>> model = oar.DataParallel(oar.nn.Linear(4, 2))
        >>> loss = model(oar.ones([3, 4])).mean()
        >>> loss.backward()
        >>> sorted(model.state_dict())          # no wrapper prefix, as Paddle
        ['bias', 'weight']
    """

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel wraps an oar.nn.Layer, got {type(layers).__name__}")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self._reducer = None
        if (group.nranks if group is not None else get_world_size()) > 1:
            g = resolve(group)
            self.group = g
            sync_params_buffers(layers, g)
            params, seen = [], set()
            for p in layers.parameters():
                if not p.stop_gradient and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
            if g.is_member() and params:
                self._reducer = Reducer(params, g, comm_buffer_size, last_comm_buffer_size, find_unused_parameters)
        else:
            self.group = group

    def forward(self, *inputs, **kwargs):
        outputs = self._layers(*inputs, **kwargs)
        r = self._reducer
        if r is None:
            return outputs
        if STATE.static:  # traced in a converted training step: its program all-reduces after each backward
            cap = capture.active()
            if cap is not None:
                cap.sync_after_backward(id(r), lambda c: average_in_program(r, c))
        elif r.enabled and STATE.grad_enabled:
            r.prepare(outputs)
        return outputs

    @contextlib.contextmanager
    def no_sync(self):
        """Within it, backward only accumulates local gradients (gradient accumulation); the next backward outside
        averages everything accumulated.

        Example:
            >>> model = oar.DataParallel(oar.nn.Linear(2, 1))
            >>> with model.no_sync():
            ...     model(oar.ones([1, 2])).sum().backward()
        """
        r = self._reducer
        was = r.enabled if r is not None else None
        if r is not None:
            r.enabled = False
        try:
            yield
        finally:
            if r is not None:
                r.enabled = was

    def scale_loss(self, loss):
        """Paddle 1.x compatibility: the loss unchanged (gradients are averaged by the all-reduce)."""
        return loss

    def apply_collective_grads(self):
        """Paddle 1.x compatibility: nothing to do, the all-reduce runs inside ``backward()``."""

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True):
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix, use_hook)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = load_dict = set_state_dict
