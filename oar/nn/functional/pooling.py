"""`paddle.nn.functional.pooling`: pooling (ops in `oar/ops/nn/pooling.py`)."""
from ...ops.nn.pooling import (max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,  # noqa: F401
                               adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                               adaptive_max_pool2d)
from .unpool import max_unpool1d, max_unpool2d, max_unpool3d, adaptive_max_pool3d  # noqa: F401,E402
