"""SGD and Momentum: only their per-parameter updates (the base class does the rest)."""
from .optimizer import Optimizer
from .update_ops import MOMENTUM_UPDATE, SGD_UPDATE


class SGD(Optimizer):
    """Stochastic gradient descent: ``param -= lr * grad``.

    Example:
        >>> linear = oar.nn.Linear(2, 1)
        >>> sgd = oar.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
        >>> loss = linear(oar.ones([4, 2])).mean()
        >>> before = linear.bias.numpy().copy()
        >>> loss.backward(); sgd.step(); sgd.clear_grad()
        >>> [round(float(v), 4) for v in linear.bias.numpy() - before]  # d loss / d bias = 1
        [-0.1]
    """

    _op = SGD_UPDATE

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)


class Momentum(Optimizer):
    """Momentum SGD: ``v = momentum * v + grad``; ``param -= lr * v`` (Nesterov: ``lr * (grad + momentum * v)``).

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.Momentum(0.1, momentum=0.9, parameters=[p], use_nesterov=True)
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.2224, -0.4448]
    """

    _op = MOMENTUM_UPDATE
    _acc_names = ("velocity",)
    _hyper = ("momentum", "use_nesterov", "rescale_grad")

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, weight_decay=None,
                 grad_clip=None, multi_precision=False, rescale_grad=1.0, use_multi_tensor=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, momentum=float(momentum),
                         use_nesterov=bool(use_nesterov), rescale_grad=float(rescale_grad))
