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
import numpy as np

from ..ops.registry import defop


def _infer(m, **attrs):
    """Outputs have the metas of (param, *accumulators): inputs minus grad and lr."""
    return [m[0]] + list(m[2:-1])


# what every optimizer update op declares: its inputs are never cast by AMP, it has no gradient and no ONNX form
UPDATE_FIELDS = dict(amp="skip", differentiable=False, onnx_reason="training-only (optimizer update)")


def _op(name, kernel, accs):
    return defop(name, kernel, inputs=("param", "grad") + accs + ("lr",),
                 outputs=("param_out",) + tuple(a + "_out" for a in accs), infer=_infer, **UPDATE_FIELDS)


def _cast(x, like):
    return x.astype(like.dtype, copy=False)


def _sgd(param, grad, lr):
    return _cast(param - lr * grad, param)


SGD_UPDATE = defop("sgd_update", _sgd, inputs=("param", "grad", "lr"), outputs=("param_out",),
                   infer=lambda m: [m[0]], **UPDATE_FIELDS)


def _momentum(param, grad, velocity, lr, momentum=0.9, use_nesterov=False, rescale_grad=1.0):
    if rescale_grad != 1.0:
        grad = grad * rescale_grad
    v = momentum * velocity + grad
    step = (grad + momentum * v) if use_nesterov else v
    return _cast(param - lr * step, param), _cast(v, velocity)


MOMENTUM_UPDATE = _op("momentum_update", _momentum, ("velocity",))


def _adam(param, grad, m1, m2, b1p, b2p, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, coeff=0.0, lr_ratio=1.0):
    # Written with in-place ops on fresh outputs: this kernel is the bulk of an eager Adam step.
    lr = float(lr) * lr_ratio
    if coeff:  # AdamW: decoupled decay, before the Adam step (as Paddle's adamw kernel)
        param = param * (1.0 - lr * coeff)
    c2 = (1.0 - float(b2p.reshape(()))) ** 0.5
    lr_t = lr * c2 / (1.0 - float(b1p.reshape(())))
    m1o = m1 * beta1
    t = grad * (1.0 - beta1)
    m1o += t
    m2o = m2 * beta2
    np.multiply(grad, grad, out=t)
    t *= 1.0 - beta2
    m2o += t
    den = np.sqrt(m2o)
    den += epsilon * c2
    np.divide(m1o, den, out=den)
    den *= lr_t
    p = np.subtract(param, den, out=den)
    return (_cast(p, param), _cast(m1o, m1), _cast(m2o, m2), _cast(b1p * beta1, b1p), _cast(b2p * beta2, b2p))


ADAM_UPDATE = _op("adam_update", _adam, ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"))


def _adamax(param, grad, moment, inf_norm, b1p, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):
    m = beta1 * moment + (1.0 - beta1) * grad
    u = np.maximum(beta2 * inf_norm + epsilon, np.abs(grad))
    p = param - (lr / (1.0 - b1p.reshape(()))) * (m / u)
    return _cast(p, param), _cast(m, moment), _cast(u, inf_norm), _cast(b1p * beta1, b1p)


ADAMAX_UPDATE = _op("adamax_update", _adamax, ("moment", "inf_norm", "beta1_pow_acc"))


def _rmsprop(param, grad, mom, ms, mg, lr, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False):
    ms = rho * ms + (1.0 - rho) * grad * grad
    if centered:
        mg = rho * mg + (1.0 - rho) * grad
        denom = ms - mg * mg + epsilon
    else:
        denom = ms + epsilon
    mom = momentum * mom + lr * grad / np.sqrt(denom)
    return _cast(param - mom, param), _cast(mom, param), _cast(ms, param), _cast(mg, param)


RMSPROP_UPDATE = _op("rmsprop_update", _rmsprop, ("momentum", "mean_square", "mean_grad"))


def _adagrad(param, grad, moment, lr, epsilon=1e-6):
    moment = moment + grad * grad
    return _cast(param - lr * grad / (np.sqrt(moment) + epsilon), param), _cast(moment, param)


ADAGRAD_UPDATE = _op("adagrad_update", _adagrad, ("moment",))


def _adadelta(param, grad, asg, asu, lr, rho=0.95, epsilon=1e-6):
    asg = rho * asg + (1.0 - rho) * grad * grad
    update = -np.sqrt((asu + epsilon) / (asg + epsilon)) * grad
    asu = rho * asu + (1.0 - rho) * update * update
    return _cast(param + lr * update, param), _cast(asg, param), _cast(asu, param)


ADADELTA_UPDATE = _op("adadelta_update", _adadelta, ("avg_squared_grad", "avg_squared_update"))


def _lamb(param, grad, m1, m2, b1p, b2p, lr, beta1=0.9, beta2=0.999, epsilon=1e-6, weight_decay=0.01,
          always_adapt=False):
    m1 = beta1 * m1 + (1.0 - beta1) * grad
    m2 = beta2 * m2 + (1.0 - beta2) * grad * grad
    m_hat = m1 / (1.0 - b1p.reshape(()))
    v_hat = m2 / (1.0 - b2p.reshape(()))
    r = m_hat / (np.sqrt(v_hat) + epsilon) + weight_decay * param
    pn, rn = np.sqrt((param * param).sum()), np.sqrt((r * r).sum())
    adapt = always_adapt or weight_decay != 0.0
    trust = pn / rn if adapt and pn > 0 and rn > 0 else 1.0
    p = param - lr * trust * r
    return (_cast(p, param), _cast(m1, param), _cast(m2, param), _cast(b1p * beta1, b1p), _cast(b2p * beta2, b2p))


LAMB_UPDATE = _op("lamb_update", _lamb, ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"))
