"""Paddle's ``paddle.distributed.split``: a linear or embedding layer whose weight is split over `num_partitions`
model-parallel ranks. oar holds the whole weight on every rank (see dtensor.py), so the op computes the whole
result, as Paddle's gathered / all-reduced output is; ``gather_out=False`` gives the rank's own part, as Paddle's."""
from ..core.state import in_dynamic_mode, no_grad
from .env import get_rank, get_world_size


def _check(size, operation, axis, num_partitions):
    if not (isinstance(size, (list, tuple)) and len(size) == 2):
        raise ValueError(f"split: size must be a list or tuple of two ints (the weight's shape), got {size!r}")
    if operation not in ("linear", "embedding"):
        raise ValueError(f"split: operation must be 'linear' or 'embedding', got {operation!r}")
    if axis not in (0, 1):
        raise ValueError(f"split: axis must be 0 or 1, got {axis!r}")
    world = get_world_size()
    if num_partitions != world:
        raise ValueError(f"split: num_partitions={num_partitions} must equal the number of processes ({world}): "
                         "oar splits the weight over all ranks (one partition per rank)")
    if size[axis] % num_partitions:
        raise ValueError(f"split: size[{axis}]={size[axis]} is not divisible by num_partitions={num_partitions}")


def _same_on_every_rank(*params):
    """Each rank initialised its own copy: rank 0's values become everyone's (eager, several ranks)."""
    if get_world_size() > 1:
        if not in_dynamic_mode():
            raise NotImplementedError("split: on several ranks, oar supports split in dynamic-graph mode only")
        from .collective import broadcast
        with no_grad():
            for p in params:
                if p is not None:
                    broadcast(p, src=0)


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None, bias_attr=None,
          name=None):
    """`operation` ('linear' or 'embedding') of `x` with a new weight of shape `size` split along `axis` over
    `num_partitions` ranks (which must be all the processes: 1 without MPI).

    Paddle's cases (the weight W is ``size``; r is this rank, n the partitions):
        - embedding (axis 0, the vocabulary split): the lookup of `x` in W (the parts' lookups summed).
          `bias_attr` and ``gather_out=False`` do not apply and are refused.
        - linear, axis 0 (row parallel): ``x @ W + b``; ``gather_out=False``: rank r's partial sum
          ``x[..., rows_r] @ W[rows_r]`` (the bias is added after the sum, as Paddle does).
        - linear, axis 1 (column parallel): ``x @ W + b``; ``gather_out=False``: rank r's columns of it.
    Unlike Paddle (static graph only), it also runs eagerly, where each call makes new parameters (initialised by
    `weight_attr` / `bias_attr`; rank 0's values on every rank): to train them, build a static program.

    Example:
        >>> one = oar.ParamAttr(initializer=oar.nn.initializer.Constant(1.0))
        >>> oar.distributed.split(oar.ones([2, 3]), (3, 4), "linear", axis=1, weight_attr=one).numpy().tolist()[0]
        [3.0, 3.0, 3.0, 3.0]
    """
    from ..nn import Embedding, Linear
    from ..nn import functional as F
    from ..ops.indexing import slice as slice_op
    _check(size, operation, axis, num_partitions)
    rank, n = get_rank(), num_partitions
    chunk = size[axis] // n
    if operation == "embedding":
        if axis != 0:
            raise ValueError("split: an embedding's weight splits along axis 0 (the vocabulary) only")
        if not gather_out:
            raise ValueError("split: gather_out=False does not apply to an embedding (its parts are always summed)")
        if bias_attr is not None:
            raise ValueError("split: an embedding has no bias; bias_attr must be None")
        emb = Embedding(size[0], size[1], weight_attr=weight_attr, name=name)
        _same_on_every_rank(emb.weight)
        return emb(x)
    if x.shape[-1] != size[0]:
        raise ValueError(f"split: x's last dim ({x.shape[-1]}) must be the weight's rows ({size[0]}): oar takes "
                         "the whole input on every rank")
    lin = Linear(size[0], size[1], weight_attr=weight_attr, bias_attr=bias_attr, name=name)
    _same_on_every_rank(lin.weight, lin.bias)
    if gather_out:
        return lin(x)
    lo, hi = rank * chunk, (rank + 1) * chunk
    if axis == 1:
        b = None if lin.bias is None else slice_op(lin.bias, [0], [lo], [hi])
        return F.linear(x, slice_op(lin.weight, [1], [lo], [hi]), b)
    return F.linear(slice_op(x, [len(x.shape) - 1], [lo], [hi]), slice_op(lin.weight, [0], [lo], [hi]))
