"""Metric ops: `auc`, Paddle's histogram AUC, which updates persistable statistics as it runs.

The histogram and the area are plain functions on arrays, shared by the op (the static `paddle.static.auc`) and the
eager `oar.metric.Auc`, so both give the same number on the same batches.
"""
from ..core import dtype as D
# auc_area, auc_histograms, positive_scores: re-exported for oar.metric.Auc
from ..kernels.metric import auc_area, auc_histograms, auc_update as _auc_impl, positive_scores  # noqa: F401
from .registry import defop


def _auc_infer(m, **attrs):
    return [([], D.float64), m[2], m[3]]


AUC = defop("auc", _auc_impl,
            inputs=("predict", "label", "stat_pos", "stat_neg", "ins_tag_weight"),
            outputs=("auc", "stat_pos_out", "stat_neg_out"), infer=_auc_infer,
            differentiable=False, onnx_reason="training metric (updates its state)")
