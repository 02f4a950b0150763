"""Optimizer update kernels: ``(param, grad, *accumulators, lr, **hyper) -> (param_out, *accumulators_out)``, each\nresult in the dtype of the value it replaces."""
import numpy as np


def _cast(x, like):
    return x.astype(like.dtype, copy=False)


def sgd(param, grad, lr):
    return _cast(param - lr * grad, param)


def momentum(param, grad, velocity, lr, momentum=0.9, use_nesterov=False, rescale_grad=1.0):
    if rescale_grad != 1.0:
        grad = grad * rescale_grad
    v = momentum * velocity + grad
    step = (grad + momentum * v) if use_nesterov else v
    return _cast(param - lr * step, param), _cast(v, velocity)


def adam(param, grad, m1, m2, b1p, b2p, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, coeff=0.0, lr_ratio=1.0):
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


def adamax(param, grad, moment, inf_norm, b1p, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):
    m = beta1 * moment + (1.0 - beta1) * grad
    u = np.maximum(beta2 * inf_norm + epsilon, np.abs(grad))
    p = param - (lr / (1.0 - b1p.reshape(()))) * (m / u)
    return _cast(p, param), _cast(m, moment), _cast(u, inf_norm), _cast(b1p * beta1, b1p)


def rmsprop(param, grad, mom, ms, mg, lr, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False):
    ms = rho * ms + (1.0 - rho) * grad * grad
    if centered:
        mg = rho * mg + (1.0 - rho) * grad
        denom = ms - mg * mg + epsilon
    else:
        denom = ms + epsilon
    mom = momentum * mom + lr * grad / np.sqrt(denom)
    return _cast(param - mom, param), _cast(mom, param), _cast(ms, param), _cast(mg, param)


def adagrad(param, grad, moment, lr, epsilon=1e-6):
    moment = moment + grad * grad
    return _cast(param - lr * grad / (np.sqrt(moment) + epsilon), param), _cast(moment, param)


def adadelta(param, grad, asg, asu, lr, rho=0.95, epsilon=1e-6):
    asg = rho * asg + (1.0 - rho) * grad * grad
    update = -np.sqrt((asu + epsilon) / (asg + epsilon)) * grad
    asu = rho * asu + (1.0 - rho) * update * update
    return _cast(param + lr * update, param), _cast(asg, param), _cast(asu, param)


def lamb(param, grad, m1, m2, b1p, b2p, lr, beta1=0.9, beta2=0.999, epsilon=1e-6, weight_decay=0.01,
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
