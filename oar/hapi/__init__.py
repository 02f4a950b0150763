"""`oar.Model`: Paddle 2.x's high-level API that wraps a Layer with its optimizer, loss and metrics; callbacks
(public in `oar.callbacks`), the progress bar, `summary` and `flops`."""
from .model import Model
from .summary import summary, flops

__all__ = ["Model", "summary", "flops"]
