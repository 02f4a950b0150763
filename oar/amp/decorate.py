"""`decorate`: prepares models and optimizers for level 'O2' training.

oar keeps the parameters in float32 by default (they are the master weights the optimizer updates); at 'O2'
`auto_cast` casts every float input of a non-black-list op to float16, so the forward runs in float16 on
float16 copies of the weights and the gradients flow back to the float32 masters through the casts.
``master_weight=False`` converts the parameters themselves to float16 (normalization layers excepted), as pure
float16 training does.

Example:
    >>> model = oar.nn.Linear(4, 1)
    >>> opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    >>> model, opt = oar.amp.decorate(model, opt, level='O2')
    >>> with oar.amp.auto_cast(level='O2'):
    ...     y = model(oar.ones([2, 4]))
    >>> model.weight.dtype == oar.float32, y.dtype == oar.float16
    (True, True)
"""
from .auto_cast import low_dtype

_NORMS = ("BatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm", "SyncBatchNorm")


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
             master_grad=False, excluded_layers=None):
    """Marks `models` for mixed precision at `level`; returns ``models`` or ``(models, optimizers)`` in the
    structure they were given.

    Args:
        models: a Layer or a list of Layers.
        optimizers: an optimizer, a list of them, or None.
        level: 'O1' (nothing to change) or 'O2'.
        dtype: 'float16' or 'bfloat16'.
        master_weight: False converts the parameters to `dtype` (normalization layers and `excluded_layers`
            excepted); None/True keeps float32 master weights.
        save_dtype: dtype of the state dict saved from the models (None: as stored).
        master_grad: float32 gradients at 'O2'. With float32 master weights (the default) the gradients are
            float32 already; with ``master_weight=False`` it raises NotImplementedError.

    Example:
        >>> model = oar.nn.Linear(2, 1)
        >>> opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        >>> model, opt = oar.amp.decorate(model, opt, level='O2')
        >>> model.weight.dtype == oar.float32  # float32 master weights
        True
        >>> model, opt = oar.amp.decorate(model, opt, level='O2', master_weight=False)
        >>> model.weight.dtype == oar.float16
        True
    """
    if level not in ("O1", "O2", "OD"):
        raise ValueError(f"decorate: level must be 'O1' or 'O2', got {level!r}")
    if master_grad and level == "O2" and master_weight is False:
        raise NotImplementedError("decorate: master_grad=True with master_weight=False (float32 gradients of float16 "
                                  "parameters) is not supported; keep float32 master weights (master_weight=None), "
                                  "whose gradients are float32")
    model_list = [_as_layer(m) for m in (models if isinstance(models, (list, tuple)) else [models])]
    low = low_dtype(dtype)
    excluded = tuple(excluded_layers or ())
    if level == "O2" and master_weight is False:
        for m in model_list:
            for layer in m.sublayers(include_self=True):
                if type(layer).__name__.startswith(_NORMS) or (excluded and isinstance(layer, excluded)):
                    continue
                for p in layer.parameters(include_sublayers=False):
                    if p.dtype.kind == "f":
                        p._data = p._data.astype(low.np)
                        p._version += 1
    for m in model_list:
        m._amp_level = level
        m._amp_dtype = low.name
        if save_dtype is not None:
            m._amp_save_dtype = str(save_dtype)
    if optimizers is None:
        return models
    return models, optimizers


amp_decorate = decorate


def _as_layer(m):
    """The Layer behind `m`: itself, the layer of a `to_static` function, or the owner of a bound method."""
    from ..nn.layer import Layer
    inner = m if isinstance(m, Layer) else getattr(m, "_layer", None) or getattr(m, "__self__", None)
    if not isinstance(inner, Layer):
        raise TypeError(f"decorate: models must be Layers, got {type(m).__name__}")
    return inner
