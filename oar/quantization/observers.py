"""Observers for post-training quantization (``paddle.quantization.observers``): they watch a tensor during
calibration and return it unchanged; `PTQ.convert` freezes the scale they computed.

Example:
    >>> from oar.quantization.observers import AbsmaxObserver
    >>> obs = AbsmaxObserver(quant_bits=8)._instance(None)
    >>> _ = obs(oar.to_tensor([-3.0, 0.5])); _ = obs(oar.to_tensor([2.0]))
    >>> obs.scales().numpy()
    array(3., dtype=float32)
"""
from ..ops import math as M
from ..ops import reduction as R
from .base import BaseObserver, QuanterFactory


class AbsmaxObserver(QuanterFactory):
    """Per-tensor symmetric scale: the largest |x| seen over the calibration batches (Paddle's ``AbsmaxObserver``).

    Args:
        quant_bits: bits of the integers (8: levels -127..127).
    """

    def __init__(self, quant_bits=8):
        if not 2 <= int(quant_bits) <= 16:
            raise ValueError(f"AbsmaxObserver: quant_bits must be in [2, 16], got {quant_bits}")
        super().__init__(quant_bits=int(quant_bits))

    def _get_class(self):
        return AbsmaxObserverLayer


class AbsmaxObserverLayer(BaseObserver):
    """The observer `AbsmaxObserver` makes: returns its input, keeps ``max |x|`` (in the input's dtype)."""

    def __init__(self, layer, quant_bits=8):
        super().__init__()
        self._quant_bits, self._max, self._scale = int(quant_bits), None, None

    def forward(self, input):
        m = R.max(M.abs(input.detach()))
        self._max = m if self._max is None else M.maximum(m, self._max.astype(m.dtype))
        self._scale = None  # recomputed from the new maximum
        return input

    def cal_thresholds(self):
        if self._max is None:
            raise RuntimeError("AbsmaxObserver: no calibration data was seen; run the quantized model on some "
                               "batches before convert()")
        self._scale = self._max

    def scales(self):
        if self._scale is None:
            self.cal_thresholds()
        return self._scale

    def zero_points(self):
        return None

    def quant_axis(self):
        return -1

    def bit_length(self):
        return self._quant_bits

    def extra_repr(self):
        return f"quant_bits={self._quant_bits}"
