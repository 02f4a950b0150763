"""Graph message passing (Paddle's `paddle.geometric.send_u_recv`, `send_ue_recv`, `send_uv`), composed of gather and
scatter ops so gradients come from theirs. An output row no message reaches is 0, as Paddle's."""
from ..ops import indexing, logic, manipulation, math
from ..ops.creation import full

_MESSAGE = {"add": math.add, "sub": math.subtract, "mul": math.multiply, "div": math.divide}
_REDUCE = ("sum", "mean", "max", "min")


def _check(reduce_op, message_op=None):
    if reduce_op not in _REDUCE:
        raise ValueError(f"reduce_op must be one of {list(_REDUCE)}, got {reduce_op!r}")
    if message_op is not None and message_op not in _MESSAGE:
        raise ValueError(f"message_op must be one of {list(_MESSAGE)}, got {message_op!r}")


def _rows(x, out_size):
    """Paddle: the output has `out_size` rows, or as many as `x` when None or <= 0."""
    if out_size is None:
        return x.shape[0]
    n = int(out_size.item() if hasattr(out_size, "item") else out_size)
    return n if n > 0 else x.shape[0]


def _scatter(msg, dst_index, reduce_op, rows):
    """Reduces the per-edge messages `msg` ``[E, ...]`` into `rows` rows by `dst_index`."""
    shape = [rows] + list(msg.shape[1:])
    idx = manipulation.expand(manipulation.reshape(dst_index, [-1] + [1] * (msg.ndim - 1)), msg.shape)
    zeros = full(shape, 0, msg.dtype)
    total = indexing.put_along_axis(zeros, idx, msg, 0, reduce="add", include_self=False)
    if reduce_op == "sum":
        return total
    if reduce_op == "mean":
        count = indexing.put_along_axis(zeros, idx, math.ones_like(msg), 0, reduce="add", include_self=False)
        return total / math.maximum(count, full([], 1, msg.dtype))
    # max / min: the values of a no-gradient reduction; the gradient reaches every message equal to its row's
    # result (ties included), as Paddle's send_u_recv_grad kernel sends it
    best = indexing.put_along_axis(zeros, idx, msg.detach(), 0, reduce="amax" if reduce_op == "max" else "amin",
                                   include_self=False)
    chosen = math.cast(logic.equal(msg.detach(), indexing.gather(best, dst_index)), msg.dtype)
    grad_path = indexing.put_along_axis(zeros, idx, (msg - msg.detach()) * chosen, 0, reduce="add",
                                        include_self=False)
    return best + grad_path


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Sends ``x[src_index[e]]`` along each edge e and reduces the messages at ``dst_index[e]`` by `reduce_op`
    ('sum', 'mean', 'max', 'min'); the result has `out_size` rows (as many as `x` when None).

    Example:
        >>> x = oar.to_tensor([[0., 2.], [1., 4.], [2., 6.]])
        >>> src, dst = oar.to_tensor([0, 1, 2, 0]), oar.to_tensor([1, 2, 1, 0])
        >>> oar.geometric.send_u_recv(x, src, dst, reduce_op='sum').numpy().tolist()
        [[0.0, 2.0], [2.0, 8.0], [1.0, 4.0]]
    """
    _check(reduce_op)
    return _scatter(indexing.gather(x, src_index), dst_index, reduce_op, _rows(x, out_size))


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """Like `send_u_recv`, each message combined with its edge's feature ``y[e]`` first:
    ``x[src_index[e]] (message_op) y[e]`` with `message_op` 'add', 'sub', 'mul' or 'div' (broadcasting).

    Example:
        >>> x = oar.to_tensor([[0., 2.], [1., 4.], [2., 6.]])
        >>> y = oar.to_tensor([[1.], [2.], [3.], [4.]])
        >>> src, dst = oar.to_tensor([0, 1, 2, 0]), oar.to_tensor([1, 2, 1, 0])
        >>> oar.geometric.send_ue_recv(x, y, src, dst, 'mul', 'max').numpy().tolist()
        [[0.0, 8.0], [6.0, 18.0], [2.0, 8.0]]
    """
    _check(reduce_op, message_op)
    msg = _MESSAGE[message_op](indexing.gather(x, src_index), y)
    return _scatter(msg, dst_index, reduce_op, _rows(x, out_size))


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """The message of each edge: ``x[src_index[e]] (message_op) y[dst_index[e]]`` (no reduction), one row per
    edge.

    Example:
        >>> x = oar.to_tensor([[1., 2.], [3., 4.]])
        >>> oar.geometric.send_uv(x, x, oar.to_tensor([0, 1]), oar.to_tensor([1, 1]), 'mul').numpy().tolist()
        [[3.0, 8.0], [9.0, 16.0]]
    """
    _check("sum", message_op)
    return _MESSAGE[message_op](indexing.gather(x, src_index), indexing.gather(y, dst_index))

