"""Fake quanters for quantization-aware training (``paddle.quantization.quanters``): a factory named in a
`QuantConfig` makes one quanter layer per quantized tensor.

`FakeQuanterWithAbsMaxObserver` keeps a moving average of the tensor's largest |x| (Paddle's formula, with
accumulators starting at 1 and the scale at 0.001)::

    state = rate * state + 1;  accum = rate * accum + max|x|;  scale = accum / state      (training only)
    out = round(clip(x, -scale, scale) * bnt / scale) * scale / bnt,   bnt = 2 ** (bit_length - 1) - 1

and its gradient is the straight-through estimator (identity), as Paddle 3.3.1's
``fake_quantize_dequantize_moving_average_abs_max``. The scale, state and accumulator are non-trainable
parameters (``_scale``, ``_state``, ``_accum`` in the state dict); in training they are updated in place, also
inside a converted (``to_static``) forward or a captured train step, as batch norm's running statistics are.

Example:
    >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
    >>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
    >>> quanter(oar.to_tensor([-3.0, 0.5, 2.0])).numpy()      # training: the scale is now 3.9 / 1.9
    array([-2.0526316 ,  0.50103605,  2.0041442 ], dtype=float32)
    >>> quanter.scales().numpy()
    array([2.0526316], dtype=float32)
"""
from ..core.state import STATE
from ..nn.initializer import Constant
from ..nn.param_attr import ParamAttr
from ..ops import math as M
from ..ops import reduction as R
from ..ops import registry
from ..ops.quant import fake_quantize_dequantize
from .base import BaseQuanter, QuanterFactory


class FakeQuanterWithAbsMaxObserver(QuanterFactory):
    """Per-tensor symmetric fake quantization with a moving-average abs-max scale (see the module doc).

    Args:
        moving_rate: the moving average's rate.
        bit_length: bits of the simulated integers (8: levels -127..127).
        dtype: the scale's dtype (``float32``).
        name: prefix of the parameter names.

    Example:
        >>> from oar.quantization import QuantConfig
        >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> quanter = FakeQuanterWithAbsMaxObserver(moving_rate=0.99)
        >>> q_config = QuantConfig(activation=quanter, weight=quanter)
    """

    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        if not 0 < moving_rate < 1:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: moving_rate must be in (0, 1), got {moving_rate}")
        if not 2 <= int(bit_length) <= 16:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: bit_length must be in [2, 16], got {bit_length}")
        super().__init__(name=name, moving_rate=moving_rate, bit_length=int(bit_length), dtype=dtype)

    def _get_class(self):
        return FakeQuanterWithAbsMaxObserverLayer


def _write_back(src, dst):
    """Stores an updated statistic: in place eagerly, by an assign op in static mode (as batch norm does)."""
    if STATE.static:
        registry.STATIC.assign_into(src, dst)
    else:
        dst._data = src._data


class FakeQuanterWithAbsMaxObserverLayer(BaseQuanter):
    """The quanter layer `FakeQuanterWithAbsMaxObserver` makes (see the module doc).

    Example:
        >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserverLayer
        >>> q = FakeQuanterWithAbsMaxObserverLayer(None)
        >>> _ = q.eval()
        >>> q(oar.to_tensor([0.0004, 0.5])).numpy()      # the initial scale 0.001 clips
        array([0.00040157, 0.001     ], dtype=float32)
    """

    def __init__(self, layer, name=None, moving_rate=0.9, bit_length=8, dtype="float32"):
        super().__init__()
        self._moving_rate, self._bit_length = float(moving_rate), int(bit_length)
        for attr, init in (("_scale", 0.001), ("_state", 1.0), ("_accum", 1.0)):
            p = self.create_parameter([1], attr=ParamAttr(name=None, initializer=Constant(init), trainable=False),
                                      dtype=dtype)
            p.stop_gradient = True
            setattr(self, attr, p)

    def forward(self, input):
        scale = self._scale
        if self.training:
            rate = self._moving_rate
            state = self._state * rate + 1.0
            accum = self._accum * rate + R.max(M.abs(input.detach()))
            scale = accum / state
            for new, old in ((state, self._state), (accum, self._accum), (scale, self._scale)):
                _write_back(new, old)
        return fake_quantize_dequantize(input, scale, self._bit_length)

    def bit_length(self):
        return self._bit_length

    def quant_axis(self):
        return -1

    def scales(self):
        return self._scale

    def zero_points(self):
        return None

    def extra_repr(self):
        return f"moving_rate={self._moving_rate}, bit_length={self._bit_length}"
