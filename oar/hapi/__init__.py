"""`oar.Model`: Paddle 2.x's high-level API that wraps a Layer with its optimizer, loss and metrics."""
from .model import Model

__all__ = ["Model"]
