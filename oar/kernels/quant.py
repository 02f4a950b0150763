"""Linear quantization kernels: float -> int8/uint8 with a scale and zero point (per tensor or per axis), and back."""
import numpy as np
from .backend import array_module

_RANGE = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255), np.dtype(np.int32): (-2**31, 2**31 - 1)}


def _per_axis(v, ndim, quant_axis):
    """`v` shaped to broadcast along `quant_axis` of an `ndim`-D value (unchanged when per tensor)."""
    xp = array_module(v, ndim, quant_axis)
    if quant_axis < 0 or xp.ndim(v) == 0:
        return v
    shape = [1] * ndim
    shape[quant_axis] = -1
    return xp.reshape(v, shape)


def quantize(x, scale, zero_point, quant_axis=-1):
    xp = array_module(x, scale, zero_point)
    zp = xp.asarray(zero_point)
    if zp.dtype not in _RANGE or zp.dtype == xp.int32:
        raise TypeError(f"quantize_linear: the zero point's dtype sets the integer type and must be int8 or uint8, "
                        f"got {zp.dtype.name}")
    lo, hi = _RANGE[zp.dtype]
    q = xp.rint(x / _per_axis(scale, x.ndim, quant_axis))
    q += _per_axis(zp, x.ndim, quant_axis)
    return xp.clip(q, lo, hi, out=q).astype(zp.dtype)


def dequantize(q, scale, zero_point, quant_axis=-1):
    xp = array_module(q, scale, zero_point)
    scale = xp.asarray(scale)
    zp = _per_axis(xp.asarray(zero_point), q.ndim, quant_axis)
    if xp.any(zp):
        q = q.astype(xp.int64) - zp
    return xp.multiply(q, _per_axis(scale, q.ndim, quant_axis), dtype=scale.dtype)


def fake_quantize_dequantize(x, scale, bit_length=8):
    """Paddle's abs-max fake quantization: ``round(clip(x, -s, s) * bnt / s) * s / bnt`` with
    ``bnt = 2 ** (bit_length - 1) - 1`` and ties rounded away from zero (Paddle's rounding)."""
    xp = array_module(x, scale)
    bnt = float(2 ** (bit_length - 1) - 1)
    s = float(xp.asarray(scale).reshape(()))
    s = s if s > 1e-30 else s + float(x.dtype.type(1e-6))  # Paddle's guard against a zero scale
    v = xp.clip(x, -s, s) * (bnt / s)
    r = xp.copysign(xp.floor(xp.abs(v) + 0.5), v)
    return (r * (s / bnt)).astype(x.dtype, copy=False)
