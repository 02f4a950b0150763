"""`paddle.nn.functional.extension`: `sequence_mask` (`oar/ops/nn/common.py`), `gather_tree`
(`oar/ops/search.py`)."""
from ...ops.nn.common import sequence_mask  # noqa: F401
from ...ops.search import gather_tree  # noqa: F401
