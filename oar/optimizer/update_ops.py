"""Per-parameter optimizer updates, each one registered op (numpy kernel, no gradient rule).

Every op takes ``(param, grad, *accumulators, lr)`` and returns ``(param_out, *accumulators_out)`` in the same
order; ``lr`` is a 0-D tensor (the already-scaled learning rate for this parameter). Hyper-parameters are attrs.
Eager `Optimizer.step` applies the op and writes the outputs back into the Parameter and accumulator tensors;
static `minimize` appends the same op with its outputs bound to the persistable parameter/accumulator variables
(see `oar.optimizer.optimizer` for the seam).

Example:
    >>> from oar.optimizer.update_ops import SGD_UPDATE
    >>> SGD_UPDATE.impl(np.ones(2), np.ones(2), np.float64(0.1))
    array([0.9, 0.9])
"""
from ..ops.registry import defop
from ..kernels.optimizer import (adadelta as _adadelta, adagrad as _adagrad, adam as _adam, adamax as _adamax,
                                 lamb as _lamb, momentum as _momentum, rmsprop as _rmsprop, sgd as _sgd)


def _infer(m, **attrs):
    """Outputs have the metas of (param, *accumulators): inputs minus grad and lr."""
    return [m[0]] + list(m[2:-1])


# what every optimizer update op declares: its inputs are never cast by AMP, it has no gradient and no ONNX form
UPDATE_FIELDS = dict(amp="skip", differentiable=False, onnx_reason="training-only (optimizer update)")


def _op(name, kernel, accs):
    return defop(name, kernel, inputs=("param", "grad") + accs + ("lr",),
                 outputs=("param_out",) + tuple(a + "_out" for a in accs), infer=_infer, **UPDATE_FIELDS)


SGD_UPDATE = defop("sgd_update", _sgd, inputs=("param", "grad", "lr"), outputs=("param_out",),
                   infer=lambda m: [m[0]], **UPDATE_FIELDS)


MOMENTUM_UPDATE = _op("momentum_update", _momentum, ("velocity",))


ADAM_UPDATE = _op("adam_update", _adam, ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"))


ADAMAX_UPDATE = _op("adamax_update", _adamax, ("moment", "inf_norm", "beta1_pow_acc"))


RMSPROP_UPDATE = _op("rmsprop_update", _rmsprop, ("momentum", "mean_square", "mean_grad"))


ADAGRAD_UPDATE = _op("adagrad_update", _adagrad, ("moment",))


ADADELTA_UPDATE = _op("adadelta_update", _adadelta, ("avg_squared_grad", "avg_squared_update"))


LAMB_UPDATE = _op("lamb_update", _lamb, ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"))
