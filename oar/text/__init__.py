"""`oar.text` (Paddle's `paddle.text`): text datasets read from their local archives."""
from .datasets import Imdb, Imikolov, Movielens, UCIHousing, WMT14, WMT16

__all__ = ["Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
