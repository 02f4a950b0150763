"""`paddle.nn.functional.input`: `embedding` and `one_hot` (ops in `oar/ops/nn/common.py`)."""
from ...ops.nn.common import embedding, one_hot  # noqa: F401
