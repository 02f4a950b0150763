"""`oar.incubate` (Paddle's `paddle.incubate`): the parts model libraries use, as thin re-exports: `incubate.nn`
(`FusedLinear`, `FusedDropoutAdd`, `functional.fused_linear` / `fused_matmul_bias` / `swiglu`), `identity_loss`,
`softmax_mask_fuse`, the segment pooling of `paddle.geometric` and its Paddle 2.2 graph names (`graph_send_recv`,
`graph_reindex`, `graph_sample_neighbors`). Paddle's GPU-only fused attention / transformer kernels are not
provided.

Example:
    >>> from oar.incubate.nn import FusedLinear
    >>> FusedLinear(4, 2).weight.shape
    [4, 2]
"""
from ..nn.functional.loss import identity_loss
from ..ops.segment import segment_sum, segment_mean, segment_max, segment_min
from .graph import graph_send_recv, graph_reindex, graph_sample_neighbors, softmax_mask_fuse
from .optimizer import LookAhead, ModelAverage
from . import nn  # noqa: F401

__all__ = ["identity_loss", "nn", "segment_sum", "segment_mean", "segment_max", "segment_min", "graph_send_recv",
           "graph_reindex", "graph_sample_neighbors", "softmax_mask_fuse", "LookAhead", "ModelAverage"]
