"""`paddle.nn.functional.extension`: `sequence_mask` (`oar/ops/nn/common.py`)."""
from ...ops.nn.common import sequence_mask  # noqa: F401
