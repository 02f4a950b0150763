"""`nn.SyncBatchNorm` across ranks: the batch statistics of every rank's batch together.

In training, each rank sums its batch per channel (values, squares, count); one all-reduce of the packed sums
gives the global mean and (biased) variance, which normalise the local batch and update the running statistics
(``running = momentum * running + (1 - momentum) * batch``, as BatchNorm). The all-reduce here is differentiable
(its gradient is the all-reduce of the gradient), so backward carries every rank's contribution to the shared
statistics back to each rank's inputs, as Paddle's (and PyTorch's) SyncBatchNorm does. Importing
`oar.distributed` installs it in `oar.nn.layer.norm.SYNC`; with one rank the layer is plain BatchNorm.
"""
from ..core.state import STATE, no_grad
from ..nn.layer import norm as nn_norm
from ..ops import creation as C, manipulation as S, math as M, reduction as R
from ..ops.registry import apply, defop
from . import comm
from .env import get_world_size
from .group import get_group

ALL_REDUCE_SUM = defop(
    "c_allreduce_sum_differentiable", lambda x, ring_id: comm.all_reduce(x, "sum", get_group(ring_id)),
    infer=lambda metas, **a: [metas[0]],
    grad=lambda g, out, x, ring_id: apply(ALL_REDUCE_SUM, (g,), {"ring_id": ring_id})).set(
    side_effect=True, onnx_reason="collective communication between ranks")


def synced_batch_norm(layer, x):
    """`layer` (an `nn.SyncBatchNorm` in training) applied to `x` with statistics over every rank; None when
    one rank runs (plain batch norm then)."""
    if get_world_size() == 1:
        return None
    if STATE.static:
        raise NotImplementedError("SyncBatchNorm across ranks runs in eager mode (DataParallel); in a program use "
                                  "BatchNorm")
    channels_last = layer._data_format[-1] == "C" and x.ndim > 2
    ch = x.ndim - 1 if channels_last else 1
    axes = [d for d in range(x.ndim) if d != ch]
    c = layer._num_features
    count = 1
    for d in axes:
        if x.shape[d] < 0:
            raise NotImplementedError("SyncBatchNorm across ranks needs the batch's shape known when it is traced")
        count *= x.shape[d]
    local = S.concat([R.sum(x, axis=axes), R.sum(x * x, axis=axes),
                      C.full([1], float(count), x.dtype)])
    total = apply(ALL_REDUCE_SUM, (local,), {"ring_id": 0})
    n = total[2 * c:]
    mean = total[:c] / n
    var = total[c:2 * c] / n - mean * mean
    shape = [1] * x.ndim
    shape[ch] = c
    inv = M.rsqrt(S.reshape(var, shape) + layer._epsilon)
    out = (x - S.reshape(mean, shape)) * inv * S.reshape(layer.weight, shape) + S.reshape(layer.bias, shape)
    m = layer._momentum
    with no_grad():
        layer._mean._data = (m * layer._mean + (1 - m) * mean)._data.astype(layer._mean._data.dtype)
        layer._variance._data = (m * layer._variance + (1 - m) * var)._data.astype(layer._variance._data.dtype)
    return out


nn_norm.SYNC.batch_norm = synced_batch_norm
