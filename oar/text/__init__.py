"""`oar.text` (Paddle's `paddle.text`): text datasets read from their local archives."""
from .datasets import Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14, WMT16

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
