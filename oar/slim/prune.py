"""Channel pruning in PaddleSlim's dygraph form: `L1NormFilterPruner(model, inputs_shape)`, `prune_vars`,
`sensitive`, `sensitive_prune`, and `uniform_prune` (one ratio for every conv, searched to remove a share of FLOPs).

Pruning really removes filters: each parameter of the filter's channel space (`oar.slim.channels`) is replaced by
a smaller Parameter holding the kept channels (same name), and the layers' sizes (``Conv2D`` channels and groups,
``BatchNorm`` features, ``Linear`` inputs) follow, so the model runs, trains (make the optimizer after pruning),
saves with ``oar.jit.save`` and exports to ONNX at its new size. The kept channels of a pruned conv compute
exactly what they computed before.

Example:
    >>> from oar.slim import L1NormFilterPruner, flops
    >>> net = oar.nn.Sequential(oar.nn.Conv2D(1, 8, 3), oar.nn.ReLU(), oar.nn.Conv2D(8, 4, 3))
    >>> pruner = L1NormFilterPruner(net, [1, 1, 8, 8])
    >>> plan = pruner.prune_vars({net[0].weight.name: 0.5}, axis=0)
    >>> net[0].weight.shape, net[2].weight.shape
    ([4, 1, 3, 3], [4, 4, 3, 3])
    >>> flops(net, [1, 1, 8, 8])          # 4*6*6 outputs of 1*3*3 + 4*4*4 outputs of 4*3*3 products
    3600
"""
import json
import os

import numpy as np

from ..eager.tensor import Parameter
from ..nn.layer.common import Linear
from ..nn.layer.conv import _ConvNd
from ..nn.layer.norm import _BatchNormBase
from .channels import channel_spaces
from .flops import flops

SENSITIVE_RATIOS = tuple(round(r, 1) for r in np.arange(0.1, 1.0, 0.1))
# The sensitivity file (`sensitive(sen_file=...)`), JSON {"version", "sensitivities": {name: {ratio: loss}}}.
# 1 (2026-11-27): first version.
SENSITIVITY_FORMAT_VERSION = 1


class PruningPlan:
    """The changes of one pruning (the kept channel indices of each pruned parameter, the replaced parameters and
    layer sizes), so that `restore` can undo them.

    Example:
        >>> from oar.slim import L1NormFilterPruner
        >>> net = oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.Conv2D(4, 2, 3))
        >>> plan = L1NormFilterPruner(net, [1, 1, 6, 6]).prune_vars({net[0].weight.name: 0.5})
        >>> net[1].weight.shape
        [2, 2, 3, 3]
        >>> plan.restore(); net[1].weight.shape
        [2, 4, 3, 3]
    """

    def __init__(self):
        self.masks = {}    # parameter name -> kept channel indices (of its space)
        self._saved = []   # (layer, attribute, previous value), oldest first

    def _save(self, layer, attr, old):
        self._saved.append((layer, attr, old))

    def extend(self, other):
        self.masks.update(other.masks)
        self._saved += other._saved

    def contains(self, name, axis=0):
        """Whether parameter `name` lost channels along `axis` in this plan (oar prunes filters: axis 0 of the
        master, with its dependents)."""
        return axis == 0 and name in self.masks

    def restore(self, model=None):
        """Puts back the parameters and layer sizes this plan replaced."""
        for layer, attr, old in reversed(self._saved):
            setattr(layer, attr, old)
        self._saved, self.masks = [], {}


def _owners(model):
    """{parameter name: (layer, attribute)} for the parameters of `model`."""
    return {p.name: (layer, attr) for layer in model.sublayers(include_self=True)
            for attr, p in layer._parameters.items() if p is not None}


def _replace(owner, value, plan):
    layer, attr = owner
    old = getattr(layer, attr)
    p = Parameter(np.ascontiguousarray(value), name=old.name, trainable=old.trainable)
    for k in ("optimize_attr", "regularizer", "need_clip"):
        object.__setattr__(p, k, getattr(old, k))
    p.stop_gradient = old.stop_gradient
    plan._save(layer, attr, old)
    setattr(layer, attr, p)


def _resize_layer(layer, attr, axis, n, depthwise, plan):
    """Sets the size attributes of `layer` after its parameter `attr` kept `n` entries along `axis`."""
    changes = {}
    if isinstance(layer, _ConvNd) and attr == "weight":
        if depthwise:
            changes = {"_in_channels": n, "_out_channels": n, "_groups": n}
        else:
            changes = {"_out_channels": n} if axis == 0 else {"_in_channels": n * layer._groups}
    elif isinstance(layer, _BatchNormBase):
        changes = {"_num_features": n}
    elif isinstance(layer, Linear) and attr == "weight" and axis == 0:
        changes = {"_in_features": n}
    for k, v in changes.items():
        plan._save(layer, k, getattr(layer, k))
        setattr(layer, k, v)


