"""Optimizer update kernels: ``(param, grad, *accumulators, lr, **hyper) -> (param_out, *accumulators_out)``, each
result in the dtype of the value it replaces."""
from .backend import array_module


def state_like(param, value=0.0):
    """A fresh accumulator for `param`: its shape and dtype, filled with `value`."""
    xp = array_module(param)
    return xp.full_like(param, value)


def _cast(x, like):
    return x.astype(like.dtype, copy=False)


def sgd(param, grad, lr):
    return _cast(param - lr * grad, param)


def momentum(param, grad, velocity, lr, momentum=0.9, use_nesterov=False, rescale_grad=1.0):
    if rescale_grad != 1.0:
        grad = grad * rescale_grad
    v = momentum * velocity + grad  # (not in place: a gradient wider than the velocity widens `v`, as before)
    p = param - lr * ((grad + momentum * v) if use_nesterov else v)
    return (p if p.dtype == param.dtype else p.astype(param.dtype),
            v if v.dtype == velocity.dtype else v.astype(velocity.dtype))


def _adam_step(grad, m1, m2, beta1, beta2, epsilon, c2, lr_t, xp):
    """Adds this step's share of `grad` into the moments `m1` / `m2` (already scaled by beta1 / beta2, owned by
    the caller: updated in place) and returns the update ``lr_t * m1 / (sqrt(m2) + epsilon * c2)`` (a fresh
    array). In-place ops throughout: this is the bulk of an eager Adam step."""
    t = grad * (1.0 - beta1)
    m1 += t
    xp.multiply(grad, grad, out=t)
    t *= 1.0 - beta2
    m2 += t
    den = xp.sqrt(m2)
    den += epsilon * c2
    xp.divide(m1, den, out=den)
    den *= lr_t
    return den


def adam(param, grad, m1, m2, b1p, b2p, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, coeff=0.0, lr_ratio=1.0):
    # Written with in-place ops on fresh outputs and few Python calls: on a small parameter the call overhead is
    # most of an eager Adam step (on a bias of 10 values nearly all of its ~6 us are call overhead).
    xp = array_module(param, grad, m1, m2, b1p, b2p, lr)
    lr = float(lr) * lr_ratio
    if coeff:  # AdamW: decoupled decay, before the Adam step (as Paddle's adamw kernel)
        param = param * (1.0 - lr * coeff)
    c2 = (1.0 - b2p.item()) ** 0.5  # (`item` reads a [1] or 0-D accumulator alike)
    lr_t = lr * c2 / (1.0 - b1p.item())
    m1o, m2o = m1 * beta1, m2 * beta2
    step = _adam_step(grad, m1o, m2o, beta1, beta2, epsilon, c2, lr_t, xp)
    p = xp.subtract(param, step, out=step)
    b1o, b2o = b1p * beta1, b2p * beta2
    dt = param.dtype
    if p.dtype == dt and m1o.dtype == dt and m2o.dtype == dt and b1o.dtype == b1p.dtype and b2o.dtype == b2p.dtype:
        return p, m1o, m2o, b1o, b2o  # (the common case: every result already in its input's dtype)
    return (_cast(p, param), _cast(m1o, m1), _cast(m2o, m2), _cast(b1o, b1p), _cast(b2o, b2p))


def adamax(param, grad, moment, inf_norm, b1p, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):
    xp = array_module(param, grad, moment, inf_norm, b1p, lr)
    m = beta1 * moment + (1.0 - beta1) * grad
    u = xp.maximum(beta2 * inf_norm + epsilon, xp.abs(grad))
    p = param - (lr / (1.0 - b1p.reshape(()))) * (m / u)
    return _cast(p, param), _cast(m, moment), _cast(u, inf_norm), _cast(b1p * beta1, b1p)


def rmsprop(param, grad, mom, ms, mg, lr, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False):
    xp = array_module(param, grad, mom, ms, mg, lr)
    ms = rho * ms + (1.0 - rho) * grad * grad
    if centered:
        mg = rho * mg + (1.0 - rho) * grad
        denom = ms - mg * mg + epsilon
    else:
        denom = ms + epsilon
    mom = momentum * mom + lr * grad / xp.sqrt(denom)
    return _cast(param - mom, param), _cast(mom, param), _cast(ms, param), _cast(mg, param)


def adagrad(param, grad, moment, lr, epsilon=1e-6):
    xp = array_module(param, grad, moment, lr)
    moment = moment + grad * grad
    return _cast(param - lr * grad / (xp.sqrt(moment) + epsilon), param), _cast(moment, param)


def adadelta(param, grad, asg, asu, lr, rho=0.95, epsilon=1e-6):
    xp = array_module(param, grad, asg, asu, lr)
    asg = rho * asg + (1.0 - rho) * grad * grad
    update = -xp.sqrt((asu + epsilon) / (asg + epsilon)) * grad
    asu = rho * asu + (1.0 - rho) * update * update
    return _cast(param + lr * update, param), _cast(asg, param), _cast(asu, param)


