"""Multi-tensor optimizer updates: one op updates every parameter of a group (what `fuse_optimizer_updates`
puts in a training program in place of one update op per parameter).

Inputs are ``(params..., grads..., acc_0..., acc_1..., ..., lr)`` (``n`` of each, attr ``n``); outputs are
``(params..., acc_0..., ...)``. The first call packs each group of arrays (parameters, each accumulator) into one
flat buffer and returns views of it; later calls find their inputs already packed and update the flat buffers in
place with a handful of whole-buffer NumPy calls, whatever the number of parameters. Each flat kernel does the
same float operations in the same order as the per-parameter op, so results are bitwise equal.

Example:
    >>> from oar.optimizer.multi_tensor import MULTI
    >>> p, g = [np.ones(2, 'float32'), np.ones(3, 'float32')], [np.ones(2, 'float32'), np.ones(3, 'float32')]
    >>> out = MULTI['sgd_update'].impl(*p, *g, np.float32(0.5), n=2)
    >>> [a.tolist() for a in out]
    [[0.5, 0.5], [0.5, 0.5, 0.5]]
"""
import numpy as np

from ..ops.registry import REGISTRY, defop
from .update_ops import UPDATE_FIELDS


def _flat_base(arrays):
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


def _pack(arrays):
    """(flat buffer, views of it shaped like `arrays`), values copied."""
    flat = np.concatenate([a.reshape(-1) for a in arrays])
    views, off = [], 0
    for a in arrays:
        views.append(flat[off:off + a.size].reshape(a.shape))
        off += a.size
    return flat, views


def _sgd_flat(P, G, lr):
    t = np.multiply(lr, G)
    np.subtract(P, t, out=P)


def _momentum_flat(P, G, V, lr, momentum=0.9, use_nesterov=False, rescale_grad=1.0):
    if rescale_grad != 1.0:
        G = G * rescale_grad
    V *= momentum
    V += G
    step = (G + momentum * V) if use_nesterov else V
    t = np.multiply(lr, step)
    np.subtract(P, t, out=P)


def _adam_flat(P, G, M1, M2, B1P, B2P, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, coeff=0.0, lr_ratio=1.0):
    b1p, b2p = B1P.tolist(), B2P.tolist()
    if b1p.count(b1p[0]) != len(b1p) or b2p.count(b2p[0]) != len(b2p):
        return False  # parameters at different step counts: per-parameter updates
    lr = float(lr) * lr_ratio
    if coeff:
        P *= 1.0 - lr * coeff
    c2 = (1.0 - b2p[0]) ** 0.5
    lr_t = lr * c2 / (1.0 - b1p[0])
    M1 *= beta1
    t = G * (1.0 - beta1)
    M1 += t
    M2 *= beta2
    np.multiply(G, G, out=t)
    t *= 1.0 - beta2
    M2 += t
    den = np.sqrt(M2)
    den += epsilon * c2
    np.divide(M1, den, out=den)
    den *= lr_t
    np.subtract(P, den, out=P)
    B1P *= beta1
    B2P *= beta2
    return True


def _multi(base, n_acc, flat_kernel):
    """The multi-tensor op for the per-parameter op `base` with `n_acc` accumulators."""
    single = REGISTRY[base]

    state_groups = (0,) + tuple(range(2, 2 + n_acc))

    def kernel(*arrays, n, **attrs):
        lr = arrays[-1]
        flats = []
        for i in state_groups:
            f = _flat_base(arrays[i * n:(i + 1) * n])
            if f is None:
                break
            flats.append(f)
        else:  # already packed (every call after the first): whole-buffer updates in place
            G = np.concatenate([g.reshape(-1) for g in arrays[n:2 * n]]) if n > 1 else arrays[n].reshape(-1)
            if flat_kernel(flats[0], G, *flats[1:], lr, **attrs) is not False:
                return arrays[:n] + arrays[2 * n:(2 + n_acc) * n]
        groups = [arrays[i * n:(i + 1) * n] for i in range(2 + n_acc)]
        if all(len({a.dtype for a in g}) == 1 for g in groups[:-1]):  # pack, then update the packed views
            packed = [_pack(groups[i]) for i in state_groups]
            G = np.concatenate([g.reshape(-1) for g in groups[1]])
            if flat_kernel(packed[0][0], G, *[f for f, _ in packed[1:]], lr, **attrs) is not False:
                return tuple(a for _, views in packed for a in views)
        outs = [single.impl(*(g[j] for g in groups), lr, **attrs) for j in range(n)]
        outs = [o if type(o) is tuple else (o,) for o in outs]
        return tuple(outs[j][k] for k in range(1 + n_acc) for j in range(n))

    def infer(metas, n, **attrs):
        return list(metas[:n]) + list(metas[2 * n:(2 + n_acc) * n])

    return defop(f"multi_{base}", kernel, inputs=("x",), outputs=("out*",), variadic=True, infer=infer,
                 **UPDATE_FIELDS)


MULTI = {
    "sgd_update": _multi("sgd_update", 0, _sgd_flat),
    "momentum_update": _multi("momentum_update", 1, _momentum_flat),
    "adam_update": _multi("adam_update", 4, _adam_flat),
}