class FilterPruner:
    """Prunes conv filters and everything that depends on them (see the module doc); subclasses choose which
    filters go (`cal_mask`).

    Args:
        model: the `oar.nn.Layer` to prune (in place).
        inputs: the input shape used to trace it (batch included, e.g. ``[1, 3, 32, 32]``).
        sen_file: a sensitivity file written by `sensitive` to start from (JSON).

    Example:
        >>> from oar.slim import L1NormFilterPruner
        >>> net = oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.ReLU(), oar.nn.Conv2D(4, 2, 3))
        >>> pruner = L1NormFilterPruner(net, [1, 1, 6, 6])
        >>> pruner.prunable_vars() == [net[0].weight.name]  # the last conv's filters are the model's output
        True
    """

    def __init__(self, model, inputs, sen_file=None):
        self.model, self.inputs = model, [int(d) for d in inputs]
        self.spaces = channel_spaces(model, self.inputs)
        self.sensitivities = {}
        if sen_file is not None and os.path.isfile(sen_file):
            self.sensitivities = _load_sensitivities(sen_file)
        self.plan = None

    def cal_mask(self, value, pruned_ratio):
        """The indices of the filters (axis 0 of `value`) to keep, in increasing order."""
        raise NotImplementedError

    def prunable_vars(self):
        """The filter names `prune_vars` accepts: one master per channel space that nothing blocks."""
        out, seen = [], set()
        for name, space in self.spaces.items():
            if space.blocked is None and id(space) not in seen:
                seen.add(id(space))
                out.append(name)
        return out

    def prune_var(self, var_name, axis, pruned_ratio, apply="impretive"):
        """Prunes `pruned_ratio` of the filters of conv weight `var_name` (axis 0) and the channels depending on
        them; returns the `PruningPlan` (applied unless `apply` is None)."""
        if (axis[0] if isinstance(axis, (list, tuple)) else axis) != 0:
            raise ValueError(f"prune_var: only filters (axis=0) are pruned, got axis={axis}")
        if apply not in ("impretive", "imperative", None):
            raise ValueError(f"prune_var: apply must be 'impretive' (PaddleSlim's spelling) or None, got {apply!r}; "
                             "oar always removes channels ('lazy' masking is not supported)")
        if not 0 <= pruned_ratio < 1:
            raise ValueError(f"prune_var: pruned_ratio must be in [0, 1), got {pruned_ratio}")
        space = self.spaces.get(var_name)
        if space is None:
            raise ValueError(f"prune_var: {var_name!r} is not the weight of a conv with groups=1 in the traced "
                             f"model; prunable: {self.prunable_vars()}")
        if space.blocked is not None:
            raise ValueError(f"prune_var: cannot prune {var_name!r}: its channels reach {space.blocked}, which "
                             "oar's pruning cannot shrink (concat, reshape, channel reductions, grouped convs and "
                             "model outputs are not handled)")
        owners = _owners(self.model)
        keep = np.asarray(self.cal_mask(owners[var_name][0]._parameters[owners[var_name][1]].numpy(), pruned_ratio))
        plan = PruningPlan()
        if apply is None:
            plan.masks = {m.param: keep for m in space.members}
            return plan
        for m in space.members:
            layer, attr = owners[m.param]
            value = getattr(layer, attr).numpy()
            idx = (keep[:, None] * m.repeat + np.arange(m.repeat)[None, :]).reshape(-1)
            _replace(owners[m.param], np.take(value, idx, axis=m.axis), plan)
            _resize_layer(layer, attr, m.axis, len(idx), m.param in space.depthwise and m.axis == 0, plan)
            plan.masks[m.param] = keep
        return plan

    def prune_vars(self, ratios, axis=0, apply="impretive"):
        """Prunes each conv weight of `ratios` ({name: ratio}) by its ratio (a space shared by several convs is
        pruned once, by the first of them); returns the combined `PruningPlan`, also kept as ``self.plan``."""
        plan = PruningPlan()
        done = set()
        for name, ratio in ratios.items():
            space = self.spaces.get(name)
            if space is not None and id(space) in done:
                continue
            plan.extend(self.prune_var(name, axis, ratio, apply=apply))
            if space is not None:
                done.add(id(space))
        self.plan = plan
        return plan

    def restore(self):
        """Undoes the last `prune_vars` / `sensitive_prune` / `uniform_prune`."""
        if self.plan is not None:
            self.plan.restore(self.model)
            self.plan = None

    def sensitive(self, eval_func=None, sen_file=None, target_vars=None, skip_vars=()):
        """{filter name: {pruned ratio: relative metric loss}}: each prunable filter pruned alone at ratios
        0.1..0.9, `eval_func()` (higher is better) measured, the model restored. Saved to `sen_file` (JSON)
        after each filter; ratios already there are not measured again."""
        if eval_func is None and sen_file is None:
            return self.sensitivities
        if sen_file is not None and os.path.isfile(sen_file):
            self.sensitivities = _load_sensitivities(sen_file)
        baseline = None
        for name in self.prunable_vars():
            if (target_vars is not None and name not in target_vars) or name in skip_vars:
                continue
            losses = self.sensitivities.setdefault(name, {})
            for ratio in SENSITIVE_RATIOS:
                if ratio in losses:
                    continue
                if baseline is None:
                    baseline = float(eval_func())
                plan = self.prune_var(name, 0, ratio)
                try:
                    losses[ratio] = (baseline - float(eval_func())) / baseline
                finally:
                    plan.restore(self.model)
            if sen_file is not None:
                _save_sensitivities(sen_file, self.sensitivities)
        return self.sensitivities

    def _search(self, ratios_at, pruned_flops, low, up):
        """Bisects `t` in [low, up] so that `ratios_at(t)` removes at least `pruned_flops` of the FLOPs (the
        smallest such t found); returns the ratios."""
        base = flops(self.model, self.inputs)
        best = None
        for _ in range(24):
            t = (low + up) / 2
            plan = self.prune_vars(ratios_at(t))
            removed = (base - flops(self.model, self.inputs)) / base
            plan.restore(self.model)
            if removed >= pruned_flops:
                best, up = t, t
            else:
                low = t
        if best is None:
            raise ValueError(f"cannot remove {pruned_flops:.0%} of the FLOPs by pruning {self.prunable_vars()}")
        return ratios_at(best)

    def uniform_prune(self, pruned_flops, skip_vars=(), align=None):
        """Prunes every prunable conv by one ratio, the smallest that removes `pruned_flops` (a share in (0, 1))
        of the FLOPs; `align` rounds each kept filter count to a multiple. Returns the plan."""
        names = [n for n in self.prunable_vars() if n not in skip_vars]
        ratios = self._search(lambda t: self._aligned({n: t for n in names}, align), pruned_flops, 0.0, 0.95)
        plan = self.prune_vars(ratios)
        return plan

    def sensitive_prune(self, pruned_flops, skip_vars=(), align=None):
        """Prunes each conv by the ratio at which its sensitivity (from `sensitive`) reaches one common loss, the
        smallest loss that removes `pruned_flops` of the FLOPs (PaddleSlim's search). Returns the plan."""
        if not self.sensitivities:
            raise ValueError("sensitive_prune: call sensitive(eval_func, sen_file) first")
        sens = {n: v for n, v in self.sensitivities.items() if n not in skip_vars and n in self.prunable_vars()}
        return self.prune_vars(self._search(lambda t: self._aligned(_ratios_by_loss(sens, t), align),
                                            pruned_flops, 0.0, 1.0))

    def _aligned(self, ratios, align):
        if align is None:
            return ratios
        owners, out = _owners(self.model), {}
        for name, r in ratios.items():
            c = getattr(*owners[name]).shape[0]
            kept = max(align, int(round((1 - r) * c / align)) * align)
            out[name] = max(0.0, (c - kept) / c)
        return out


