"""`oar.geometric` (Paddle's `paddle.geometric`): segment pooling (`oar/ops/segment.py`). Paddle's message passing
(`send_u_recv`, ...) and neighbour sampling are not provided.

Example:
    >>> import oar.geometric as G
    >>> G.segment_sum(oar.ones([3, 2]), oar.to_tensor([0, 1, 1])).numpy().tolist()
    [[1.0, 1.0], [2.0, 2.0]]
"""
from ..ops.segment import segment_sum, segment_mean, segment_max, segment_min

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min"]
