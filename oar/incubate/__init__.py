"""`oar.incubate` (Paddle's `paddle.incubate`): the parts model libraries use, as thin re-exports: `incubate.nn`
(`FusedLinear`, `functional.fused_linear` / `fused_matmul_bias` / `swiglu`) and `identity_loss`. Paddle's GPU-only
fused attention / transformer kernels, graph sampling and the LookAhead / ModelAverage optimizers are not
provided.

Example:
    >>> from oar.incubate.nn import FusedLinear
    >>> FusedLinear(4, 2).weight.shape
    [4, 2]
"""
from ..nn.functional.loss import identity_loss
from . import nn  # noqa: F401

__all__ = ["identity_loss", "nn"]
