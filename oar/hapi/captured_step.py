"""The training step `Model.train_batch` runs when its network is converted by `to_static`: forward, loss,
backward, optimizer step and clear_grad captured as ONE program (`oar.jit.train_step`), its losses and metric
inputs fetched. Metrics are then updated on the host, as in the eager step.

Example:
    >>> net = oar.jit.to_static(oar.nn.Linear(4, 2))
    >>> model = oar.Model(net)
    >>> model.prepare(oar.optimizer.SGD(0.1, parameters=net.parameters()), oar.nn.CrossEntropyLoss())
    >>> loss = model.train_batch([np.ones([3, 4], 'float32')], [np.zeros([3, 1], 'int64')])
    >>> model._captured.concrete_program.train is not None
    True
"""


def is_converted(network):
    """True when `network.forward` is a `to_static` function."""
    from ..jit.static_function import StaticFunction
    return isinstance(getattr(network, "forward", None), StaticFunction)


def captured_step(network, loss_fn, optimizer, metrics, n_inputs):
    """A `to_static` function ``step(*inputs, *labels) -> (losses, metric_inputs)`` that trains one batch."""
    from ..jit import to_static

    def train_step(*batch):
        inputs, labels = list(batch[:n_inputs]), list(batch[n_inputs:])
        outputs = _flat(network(*inputs))
        losses = _flat(loss_fn(*(outputs + labels)))
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        total.backward()
        optimizer.step()
        optimizer.clear_grad()
        return losses, [_flat(m.compute(*(outputs + labels))) for m in metrics]
    return to_static(train_step)


def _flat(data):
    if isinstance(data, (list, tuple)):
        return [y for x in data for y in _flat(x)]
    return [data]