def _ratios_by_loss(sensitivities, loss):
    """For each filter, the largest ratio whose loss stays under `loss` (linearly interpolated), as PaddleSlim."""
    out = {}
    for name, losses in sensitivities.items():
        points = sorted(losses.items())
        r = 0.0
        for i in range(len(points) - 1, -1, -1):
            if points[i][1] <= loss:
                if i == len(points) - 1:
                    r = points[i][0]
                else:
                    (r0, l0), (r1, l1) = points[i], points[i + 1]
                    r = r0 + (loss - l0) * (r1 - r0) / (l1 - l0)
                break
        out[name] = min(float(r), 0.95)
    return out


def _save_sensitivities(path, sens):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        table = {n: {str(r): v for r, v in d.items()} for n, d in sens.items()}
        json.dump({"version": SENSITIVITY_FORMAT_VERSION, "sensitivities": table}, f, indent=1)
    os.replace(tmp, path)


def _load_sensitivities(path):
    with open(path) as f:
        data = json.load(f)
    if not isinstance(data, dict) or data.get("version") != SENSITIVITY_FORMAT_VERSION:
        raise ValueError(f"{path}: not a sensitivity file written by oar.slim (JSON, version 1)")
    return {n: {float(r): float(v) for r, v in d.items()} for n, d in data["sensitivities"].items()}


class L1NormFilterPruner(FilterPruner):
    """`FilterPruner` removing the filters of smallest L1 norm (PaddleSlim's ``L1NormFilterPruner``).

    Example:
        >>> from oar.slim import L1NormFilterPruner
        >>> w = np.stack([np.full([1, 3, 3], v, 'float32') for v in (3, -1, 2, 0.5)])
        >>> L1NormFilterPruner.cal_mask(None, w, 0.5)      # keep the two largest |w| sums, in order
        array([0, 2])
    """

    def cal_mask(self, value, pruned_ratio):
        scores = np.abs(value.reshape(value.shape[0], -1)).sum(axis=1)
        n_prune = min(int(round(len(scores) * pruned_ratio)), len(scores) - 1)
        return np.sort(np.argsort(scores, kind="stable")[n_prune:])
