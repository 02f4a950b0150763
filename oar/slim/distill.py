"""Knowledge distillation: a student trained to match a teacher's soft labels and feature maps (PaddleSlim's
``soft_label_loss`` / ``l2_loss`` and its dygraph ``Distill`` layer).

- `soft_label_loss(student_logits, teacher_logits, teacher_temperature, student_temperature)`: the cross entropy
  of the student's softened distribution against the teacher's, ``mean_batch(-sum softmax(t/Tt) *
  log_softmax(s/Ts))`` (PaddleSlim's formula). It differs from ``KL(teacher || student)`` by the teacher's entropy,
  a constant for the student, so both have the same gradient. Hinton et al. scale it by ``T**2`` to keep gradient
  sizes comparable across temperatures: `Distill` does (``weight * T**2``), the function does not.
- `l2_loss(student, teacher)`: ``mean((s - t) ** 2)``.
- `Distill(distill_configs, student_models, teacher_models)`: a Layer running both models on the same inputs,
  capturing the outputs of named sublayers, and returning ``(distill_loss, student_outputs, teacher_outputs)``.
  Each config is ``{"loss_function": "l2" | "soft_label", "layers": [{"layers_name": [student_layer,
  teacher_layer], "weight": 1.0, "temperature": 1.0, "align_params": {"align_type": "1x1conv" | "linear",
  "in_channel": c_s, "out_channel": c_t}}]}``; a layer name of ``""`` is the model's output. The adapter
  (`align_params`) maps the student's feature to the teacher's width and trains with the student
  (`Distill.parameters()` holds both). The teacher runs in eval mode without gradients.

`Distill` is an ordinary Layer: it trains eagerly, under ``to_static`` and inside a captured train step, and wrapped
in ``oar.DataParallel`` across MPI ranks (only the student and the adapters have gradients to all-reduce).

Example:
    >>> from oar.slim import Distill
    >>> teacher, student = oar.nn.Linear(4, 3), oar.nn.Linear(4, 3)
    >>> distill = Distill([{"loss_function": "soft_label", "layers": [{"layers_name": ["", ""], "temperature": 4.0}]}],
    ...                   student, teacher)
    >>> loss, s_out, t_out = distill(oar.ones([2, 4]))
    >>> loss.shape, s_out.shape
    ([], [2, 3])
"""
from ..nn import functional as F
from ..nn.layer.common import Linear
from ..nn.layer.container import LayerList
from ..nn.layer.conv import Conv2D
from ..nn.layer.layers import Layer
from ..ops import reduction as R

LOSSES = ("l2", "soft_label")
ALIGN_TYPES = ("1x1conv", "linear")


def soft_label_loss(student_logits, teacher_logits, teacher_temperature=1.0, student_temperature=1.0):
    """Cross entropy of ``softmax(student / Ts)`` against ``softmax(teacher / Tt)``, averaged over the batch
    (the last axis holds the classes).

    Example:
        >>> from oar.slim import soft_label_loss
        >>> t = oar.to_tensor([[2.0, 0.0, -1.0]])
        >>> float(soft_label_loss(t, t)) > 0        # the teacher's entropy: the smallest value it takes
        True
    """
    t = F.softmax(teacher_logits / float(teacher_temperature), axis=-1)
    log_s = F.log_softmax(student_logits / float(student_temperature), axis=-1)
    return R.mean(-R.sum(t * log_s, axis=-1))


def l2_loss(student_feature, teacher_feature):
    """``mean((student - teacher) ** 2)``.

    Example:
        >>> from oar.slim import l2_loss
        >>> float(l2_loss(oar.to_tensor([1.0, 2.0]), oar.to_tensor([0.0, 0.0])))
        2.5
    """
    d = student_feature - teacher_feature
    return R.mean(d * d)


def _adapter(params):
    if params is None:
        return None
    kind = params.get("align_type")
    if kind not in ALIGN_TYPES:
        raise ValueError(f"Distill: align_type must be one of {ALIGN_TYPES}, got {kind!r}")
    c_in, c_out = int(params["in_channel"]), int(params["out_channel"])
    return Conv2D(c_in, c_out, 1) if kind == "1x1conv" else Linear(c_in, c_out)


