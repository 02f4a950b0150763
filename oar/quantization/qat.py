"""Quantization-aware training (``paddle.quantization.QAT``): fake-quantize a model's conv and linear layers,
train it, freeze the learned scales (`convert`), save it as an int8 model.

`quantize` replaces every ``Conv2D`` / ``Linear`` that its `QuantConfig` configures by a `QuantedConv2D` /
`QuantedLinear` (fake-quantized input and weight) and wraps the leaf layers (ReLU, AvgPool2D and layers without
sublayers) in an `ObserveWrapper` that fake-quantizes their input, as Paddle 3.3.1 does. Training then sees the
rounding and clipping of int8 in its forward pass and trains through them with straight-through gradients, eagerly,
under ``to_static`` and in a captured train step alike.

`convert` freezes the quanters into ``quantize_linear`` / ``dequantize_linear`` pairs and int8 weights (the form
``oar.jit.save`` then writes, which the native predictor runs); `save_quantized_model` writes the same QDQ int8
model `PostTrainingQuantization` writes, which the predictor runs natively, with ONNX Runtime's int8 kernels
(``Config.enable_onnxruntime()``) and under ``oar serve``. See docs/compression.md.

Example:
    >>> from oar.quantization import QAT, QuantConfig
    >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
    >>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    >>> qat = QAT(QuantConfig(activation=quanter, weight=quanter))
    >>> model = qat.quantize(oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.ReLU()))
    >>> model
    Sequential(
      (0): QuantedConv2D(1, 4, kernel_size=[3, 3]
        (weight_quanter): FakeQuanterWithAbsMaxObserverLayer(moving_rate=0.9, bit_length=8)
        (activation_quanter): FakeQuanterWithAbsMaxObserverLayer(moving_rate=0.9, bit_length=8)
      )
      (1): ObserveWrapper(
        (_observer): FakeQuanterWithAbsMaxObserverLayer(moving_rate=0.9, bit_length=8)
        (_observed): ReLU()
      )
    )
"""
import copy

from ..nn.layer.activation import ReLU
from ..nn.layer.common import Linear
from ..nn.layer.conv import Conv2D
from ..nn.layer.pooling import AvgPool2D
from .config import QuantConfig
from .qat_layers import LinearQuanterDequanter, ObserveWrapper, QuantedConv2D, QuantedLinear, _QuantedLayer
from .base import BaseQuanter

DEFAULT_QAT_LAYER_MAPPINGS = {Conv2D: QuantedConv2D, Linear: QuantedLinear}
DEFAULT_LEAVES = (ReLU, AvgPool2D)
QUANTERS = (BaseQuanter,)


