"""The Adam family (Adam, AdamW, Adamax, Lamb): only their per-parameter updates."""
import numpy as np

from ..kernels.optimizer import state_like
from .optimizer import Optimizer
from .update_ops import ADAM_UPDATE, ADAMAX_UPDATE, LAMB_UPDATE


def _pow_acc(beta, p):
    """Paddle keeps beta^t in a [1] accumulator that starts at beta (float32, float64 for float64 parameters)."""
    return np.asarray([beta], np.float64 if p._data.dtype == np.float64 else np.float32)


class Adam(Optimizer):
    """Adam (Kingma & Ba) with Paddle's bias correction inside the step size.

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.Adam(learning_rate=0.1, parameters=[p])
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.8004, -1.8002]
    """

    _op = ADAM_UPDATE
    _acc_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
    _hyper = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, use_multi_tensor=False,
                 name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, beta1=float(beta1),
                         beta2=float(beta2), epsilon=float(epsilon))

    def _acc_init(self, name, p, group):
        if name == "beta1_pow_acc":
            return _pow_acc(group["beta1"], p)
        if name == "beta2_pow_acc":
            return _pow_acc(group["beta2"], p)
        return state_like(p._data)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``param *= 1 - lr * weight_decay`` before the Adam step.

    Args:
        weight_decay: the decay coefficient (float, default 0.01); per group too.
        lr_ratio: optional ``fn(param) -> float`` scaling the learning rate of each parameter.
        apply_decay_param_fun: optional ``fn(param_name) -> bool``; parameters it rejects are not decayed.

    Example:
        >>> model = oar.nn.Linear(2, 2)
        >>> opt = oar.optimizer.AdamW(1e-3, parameters=model.parameters(), weight_decay=0.01,
        ...                           apply_decay_param_fun=lambda n: 'bias' not in n)
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.AdamW(learning_rate=0.1, parameters=[p], weight_decay=0.01)
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.7985, -1.7963]
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, name=None):
        if not isinstance(weight_decay, (int, float)):
            weight_decay = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        self._per_param = {}
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, name=name)

    def _to_regularizer(self, wd):
        return None  # weight_decay is AdamW's decoupled coefficient, not a gradient regularizer

    def _attrs(self, p, group):
        key = (id(p), id(group))
        a = self._per_param.get(key)
        if a is None:
            decay = self._apply_decay_param_fun is None or self._apply_decay_param_fun(p.name)
            coeff = float(group["weight_decay"] or 0.0) if decay else 0.0
            ratio = float(self._lr_ratio(p)) if self._lr_ratio is not None else 1.0
            a = self._per_param[key] = {**group["_attrs"], "coeff": coeff, "lr_ratio": ratio}
        return a


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm; ``param -= lr / (1 - beta1^t) * m / u``.

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.Adamax(learning_rate=0.1, parameters=[p])
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.8052, -1.8025]
    """

    _op = ADAMAX_UPDATE
    _acc_names = ("moment", "inf_norm", "beta1_pow_acc")
    _hyper = ("beta1", "beta2", "epsilon")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, beta1=float(beta1),
                         beta2=float(beta2), epsilon=float(epsilon))

    def _acc_init(self, name, p, group):
        return _pow_acc(group["beta1"], p) if name == "beta1_pow_acc" else state_like(p._data)


class Lamb(Adam):
    """LAMB: Adam direction plus ``lamb_weight_decay * param``, scaled by the trust ratio ||param|| / ||r||.

    Example:
        >>> p = oar.to_tensor([1.0, -2.0], stop_gradient=False)
        >>> opt = oar.optimizer.Lamb(learning_rate=0.1, lamb_weight_decay=0.01, parameters=[p])
        >>> for _ in range(2):
        ...     (p * p).sum().backward()
        ...     opt.step(); opt.clear_grad()
        >>> [round(v, 4) for v in p.numpy().tolist()]
        [0.7006, -1.6969]
    """

    _op = LAMB_UPDATE
    _hyper = ("beta1", "beta2", "epsilon", "lamb_weight_decay", "always_adapt")

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-06,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision=False,
                 always_adapt=False, name=None):
        self._exclude = exclude_from_weight_decay_fn
        self._per_param = {}
        Optimizer.__init__(self, learning_rate, parameters, None, grad_clip, name, beta1=float(beta1),
                           beta2=float(beta2), epsilon=float(epsilon), lamb_weight_decay=float(lamb_weight_decay),
                           always_adapt=bool(always_adapt))

    def _attrs(self, p, group):
        key = (id(p), id(group))
        a = self._per_param.get(key)
        if a is None:
            a = dict(group["_attrs"])
            wd = a.pop("lamb_weight_decay")
            a["weight_decay"] = 0.0 if self._exclude is not None and self._exclude(p) else wd
            self._per_param[key] = a
        return a
