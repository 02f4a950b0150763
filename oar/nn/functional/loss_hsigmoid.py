"""Hierarchical sigmoid loss: a binary tree over the classes, one logistic decision per inner node on the path from
the root to the label (composed from other ops: gradients follow for the input, weights and bias)."""
from ...core.state import STATE
from ...ops import creation as C
from ...ops import indexing as I
from ...ops import manipulation as S
from ...ops import math as M
from ...ops import reduction as R
from ...ops.nn.activation import softplus


def _default_paths(label, num_classes):
    """Node indices and bits of Paddle's default tree (code = label + num_classes; step j visits inner node
    ``(code >> (j + 1)) - 1`` with bit ``(code >> j) & 1``; a path has ``bit_length(code) - 1`` steps)."""
    length = (num_classes - 1).bit_length()
    code = S.reshape(M.cast(label, "int64"), [-1, 1]) + num_classes
    j = S.reshape(C.arange(0, length, dtype="int64"), [1, length])
    nodes = M.floor_divide(code, M.pow(C.full_like(j, 2), j + 1)) - 1
    bits = M.remainder(M.floor_divide(code, M.pow(C.full_like(j, 2), j)), C.full_like(j, 2))
    steps = M.floor_divide(code, M.pow(C.full_like(j, 2), j + 1)) > 0  # a higher set bit remains: a real step
    return nodes, bits, steps


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None, path_code=None, is_sparse=False,
                  name=None):
    """Per sample ``sum_j softplus(p_j) - bit_j * p_j`` with ``p_j = clip(input . weight[node_j] + bias[node_j],
    -40, 40)`` over the steps of the label's path; [N, 1]. Without `path_table`/`path_code` the default complete
    binary tree over `num_classes` is used, else the given node indices (-1 pads) and bits.

    As in Paddle, a path shorter than the longest one adds ``softplus(0) = log 2`` for each missing step (Paddle pads
    the logits with zeros before the softplus); the gradients are unaffected.

    Example:
        >>> import oar.nn.functional as F
        >>> x, w = oar.ones([1, 2]), oar.zeros([3, 2])
        >>> round(float(F.hsigmoid_loss(x, oar.to_tensor([1]), 4, w)), 4)  # two steps, each log 2
        1.3863
    """
    if is_sparse:
        raise NotImplementedError("hsigmoid_loss: is_sparse=True (sparse gradient rows) is not supported; oar "
                                  "computes the dense gradient, pass is_sparse=False")
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: give both path_table and path_code (a custom tree) or neither")
    if path_table is None:
        if num_classes < 2:
            raise ValueError(f"hsigmoid_loss: num_classes must be >= 2, got {num_classes}")
        if not STATE.static and label.size and int(R.max(label)) >= num_classes:
            raise ValueError(f"hsigmoid_loss: a label is >= num_classes={num_classes}")
        nodes, bits, valid = _default_paths(label, num_classes)
    else:
        nodes, bits = M.cast(path_table, "int64"), M.cast(path_code, "int64")
        valid = nodes >= 0
    n, length = nodes.shape[0], nodes.shape[1]
    safe = M.where(valid, nodes, M.zeros_like(nodes))
    w = S.reshape(I.gather(weight, S.reshape(safe, [-1]), axis=0), [n, length, -1])
    pre = R.sum(S.unsqueeze(input, 1) * w, axis=2)
    if bias is not None:
        pre = pre + S.reshape(I.gather(S.reshape(bias, [-1]), S.reshape(safe, [-1]), axis=0), [n, length])
    pre = M.where(valid, M.clip(pre, -40.0, 40.0), M.zeros_like(pre))
    loss = softplus(pre) - M.cast(bits, pre.dtype) * M.cast(valid, pre.dtype) * pre
    return R.sum(loss, axis=1, keepdim=True)
