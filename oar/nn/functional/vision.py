"""`paddle.nn.functional.vision`: pixel (un)shuffle (ops in `oar/ops/nn/common.py`)."""
from ...ops.nn.common import pixel_shuffle, pixel_unshuffle, channel_shuffle  # noqa: F401
