"""Model compression with PaddleSlim's names: channel pruning (`L1NormFilterPruner`, `flops`) and knowledge
distillation. Quantization (PTQ and quantization-aware training) is `oar.quantization`. See docs/compression.md.

Example:
    >>> from oar.slim import L1NormFilterPruner, flops
    >>> net = oar.nn.Sequential(oar.nn.Conv2D(1, 8, 3), oar.nn.ReLU(), oar.nn.Conv2D(8, 4, 3))
    >>> before = flops(net, [1, 1, 8, 8])
    >>> plan = L1NormFilterPruner(net, [1, 1, 8, 8]).uniform_prune(0.5)
    >>> flops(net, [1, 1, 8, 8]) <= before / 2
    True
"""
from .distill import Distill, l2_loss, soft_label_loss
from .flops import flops
from .prune import FilterPruner, L1NormFilterPruner, PruningPlan

__all__ = ["flops", "FilterPruner", "L1NormFilterPruner", "PruningPlan", "Distill", "soft_label_loss", "l2_loss"]
