"""`paddle.nn.functional.norm`: normalizations (ops in `oar/ops/nn/norm.py`)."""
from ...ops.nn.norm import (batch_norm, layer_norm, group_norm, instance_norm, normalize,  # noqa: F401
                            local_response_norm)
