"""The layers `QAT` puts into a model (``paddle.nn.quant.qat`` / ``paddle.nn.quant.format``).

- `QuantedConv2D` / `QuantedLinear`: the float layer's computation on fake-quantized input and weight (the
  layer's own weight and bias parameters, so the state dict keeps their keys).
- `ObserveWrapper`: an observer (a quanter) on the input of a leaf layer (ReLU, pooling, ...).
- After `QAT.convert`: `LinearQuanterDequanter` replaces each activation quanter by the ONNX-style pair
  ``dequantize_linear(quantize_linear(x))`` with the learned scale frozen; a quanted layer keeps its weight as
  int8 (a buffer ``weight_int8``) read through ``dequantize_linear``. ``oar.jit.save`` of a converted model
  writes those ops; `QAT.save_quantized_model` writes the QDQ form `PostTrainingQuantization` writes.
"""
import numpy as np

from ..nn import functional as F
from ..nn.layer.conv import _ConvNd
from ..nn.layer.layers import Layer
from ..eager.tensor import to_tensor
from ..ops.quant import dequantize_linear, quantize_linear


def _step(quanter):
    """The quantize_linear step (ONNX scale) of a quanter: abs-max scale / (2^(bits-1) - 1)."""
    bnt = 2 ** (quanter.bit_length() - 1) - 1
    return np.float32(np.asarray(quanter.scales().numpy()).reshape(-1)[0] / bnt)


class LinearQuanterDequanter(Layer):
    """``dequantize_linear(quantize_linear(x, step, 0), step, 0)`` with int8 levels (the converted form of an
    activation quanter; Paddle's ``paddle.nn.quant.format.LinearQuanterDequanter``)."""

    def __init__(self, step):
        super().__init__()
        self.register_buffer("scale", to_tensor(np.asarray(step, np.float32)))
        self.register_buffer("zero_point", to_tensor(np.zeros((), np.int8)))

    @staticmethod
    def from_quanter(quanter):
        return LinearQuanterDequanter(_step(quanter))

    def forward(self, input):
        return dequantize_linear(quantize_linear(input, self.scale, self.zero_point), self.scale, self.zero_point)

    def extra_repr(self):
        return f"scale={float(self.scale.numpy()):.6g}"


class _QuantedLayer(Layer):
    """Common part of `QuantedConv2D` / `QuantedLinear`: the quanters, and the frozen int8 form after convert."""

    def _init_quanters(self, layer, q_config):
        self.weight, self.bias = layer.weight, layer.bias
        self.weight_quanter = q_config.weight._instance(layer) if q_config.weight is not None else None
        self.activation_quanter = q_config.activation._instance(layer) if q_config.activation is not None else None
        self.converted = False

    def _quanted_input_and_weight(self, input):
        if self.activation_quanter is not None:
            input = self.activation_quanter(input)
        if self.converted:
            return input, dequantize_linear(self.weight_int8, self.weight_scale, self.weight_zero)
        weight = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        return input, weight

    def _convert(self):
        """Freezes the quanters: the activation one becomes a `LinearQuanterDequanter`, the weight is stored as
        int8 levels (rounded half away from zero and clipped to +-bnt, as the fake quanter did)."""
        if self.activation_quanter is not None:
            self.activation_quanter = LinearQuanterDequanter.from_quanter(self.activation_quanter)
        if self.weight_quanter is not None:
            q = self.weight_quanter
            bnt = 2 ** (q.bit_length() - 1) - 1
            step = _step(q)
            w = np.asarray(self.weight.numpy(), np.float32)
            s = np.float32(step * bnt)
            v = np.clip(w, -s, s) * (bnt / s)
            levels = np.copysign(np.floor(np.abs(v) + 0.5), v).astype(np.int8)
            weight = self.weight
            del self.weight
            self.weight_quanter = None
            self.register_buffer("weight_int8", to_tensor(levels))
            self.register_buffer("weight_scale", to_tensor(np.asarray(step, np.float32)))
            self.register_buffer("weight_zero", to_tensor(np.zeros((), np.int8)))
            self._float_weight_shape = list(weight.shape)
            self.converted = True


class QuantedConv2D(_QuantedLayer):
    """A `Conv2D` whose input and weight are fake-quantized (Paddle's ``paddle.nn.quant.qat.QuantedConv2D``)."""

    _pad_input = _ConvNd._pad_input

    def __init__(self, layer, q_config):
        super().__init__()
        for k in ("_in_channels", "_out_channels", "_kernel_size", "_stride", "_padding", "_dilation", "_groups",
                  "_padding_mode", "_data_format", "_nd"):
            setattr(self, k, getattr(layer, k))
        self._fn = type(layer)._fn
        self._init_quanters(layer, q_config)

    def forward(self, input):
        x, w = self._quanted_input_and_weight(input)
        x, padding = self._pad_input(x)
        return self._fn(x, w, self.bias, self._stride, padding, self._dilation, self._groups, self._data_format)

    def extra_repr(self):
        return f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"


class QuantedLinear(_QuantedLayer):
    """A `Linear` whose input and weight are fake-quantized (Paddle's ``paddle.nn.quant.qat.QuantedLinear``)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._init_quanters(layer, q_config)

    def forward(self, input):
        x, w = self._quanted_input_and_weight(input)
        return F.linear(x, w, self.bias)


class ObserveWrapper(Layer):
    """Runs `observer` on the input of `observed` (``observe_input=True``) or on its output
    (``paddle.quantization.wrapper.ObserveWrapper``)."""

    def __init__(self, observer, observed, observe_input=True):
        super().__init__()
        self._observer, self._observed, self._observe_input = observer, observed, bool(observe_input)

    def forward(self, *inputs, **kwargs):
        if self._observe_input:
            return self._observed(self._observer(*inputs), **kwargs)
        return self._observer(self._observed(*inputs, **kwargs))
