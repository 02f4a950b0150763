"""Class-centre sampling for large-scale classification (PartialFC): the batch's classes plus random others."""
import numpy as np

from ...core.state import STATE
from ...ops import random as RND
from ...ops.creation import assign


def class_center_sample(label, num_classes, num_samples, group=None):
    """Samples `num_samples` class centres: every class in `label` plus classes drawn at random (oar's generator,
    `oar.seed`) from the others, sorted; returns (`label` remapped to positions in the sample, the sampled classes).
    When the batch holds more than `num_samples` classes, all of them are returned. Single process only.

    Example:
        >>> import oar.nn.functional as F
        >>> remapped, centers = F.class_center_sample(oar.to_tensor([1, 5, 2]), 10, 4)
        >>> centers.shape, {1, 2, 5} <= set(centers.numpy().tolist())
        ([4], True)
        >>> bool((centers[remapped] == oar.to_tensor([1, 5, 2])).all())
        True
    """
    if group not in (None, False):
        raise NotImplementedError("class_center_sample: model-parallel sampling (group) is not supported; oar "
                                  "samples in one process (group=None)")
    if STATE.static:
        raise NotImplementedError("class_center_sample: the sample's size depends on the labels' values; call it "
                                  "in dynamic mode")
    if not 0 < num_samples <= num_classes:
        raise ValueError(f"class_center_sample: need 0 < num_samples <= num_classes, got {num_samples} and "
                         f"{num_classes}")
    lab = label.numpy().reshape(-1)
    if lab.size and (lab.min() < 0 or lab.max() >= num_classes):
        raise ValueError(f"class_center_sample: labels must lie in [0, {num_classes})")
    positive = np.unique(lab)
    chosen = positive
    if positive.size < num_samples:
        order = RND.randperm(num_classes).numpy()
        others = order[~np.isin(order, positive)][:num_samples - positive.size]
        chosen = np.sort(np.concatenate([positive, others]))
    remapped = np.searchsorted(chosen, lab).reshape(label.shape)
    return assign(remapped.astype(lab.dtype)), assign(chosen.astype(lab.dtype))
