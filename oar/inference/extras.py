"""`paddle.inference`'s `DataType`, `get_num_bytes_of_data_type`, `get_version` and `PredictorPool`."""
import enum

import numpy as np


class DataType(enum.IntEnum):
    """Element type of a predictor tensor (Paddle's ``paddle.inference.DataType``, same values).

    Example:
        >>> oar.inference.DataType.FLOAT32, int(oar.inference.DataType.INT64)
        (<DataType.FLOAT32: 0>, 1)
    """
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7
    BFLOAT16 = 8


_BYTES = {DataType.FLOAT32: 4, DataType.INT64: 8, DataType.INT32: 4, DataType.UINT8: 1, DataType.INT8: 1,
          DataType.FLOAT16: 2, DataType.BOOL: 1, DataType.FLOAT64: 8, DataType.BFLOAT16: 2}


def get_num_bytes_of_data_type(dtype):
    """The size in bytes of one element of `dtype` (a `DataType`). Paddle 3.3.1 answers -1 for FLOAT64, FLOAT16,
    BFLOAT16, INT8 and BOOL (its lookup lists only four types); oar gives the real sizes.

    Example:
        >>> [oar.inference.get_num_bytes_of_data_type(t) for t in (oar.inference.DataType.FLOAT32,
        ...                                                       oar.inference.DataType.FLOAT16)]
        [4, 2]
    """
    try:
        return _BYTES[DataType(dtype)]
    except ValueError:
        raise ValueError(f"get_num_bytes_of_data_type: {dtype!r} is not an oar.inference.DataType") from None


def get_version():
    """The version text of the inference library, in Paddle's layout (``version: ...\\ncommit: ...\\nbranch: ...``).

    Example:
        >>> oar.inference.get_version().splitlines()[0] == 'version: ' + oar.__version__
        True
    """
    from .. import version
    return f"version: {version.full_version}\ncommit: {version.commit}\nbranch: HEAD\n"


class PredictorPool:
    """`size` predictors made from one `Config` (each with its own executor state, for one thread each);
    `retrieve(i)` returns the i-th.

    Example:
        >>> from oar.static import InputSpec
        >>> oar.jit.save(oar.nn.Linear(2, 1), 'pool/net', input_spec=[InputSpec([None, 2], 'float32', 'x')])
        >>> pool = oar.inference.PredictorPool(oar.inference.Config('pool/net.pdmodel', 'pool/net.pdiparams'), 2)
        >>> pool.retrieve(0) is not pool.retrieve(1), pool.retrieve(1).get_input_names()
        (True, ['x'])
    """

    def __init__(self, config, size=1):
        from .predictor import create_predictor
        if not isinstance(size, (int, np.integer)) or size < 1:
            raise ValueError(f"PredictorPool: size must be a positive int, got {size!r}")
        self._predictors = [create_predictor(config)]
        self._predictors += [self._predictors[0].clone() for _ in range(int(size) - 1)]

    def retrieve(self, idx):
        """The predictor number `idx` (0 <= idx < size)."""
        if not 0 <= idx < len(self._predictors):
            raise IndexError(f"PredictorPool.retrieve: index {idx} out of range for a pool of "
                             f"{len(self._predictors)}")
        return self._predictors[idx]
