"""Per-coordinate adaptive methods (RMSProp, Adagrad, Adadelta): only their per-parameter updates."""
from ..kernels.optimizer import state_like
from .optimizer import Optimizer
from .update_ops import ADADELTA_UPDATE, ADAGRAD_UPDATE, RMSPROP_UPDATE


class RMSProp(Optimizer):
    """RMSProp: ``ms = rho*ms + (1-rho)*g^2``; ``mom = momentum*mom + lr*g/sqrt(ms [- mg^2] + eps)``; ``p -= mom``.

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.RMSProp(learning_rate=0.01, parameters=[p], centered=True)
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.9212, -1.9208]
    """

    _op = RMSPROP_UPDATE
    _acc_names = ("momentum", "mean_square", "mean_grad")
    _hyper = ("rho", "epsilon", "momentum", "centered")

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, rho=float(rho),
                         epsilon=float(epsilon), momentum=float(momentum), centered=bool(centered))


class Adagrad(Optimizer):
    """Adagrad: ``moment += g^2``; ``param -= lr * g / (sqrt(moment) + epsilon)``.

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.Adagrad(learning_rate=0.1, parameters=[p])
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.8331, -1.8311]
    """

    _op = ADAGRAD_UPDATE
    _acc_names = ("moment",)
    _hyper = ("epsilon",)

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None, grad_clip=None, name=None,
                 initial_accumulator_value=0.0):
        self._initial = float(initial_accumulator_value)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, epsilon=float(epsilon))

    def _acc_init(self, name, p, group):
        return state_like(p._data, self._initial)


class Adadelta(Optimizer):
    """Adadelta: ``update = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) * g``; ``param += lr * update``.

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.Adadelta(learning_rate=1.0, parameters=[p])
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.991, -1.991]
    """

    _op = ADADELTA_UPDATE
    _acc_names = ("_avg_squared_grad", "_avg_squared_update")
    _hyper = ("rho", "epsilon")

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, rho=float(rho),
                         epsilon=float(epsilon))
