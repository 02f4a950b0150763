"""`oar.dataset`: Paddle 2.x's legacy reader-style datasets (a reader creator yields one sample at a time).

oar never downloads: the files must already be in ``oar.dataset.common.DATA_HOME`` (Paddle's cache folder
``~/.cache/paddle/dataset`` by default). `oar.vision.datasets` holds the `oar.io.Dataset` versions."""
from . import common, mnist

__all__ = ["common", "mnist"]
