"""Text datasets in Paddle's file formats: `UCIHousing` (housing.data), `Imdb` (aclImdb_v1.tar.gz), `Imikolov`
(PTB, simple-examples.tgz)."""
from .uci_housing import UCIHousing
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .wmt14 import WMT14
from .wmt16 import WMT16
from .conll05 import Conll05st

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