class _Pair:
    """One distillation term: the student and teacher layer names, its loss, weight, temperature, adapter index."""

    def __init__(self, loss_function, layers_name, weight=1.0, temperature=1.0, align_params=None, **unknown):
        if unknown:
            raise ValueError(f"Distill: unsupported layer config key(s) {sorted(unknown)}; accepted: layers_name, "
                             "weight, temperature, align_params")
        if loss_function not in LOSSES:
            raise ValueError(f"Distill: loss_function must be one of {LOSSES}, got {loss_function!r}")
        if len(layers_name) != 2:
            raise ValueError(f"Distill: layers_name must be [student layer, teacher layer], got {layers_name!r}")
        self.loss, self.names = loss_function, tuple(layers_name)
        self.weight, self.temperature, self.align = float(weight), float(temperature), align_params


class Distill(Layer):
    """Runs a student and a teacher and returns ``(distill_loss, student_outputs, teacher_outputs)`` (or the loss
    alone when `return_model_outputs` is False); see the module doc.

    Args:
        distill_configs: a list of ``{"loss_function": ..., "layers": [...]}`` dicts.
        student_models, teacher_models: one Layer each (PaddleSlim accepts lists; oar one of each).
        return_model_outputs: also return the models' outputs.

    The teacher is not a sublayer: `parameters()` and `state_dict()` hold the student's and the adapters' only.

    Example:
        >>> from oar.slim import Distill
        >>> teacher = oar.nn.Sequential(oar.nn.Conv2D(1, 8, 3), oar.nn.ReLU())
        >>> student = oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.ReLU())
        >>> config = [{"loss_function": "l2", "layers": [{"layers_name": ["1", "1"], "align_params": {
        ...     "align_type": "1x1conv", "in_channel": 4, "out_channel": 8}}]}]
        >>> distill = Distill(config, student, teacher, return_model_outputs=False)
        >>> float(distill(oar.ones([2, 1, 5, 5]))) >= 0
        True
    """

    def __init__(self, distill_configs, student_models, teacher_models, return_model_outputs=True):
        super().__init__()
        student, teacher = _one(student_models, "student"), _one(teacher_models, "teacher")
        self.student, self._return_outputs = student, bool(return_model_outputs)
        object.__setattr__(self, "_teacher", teacher)  # not a sublayer: its parameters are not trained or saved
        self._pairs = [_Pair(c["loss_function"], **layer) for c in distill_configs for layer in c["layers"]]
        self.adapters = LayerList([a for a in (_adapter(p.align) for p in self._pairs) if a is not None])
        for model, names, side in ((student, {p.names[0] for p in self._pairs}, "student"),
                                   (teacher, {p.names[1] for p in self._pairs}, "teacher")):
            known = {n for n, _ in model.named_sublayers()} | {""}
            missing = sorted(names - known)
            if missing:
                raise ValueError(f"Distill: the {side} has no sublayer named {missing}; its sublayers: "
                                 f"{sorted(known - {''})[:20]}")

    @property
    def teacher(self):
        return self._teacher

    def _run(self, model, names, inputs, kwargs):
        """The model's output and {name: output of that sublayer} (forward post hooks, removed afterwards)."""
        captured, handles = {}, []
        layers = dict(model.named_sublayers())
        for name in names - {""}:
            def hook(layer, inp, out, name=name):
                captured[name] = out
            handles.append(layers[name].register_forward_post_hook(hook))
        try:
            out = model(*inputs, **kwargs)
        finally:
            for h in handles:
                h.remove()
        captured[""] = out
        return out, captured

    def forward(self, *inputs, **kwargs):
        self._teacher.eval()
        s_out, s_feats = self._run(self.student, {p.names[0] for p in self._pairs}, inputs, kwargs)
        t_out, t_feats = self._run(self._teacher, {p.names[1] for p in self._pairs}, inputs, kwargs)
        total, k = None, 0
        for p in self._pairs:
            s, t = s_feats[p.names[0]], t_feats[p.names[1]].detach()
            if p.align is not None:
                s = self.adapters[k](s)
                k += 1
            if p.loss == "l2":
                term = l2_loss(s, t)
            else:
                term = soft_label_loss(s, t, p.temperature, p.temperature) * (p.temperature ** 2)
            term = term * p.weight if p.weight != 1.0 else term
            total = term if total is None else total + term
        if self._return_outputs:
            return total, s_out, t_out.detach()
        return total


def _one(models, side):
    if isinstance(models, (list, tuple)):
        if len(models) != 1:
            raise ValueError(f"Distill: one {side} model is supported, got {len(models)}")
        models = models[0]
    if not isinstance(models, Layer):
        raise TypeError(f"Distill: the {side} must be an oar.nn.Layer, got {type(models).__name__}")
    return models
