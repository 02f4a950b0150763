"""`oar.text` (Paddle's `paddle.text`): text datasets read from their local archives."""
from .datasets import Imdb, Imikolov, UCIHousing

__all__ = ["Imdb", "Imikolov", "UCIHousing"]
