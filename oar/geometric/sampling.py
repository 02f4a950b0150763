"""Graph reindexing and neighbour sampling on CSC graphs (Paddle's `paddle.geometric.reindex_graph`,
`reindex_heter_graph`, `sample_neighbors`, `weighted_sample_neighbors`). These make index tensors, not values to
differentiate, so they run on NumPy arrays; sampling draws from oar's generator (`oar.seed` makes it repeatable;
Paddle's own draws differ)."""
import numpy as np

from ..core.state import rng
from ..eager.tensor import to_tensor


def _np(t, what):
    if t is None:
        raise ValueError(f"{what} must be given")
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise TypeError(f"{what} must be a 1-D integer tensor, got {a.dtype} of shape {list(a.shape)}")
    return a


def _reindex(x, neighbor_lists, count_lists):
    x = _np(x, "x")
    out_nodes = list(x.tolist())
    where = {int(n): i for i, n in enumerate(out_nodes)}
    if len(where) != len(out_nodes):
        raise ValueError("reindex_graph: the nodes of x must be unique")
    srcs, dsts = [], []
    for neighbors, count in zip(neighbor_lists, count_lists):
        nb, cnt = _np(neighbors, "neighbors"), _np(count, "count")
        if len(cnt) != len(x) or cnt.sum() != len(nb):
            raise ValueError(f"reindex_graph: count {cnt.tolist()} must give one number per node of x summing to "
                             f"the {len(nb)} neighbors")
        for n in nb.tolist():
            if n not in where:
                where[n] = len(out_nodes)
                out_nodes.append(n)
            srcs.append(where[n])
        dsts.append(np.repeat(np.arange(len(x)), cnt))
    dtype = x.dtype
    return (to_tensor(np.asarray(srcs, dtype)), to_tensor(np.concatenate(dsts).astype(dtype)),
            to_tensor(np.asarray(out_nodes, dtype)))


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Renumbers a sampled subgraph from 0: `x` (the centre nodes) keep their order, then each neighbour not seen
    before in order of appearance. Returns ``(reindex_src, reindex_dst, out_nodes)``: each neighbour's new index,
    the new index of the centre node it belongs to (node i has ``count[i]`` neighbours), and the nodes in new
    order. The buffers only speed up Paddle's GPU kernel.

    Example:
        >>> x, nb = oar.to_tensor([0, 1, 2]), oar.to_tensor([8, 9, 0, 4, 7, 6, 7])
        >>> src, dst, nodes = oar.geometric.reindex_graph(x, nb, oar.to_tensor([2, 3, 2], dtype='int32'))
        >>> src.numpy().tolist(), dst.numpy().tolist(), nodes.numpy().tolist()
        ([3, 4, 0, 5, 6, 7, 6], [0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 8, 9, 4, 7, 6])
    """
    return _reindex(x, [neighbors], [count])


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """`reindex_graph` for several edge types at once: `neighbors` and `count` are lists (one per type); the new
    numbering is shared and the results are concatenated in list order.

    Example:
        >>> x = oar.to_tensor([0, 1, 2])
        >>> nbs = [oar.to_tensor([8, 9, 0, 4, 7, 6, 7]), oar.to_tensor([0, 5, 3])]
        >>> cnts = [oar.to_tensor([2, 3, 2], dtype='int32'), oar.to_tensor([1, 1, 1], dtype='int32')]
        >>> oar.geometric.reindex_heter_graph(x, nbs, cnts)[2].numpy().tolist()
        [0, 1, 2, 8, 9, 4, 7, 6, 5, 3]
    """
    if len(neighbors) != len(count):
        raise ValueError(f"reindex_heter_graph: {len(neighbors)} neighbor lists but {len(count)} count lists")
    return _reindex(x, neighbors, count)


def _sample(row, colptr, input_nodes, sample_size, eids, return_eids, weights=None):
    row, colptr, nodes = _np(row, "row"), _np(colptr, "colptr"), _np(input_nodes, "input_nodes")
    eid = _np(eids, "eids") if return_eids else None
    w = None if weights is None else np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, "float64")
    g = rng()
    picked, counts = [], []
    for n in nodes.tolist():
        if not 0 <= n < len(colptr) - 1:
            raise IndexError(f"sample_neighbors: node {n} is out of range for a graph of {len(colptr) - 1} nodes")
        lo, hi = int(colptr[n]), int(colptr[n + 1])
        edges = np.arange(lo, hi)
        if 0 <= sample_size < len(edges):
            p = None if w is None else w[lo:hi] / w[lo:hi].sum()
            edges = np.sort(g.choice(edges, size=sample_size, replace=False, p=p))
        picked.append(edges)
        counts.append(len(edges))
    picked = np.concatenate(picked).astype(np.int64) if picked else np.zeros(0, np.int64)
    out = (to_tensor(row[picked]), to_tensor(np.asarray(counts, np.int32)))
    return out + (to_tensor(eid[picked]),) if return_eids else out


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False, perm_buffer=None,
                     name=None):
    """Samples up to `sample_size` neighbours (all when -1 or fewer) of each node of `input_nodes` in a CSC
    graph (`row`: source of each edge, `colptr`: where each node's edges start), without replacement. Returns
    ``(out_neighbors, out_count)`` (int32 counts), and the sampled edges' `eids` with ``return_eids=True``.

    Example:
        >>> row = oar.to_tensor([3, 7, 0, 9, 1, 4])
        >>> colptr = oar.to_tensor([0, 2, 4, 5, 6])
        >>> nb, cnt = oar.geometric.sample_neighbors(row, colptr, oar.to_tensor([0, 2]))
        >>> nb.numpy().tolist(), cnt.numpy().tolist()
        ([3, 7, 1], [2, 1])
    """
    if return_eids and eids is None:
        raise ValueError("sample_neighbors: return_eids=True needs eids")
    return _sample(row, colptr, input_nodes, int(sample_size), eids, return_eids)


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None, return_eids=False,
                              name=None):
    """`sample_neighbors` drawing each node's neighbours with probability proportional to `edge_weight` (without
    replacement).

    Example:
        >>> row, colptr = oar.to_tensor([3, 7, 0, 9]), oar.to_tensor([0, 2, 4])
        >>> w = oar.to_tensor([1.0, 0.0, 1.0, 1.0])
        >>> nb, cnt = oar.geometric.weighted_sample_neighbors(row, colptr, w, oar.to_tensor([0]), sample_size=1)
        >>> nb.numpy().tolist(), cnt.numpy().tolist()
        ([3], [1])
    """
    if return_eids and eids is None:
        raise ValueError("weighted_sample_neighbors: return_eids=True needs eids")
    return _sample(row, colptr, input_nodes, int(sample_size), eids, return_eids, weights=edge_weight)