class QAT:
    """Prepares a model for quantization-aware training and converts it afterwards.

    Args:
        config: a `QuantConfig`.

    Example:
        >>> from oar.quantization import QAT, QuantConfig
        >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> q = FakeQuanterWithAbsMaxObserver()
        >>> qat = QAT(QuantConfig(activation=q, weight=q))
        >>> model = qat.quantize(oar.nn.Sequential(oar.nn.Linear(4, 2)))
        >>> loss = model(oar.ones([3, 4])).mean()            # train as usual ...
        >>> _ = model.eval()
        >>> converted = qat.convert(model)                   # ... then freeze: int8 weights, fixed scales
        >>> converted[0].weight_int8.dtype
        paddle.int8
        >>> qat.save_quantized_model(converted, 'model/int8', [oar.static.InputSpec([None, 4], 'float32', 'x')])
        'model/int8.pdmodel'
    """

    def __init__(self, config):
        if not isinstance(config, QuantConfig):
            raise TypeError(f"QAT: expected a QuantConfig, got {type(config).__name__}")
        self._config = config

    def quantize(self, model, inplace=False):
        """The model with fake quanters inserted (a deep copy unless `inplace`); it must be in train mode."""
        if not model.training:
            raise ValueError("QAT.quantize: quantization-aware training works on a model in train mode; call "
                             "model.train() first")
        return self._insert(model, inplace)

    def _insert(self, model, inplace):
        configs = self._config.config_of(model)
        out = model if inplace else copy.deepcopy(model)
        _replace(out, "", lambda path, child: _quanted(child, configs.get(path)))
        _replace(out, "", lambda path, child: _observed(child, configs.get(path)))
        return out

    def convert(self, model, inplace=False, remain_weight=False):
        """The model with its quanters frozen (a deep copy unless `inplace`): activation quanters become
        `LinearQuanterDequanter`s, weights int8 buffers (`remain_weight=True` is not supported: oar's converted
        layers always store int8 weights)."""
        if remain_weight:
            raise NotImplementedError("QAT.convert: remain_weight=True is not supported; the converted layers "
                                      "store their weights as int8")
        out = model if inplace else copy.deepcopy(model)
        for layer in out.sublayers(include_self=True):
            if isinstance(layer, _QuantedLayer) and not layer.converted:
                layer._convert()
        _replace(out, "", lambda path, child: LinearQuanterDequanter.from_quanter(child)
                 if isinstance(child, QUANTERS) else None, into_quanted=True)
        return out

    def save_quantized_model(self, model, path, input_spec=None):
        """Converts (a copy of) `model` if needed and saves it as the QDQ int8 model `PostTrainingQuantization`
        writes (``path.pdmodel`` / ``.pdiparams``), in eval mode; returns the .pdmodel path (the method of Paddle's
        ``ImperativeQuantAware``)."""
        from .qat_export import save_qdq_model
        if any(isinstance(lay, QUANTERS) for lay in model.sublayers(include_self=True)):
            model = self.convert(model)
        return save_qdq_model(model, path, input_spec)


class PTQ(QAT):
    """Post-training quantization of a dygraph model (``paddle.quantization.PTQ``): `quantize` puts observers
    where QAT puts quanters, running the model on calibration batches records their statistics, `convert` freezes
    the scales into the same int8 form (and `save_quantized_model` the same QDQ model) as QAT.

    Args:
        config: a `QuantConfig` whose factories make observers (e.g. ``observers.AbsmaxObserver``).

    Example:
        >>> from oar.quantization import PTQ, QuantConfig
        >>> from oar.quantization.observers import AbsmaxObserver
        >>> ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
        >>> model = ptq.quantize(oar.nn.Sequential(oar.nn.Linear(4, 2)).eval())
        >>> for _ in range(3):                               # calibration
        ...     _ = model(oar.rand([8, 4]))
        >>> ptq.convert(model)[0].weight_int8.dtype
        paddle.int8
    """

    def quantize(self, model, inplace=False):
        """The model with observers inserted (a deep copy unless `inplace`); it must be in eval mode."""
        if model.training:
            raise ValueError("PTQ.quantize: post-training quantization works on a model in eval mode; call "
                             "model.eval() first")
        return self._insert(model, inplace)


def _replace(layer, prefix, make, into_quanted=False):
    """Replaces each sublayer for which `make(path, child)` returns a layer, else recurses into it (into the
    layers `QAT` made only when `into_quanted`)."""
    for name, child in list(layer.named_children()):
        path = prefix + name
        new = make(path, child)
        if new is not None:
            setattr(layer, name, new)
        elif into_quanted or not isinstance(child, (_QuantedLayer, ObserveWrapper)):
            _replace(child, path + ".", make, into_quanted)


def _quanted(child, config):
    target = DEFAULT_QAT_LAYER_MAPPINGS.get(type(child))
    return None if target is None or config is None else target(child, config)


def _observed(child, config):
    if config is None or config.activation is None or isinstance(child, QUANTERS + (_QuantedLayer,)):
        return None
    if isinstance(child, DEFAULT_LEAVES) or not child._sub_layers:
        return ObserveWrapper(config.activation._instance(child), child)
    return None
