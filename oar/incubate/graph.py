"""`paddle.incubate`'s graph functions (Paddle 2.x names, kept in Paddle 3 as deprecated aliases of
`paddle.geometric`) and `softmax_mask_fuse`."""
from ..geometric import reindex_graph, sample_neighbors, send_u_recv


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """`oar.geometric.send_u_recv` under its Paddle 2.2 name (`pool_type` is its `reduce_op`).

    Example:
        >>> x = oar.to_tensor([[0., 2.], [1., 4.], [2., 6.]])
        >>> src, dst = oar.to_tensor([0, 1, 2, 0]), oar.to_tensor([1, 2, 1, 0])
        >>> oar.incubate.graph_send_recv(x, src, dst, pool_type='mean').numpy().tolist()
        [[0.0, 2.0], [1.0, 4.0], [1.0, 4.0]]
    """
    return send_u_recv(x, src_index, dst_index, pool_type, out_size)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """`oar.geometric.reindex_graph` under its Paddle 2.2 name (the buffers only speed up Paddle's GPU kernel).

    Example:
        >>> x, nb = oar.to_tensor([0, 1, 2]), oar.to_tensor([8, 9, 0, 4, 7, 6, 7])
        >>> oar.incubate.graph_reindex(x, nb, oar.to_tensor([2, 3, 2], dtype='int32'))[0].numpy().tolist()
        [3, 4, 0, 5, 6, 7, 6]
    """
    return reindex_graph(x, neighbors, count)


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1, return_eids=False,
                           flag_perm_buffer=False, name=None):
    """`oar.geometric.sample_neighbors` under its Paddle 2.2 name and argument order.

    Example:
        >>> row, colptr = oar.to_tensor([3, 7, 0, 9, 1, 4]), oar.to_tensor([0, 2, 4, 5, 6])
        >>> nb, cnt = oar.incubate.graph_sample_neighbors(row, colptr, oar.to_tensor([1]))
        >>> nb.numpy().tolist(), cnt.numpy().tolist()
        ([0, 9], [2])
    """
    return sample_neighbors(row, colptr, input_nodes, sample_size, eids, return_eids)


def softmax_mask_fuse(x, mask, name=None):
    """``softmax(x + mask)`` over the last axis, for attention scores `x` ``[batch, heads, q, k]`` and an additive
    `mask` ``[batch, 1, q, k]`` (Paddle fuses the two kernels on GPU; the result is the same).

    Example:
        >>> x = oar.zeros([1, 1, 1, 3])
        >>> mask = oar.to_tensor([[[[0.0, -1e4, 0.0]]]])
        >>> oar.incubate.softmax_mask_fuse(x, mask).numpy().round(3).tolist()
        [[[[0.5, 0.0, 0.5]]]]
    """
    from ..nn.functional import softmax
    if x.ndim != 4 or mask.ndim != 4:
        raise ValueError(f"softmax_mask_fuse: x and mask must be 4-D ([batch, heads, q, k] and [batch, 1, q, k]), "
                         f"got {x.shape} and {mask.shape}")
    if mask.shape[1] != 1 or [mask.shape[0]] + mask.shape[2:] != [x.shape[0]] + x.shape[2:]:
        raise ValueError(f"softmax_mask_fuse: mask must be [batch, 1, q, k] for x {x.shape}, got {mask.shape}")
    return softmax(x + mask, axis=-1)
