"""`paddle.nn.functional.conv`: convolutions (ops in `oar/ops/nn/conv.py`)."""
from ...ops.nn.conv import (conv1d, conv2d, conv3d, conv1d_transpose, conv2d_transpose,  # noqa: F401
                            conv3d_transpose)
