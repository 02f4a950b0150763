"""The UCI Boston housing data (``housing.data``: 506 rows of 13 features and the price)."""
import numpy as np

from ...io.dataset import Dataset
from ._files import check_mode, resolve

FEATURES = 13


class UCIHousing(Dataset):
    """``(features float32 [13], price float32 [1])``; features are centred by their mean and divided by their
    range over the whole file, then the first 80% of rows are 'train' and the rest 'test' (Paddle's split).

    Example:
        >>> rows = np.arange(20 * 14, dtype="float64").reshape(20, 14) % 7
        >>> np.savetxt("housing.data", rows)
        >>> ds = paddle.text.UCIHousing(data_file="housing.data", mode="test")
        >>> len(ds), ds[0][0].shape, ds[0][1].shape
        (4, (13,), (1,))
    """

    URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
    MD5 = "d4accdce7a25600298819f8e28e8d593"

    def __init__(self, data_file=None, mode="train", download=True):
        self.mode = check_mode("UCIHousing", mode)
        self.data_file = resolve("UCIHousing", data_file, "uci_housing", self.URL, self.MD5, download)
        self.dtype = "float32"
        data = np.fromfile(self.data_file, sep=" ")
        if data.size == 0 or data.size % (FEATURES + 1):
            raise ValueError(f"UCIHousing: {self.data_file!r} must hold rows of {FEATURES + 1} numbers "
                             f"(got {data.size} numbers)")
        data = data.reshape(-1, FEATURES + 1)
        span = data.max(0) - data.min(0)
        span[span == 0] = 1.0
        data[:, :FEATURES] = (data[:, :FEATURES] - data.mean(0)[:FEATURES]) / span[:FEATURES]
        cut = int(len(data) * 0.8)
        self.data = data[:cut] if self.mode == "train" else data[cut:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return row[:-1].astype(self.dtype), row[-1:].astype(self.dtype)

    def __len__(self):
        return len(self.data)
