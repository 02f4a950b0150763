"""`paddle.nn.functional.distance`: `pairwise_distance` (`oar/ops/nn/common.py`)."""
from ...ops.nn.common import pairwise_distance  # noqa: F401
