"""`paddle.nn.functional.common`: linear, dropout, padding, interpolation, unfold/fold, label smoothing (ops in
`oar/ops/nn/common.py`, `oar/ops/nn/fold.py`)."""
from ...ops.nn.common import (linear, bilinear, dropout, dropout2d, dropout3d, alpha_dropout, pad,  # noqa: F401
                              interpolate, upsample, cosine_similarity, zeropad2d)
from ...ops.nn.fold import unfold, fold  # noqa: F401
from .loss import label_smooth  # noqa: F401
from .class_center import class_center_sample  # noqa: F401,E402
