"""`oar.incubate` (Paddle's `paddle.incubate`): the parts model libraries use, as thin re-exports: `incubate.nn`
(`FusedLinear`, `functional.fused_linear` / `fused_matmul_bias` / `swiglu`), `identity_loss` and the segment
pooling of `paddle.geometric`. Paddle's GPU-only
fused attention / transformer kernels, graph sampling and the LookAhead / ModelAverage optimizers are not
provided.

Example:
    >>> from oar.incubate.nn import FusedLinear
    >>> FusedLinear(4, 2).weight.shape
    [4, 2]
"""
from ..nn.functional.loss import identity_loss
from ..ops.segment import segment_sum, segment_mean, segment_max, segment_min
from . import nn  # noqa: F401

__all__ = ["identity_loss", "nn", "segment_sum", "segment_mean", "segment_max", "segment_min"]
