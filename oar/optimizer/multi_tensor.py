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
from ..kernels.optimizer import adam_flat, momentum_flat, multi_update, sgd_flat
from ..ops.registry import REGISTRY, defop
from .update_ops import UPDATE_FIELDS


def _multi(base, n_acc, flat_kernel):
    """The multi-tensor op for the per-parameter op `base` with `n_acc` accumulators."""
    kernel = multi_update(REGISTRY[base].impl, n_acc, flat_kernel)

    def infer(metas, n, **attrs):
        return list(metas[:n]) + list(metas[2 * n:(2 + n_acc) * n])

    return defop(f"multi_{base}", kernel, inputs=("x",), outputs=("out*",), variadic=True, infer=infer,
                 **UPDATE_FIELDS)


MULTI = {
    "sgd_update": _multi("sgd_update", 0, sgd_flat),
    "momentum_update": _multi("momentum_update", 1, momentum_flat),
    "adam_update": _multi("adam_update", 4, adam_flat),
}
