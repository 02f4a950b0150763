"""`paddle.incubate.nn`: `FusedLinear` (defined in `oar.nn.layer.common`) and `functional`."""
from ...nn.layer.common import FusedLinear
from . import functional  # noqa: F401

__all__ = ["FusedLinear", "functional"]
