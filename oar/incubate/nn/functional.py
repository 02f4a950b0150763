"""`paddle.incubate.nn.functional`: `fused_linear`, `fused_matmul_bias` (`oar.nn.functional.fused`) and `swiglu`."""
from ...nn.functional.fused import fused_linear, fused_matmul_bias
from ...ops.nn.activation_composed import swiglu

__all__ = ["fused_linear", "fused_matmul_bias", "swiglu"]
