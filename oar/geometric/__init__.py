"""`oar.geometric` (Paddle's `paddle.geometric`): segment pooling (`oar/ops/segment.py`), message passing
(`message_passing.py`: `send_u_recv`, `send_ue_recv`, `send_uv`) and graph reindexing / neighbour sampling
(`sampling.py`).

Example:
    >>> import oar.geometric as G
    >>> G.segment_sum(oar.ones([3, 2]), oar.to_tensor([0, 1, 1])).numpy().tolist()
    [[1.0, 1.0], [2.0, 2.0]]
"""
from ..ops.segment import segment_sum, segment_mean, segment_max, segment_min
from .message_passing import send_u_recv, send_ue_recv, send_uv
from .sampling import reindex_graph, reindex_heter_graph, sample_neighbors, weighted_sample_neighbors

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "send_u_recv", "send_ue_recv", "send_uv",
           "reindex_graph", "reindex_heter_graph", "sample_neighbors", "weighted_sample_neighbors"]