def lamb(param, grad, m1, m2, b1p, b2p, lr, beta1=0.9, beta2=0.999, epsilon=1e-6, weight_decay=0.01,
          always_adapt=False):
    xp = array_module(param, grad, m1, m2, b1p, b2p, lr)
    m1 = beta1 * m1 + (1.0 - beta1) * grad
    m2 = beta2 * m2 + (1.0 - beta2) * grad * grad
    m_hat = m1 / (1.0 - b1p.reshape(()))
    v_hat = m2 / (1.0 - b2p.reshape(()))
    r = m_hat / (xp.sqrt(v_hat) + epsilon) + weight_decay * param
    pn, rn = xp.sqrt((param * param).sum()), xp.sqrt((r * r).sum())
    adapt = always_adapt or weight_decay != 0.0
    trust = pn / rn if adapt and pn > 0 and rn > 0 else 1.0
    p = param - lr * trust * r
    return (_cast(p, param), _cast(m1, param), _cast(m2, param), _cast(b1p * beta1, b1p), _cast(b2p * beta2, b2p))


# ---- multi-tensor updates: every parameter of a group in a few whole-buffer calls -----------------------------

def flat_base(arrays):
    """The 1-D buffer that `arrays` are the packed views of, or None."""
    base = arrays[0].base
    if base is None or base.ndim != 1:
        return None
    size = 0
    for a in arrays:
        if a.base is not base:
            return None
        size += a.size
    return base if size == base.size else None


def pack(arrays):
    """(flat buffer, views of it shaped like `arrays`), values copied."""
    xp = array_module(*arrays)
    flat = xp.concatenate([a.reshape(-1) for a in arrays])
    views, off = [], 0
    for a in arrays:
        views.append(flat[off:off + a.size].reshape(a.shape))
        off += a.size
    return flat, views


def sgd_flat(P, G, lr):
    xp = array_module(P, G, lr)
    t = xp.multiply(lr, G)
    xp.subtract(P, t, out=P)


def momentum_flat(P, G, V, lr, momentum=0.9, use_nesterov=False, rescale_grad=1.0):
    xp = array_module(P, G, V, lr)
    if rescale_grad != 1.0:
        G = G * rescale_grad
    V *= momentum
    V += G
    step = (G + momentum * V) if use_nesterov else V
    t = xp.multiply(lr, step)
    xp.subtract(P, t, out=P)


def adam_flat(P, G, M1, M2, B1P, B2P, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, coeff=0.0, lr_ratio=1.0):
    xp = array_module(P, G, M1, M2, B1P, B2P, lr)
    b1p, b2p = B1P.tolist(), B2P.tolist()
    if b1p.count(b1p[0]) != len(b1p) or b2p.count(b2p[0]) != len(b2p):
        return False  # parameters at different step counts: per-parameter updates
    lr = float(lr) * lr_ratio
    if coeff:
        P *= 1.0 - lr * coeff
    c2 = (1.0 - b2p[0]) ** 0.5
    lr_t = lr * c2 / (1.0 - b1p[0])
    M1 *= beta1
    M2 *= beta2
    xp.subtract(P, _adam_step(G, M1, M2, beta1, beta2, epsilon, c2, lr_t, xp), out=P)
    B1P *= beta1
    B2P *= beta2
    return True


def multi_update(single, n_acc, flat_kernel):
    """The kernel updating `n` parameters at once: `single` is the per-parameter kernel, `flat_kernel` the same
    update on packed flat buffers (it returns False to fall back to `single`)."""
    state_groups = (0,) + tuple(range(2, 2 + n_acc))

    def kernel(*arrays, n, **attrs):
        xp = array_module(*arrays)
        lr = arrays[-1]
        flats = []
        for i in state_groups:
            f = flat_base(arrays[i * n:(i + 1) * n])
            if f is None:
                break
            flats.append(f)
        else:  # already packed (every call after the first): whole-buffer updates in place
            G = xp.concatenate([g.reshape(-1) for g in arrays[n:2 * n]]) if n > 1 else arrays[n].reshape(-1)
            if flat_kernel(flats[0], G, *flats[1:], lr, **attrs) is not False:
                return arrays[:n] + arrays[2 * n:(2 + n_acc) * n]
        groups = [arrays[i * n:(i + 1) * n] for i in range(2 + n_acc)]
        if all(len({a.dtype for a in g}) == 1 for g in groups[:-1]):  # pack, then update the packed views
            packed = [pack(groups[i]) for i in state_groups]
            G = xp.concatenate([g.reshape(-1) for g in groups[1]])
            if flat_kernel(packed[0][0], G, *[f for f, _ in packed[1:]], lr, **attrs) is not False:
                return tuple(a for _, views in packed for a in views)
        outs = [single(*(g[j] for g in groups), lr, **attrs) for j in range(n)]
        outs = [o if type(o) is tuple else (o,) for o in outs]
        return tuple(outs[j][k] for k in range(1 + n_acc) for j in range(n))

    return kernel
