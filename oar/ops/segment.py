"""Segment pooling (`paddle.geometric.segment_sum` / `mean` / `max` / `min`, also `paddle.incubate.segment_*`): rows
of `data` pooled by sorted segment ids. One op, `segment_pool`, whose gradient rules are written with other ops: a
row's gradient is its segment's (divided by the segment size for the mean; for the max and min, only the rows equal
to the result, ties all included, as Paddle's)."""
from ..kernels.indexing import segment_count as _segment_count, segment_pool as _segment_pool
from .common import public_api
from .indexing import index_select
from .logic import equal
from .math import cast, maximum, ones_like
from .registry import apply, bounds_output, defop


def _infer(m, pooltype):
    (ds, dt), _ = m
    return [([-1] + list(ds[1:]), dt)]


def _grad(g, out, data, ids, pooltype):
    if data.dtype.kind != "f":
        return None, None
    rows = index_select(g, ids, axis=0)
    if pooltype == "SUM":
        return rows, None
    if pooltype == "MEAN":
        counts = apply(SEGMENT_POOL, (ones_like(data), ids), {"pooltype": "SUM"})
        return index_select(g / maximum(counts, ones_like(counts)), ids, axis=0), None
    return rows * cast(equal(data, index_select(out, ids, axis=0)), data.dtype), None


SEGMENT_POOL = defop("segment_pool", _segment_pool, inputs=("x", "segment_ids"), nondiff=(1,), infer=_infer,
                     grad=_grad, onnx_reason="data-dependent output size (the largest segment id)")
bounds_output(SEGMENT_POOL, elements=_segment_count)


def _pool(data, segment_ids, pooltype):
    if segment_ids.dtype.name not in ("int32", "int64"):
        raise TypeError(f"segment_{pooltype.lower()}: segment_ids must be int32 or int64, got {segment_ids.dtype.name}")
    return apply(SEGMENT_POOL, (data, segment_ids), {"pooltype": pooltype})


def segment_sum(data, segment_ids, name=None):
    """Sums the rows of `data` that share a segment id (ids sorted, non-negative); ``max(id) + 1`` rows, 0 for a
    segment no row names.

    Example:
        >>> import oar.geometric as G
        >>> data = oar.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> G.segment_sum(data, oar.to_tensor([0, 0, 2])).numpy().tolist()
        [[4.0, 6.0], [0.0, 0.0], [5.0, 6.0]]
    """
    return _pool(data, segment_ids, "SUM")


def segment_mean(data, segment_ids, name=None):
    """The mean of the rows sharing a segment id (integers truncate toward zero, as Paddle's).

    Example:
        >>> import oar.geometric as G
        >>> G.segment_mean(oar.to_tensor([1, 2, 4]), oar.to_tensor([0, 1, 1])).numpy().tolist()
        [1, 3]
    """
    return _pool(data, segment_ids, "MEAN")


def segment_max(data, segment_ids, name=None):
    """The elementwise maximum of the rows sharing a segment id.

    Example:
        >>> import oar.geometric as G
        >>> G.segment_max(oar.to_tensor([[1.0, 2.0], [3.0, 0.0]]), oar.to_tensor([0, 0])).numpy().tolist()
        [[3.0, 2.0]]
    """
    return _pool(data, segment_ids, "MAX")


def segment_min(data, segment_ids, name=None):
    """The elementwise minimum of the rows sharing a segment id.

    Example:
        >>> import oar.geometric as G
        >>> G.segment_min(oar.to_tensor([[1.0, 2.0], [3.0, 0.0]]), oar.to_tensor([0, 0])).numpy().tolist()
        [[1.0, 0.0]]
    """
    return _pool(data, segment_ids, "MIN")


__all__ = public_api(globals())
