"""`paddle.sparse.nn`: layers over sparse tensors (activations, softmax, batch norm over the stored values)."""
from . import functional
from .layers import ReLU, ReLU6, LeakyReLU, Softmax, BatchNorm

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm"]
