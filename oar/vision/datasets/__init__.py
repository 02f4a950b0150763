"""Vision datasets read from local files (oar never downloads)."""
from .mnist import MNIST, FashionMNIST, read_idx

__all__ = ["MNIST", "FashionMNIST", "read_idx"]
