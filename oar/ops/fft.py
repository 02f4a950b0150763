"""The discrete Fourier transforms of `paddle.fft`, as three ops (NumPy's pocketfft kernels):

    fft_c2c  complex -> complex          (fft, ifft, fftn, ...)
    fft_r2c  real -> complex             (rfft, ihfft; fft of a real input with onesided=False)
    fft_c2r  Hermitian half -> real      (irfft, hfft)

Each takes `axes`, `normalization` ('backward', 'forward', 'ortho') and `forward` (the sign of the exponent).
Cropping or zero-padding to the sizes `n` / `s` happens before the op with `slice` / `pad`, as in Paddle. The
gradient of each transform is the transform in the other direction with the other normalization (a DFT matrix's
adjoint is its conjugate), so all three rules are one line of other FFT ops plus padding or weighting.
"""
import numpy as np

from ..core import dtype as D
from .common import const, operand
from .complex import real, complex as make_complex
from .math import cast
from ..kernels.fft import (SWAP_NORM as _SWAP, c2r as _c2r, c2c as _c2c, complex_dtype, fftfreq as _fftfreq,
                           half_spectrum_weights as _half_spectrum_weights, r2c as _r2c, real_dtype)
from .registry import apply, defop

_NO_ONNX = "ONNX DFT needs opset 17 (oar builds opset 13)"  # the onnx_reason of this family's ops

_NORMS = ("backward", "forward", "ortho")


# ---- shape rules -----------------------------------------------------------------------------------------------------
def _c2c_infer(m, axes, normalization, forward):
    return [m[0]]


def _r2c_infer(m, axes, normalization, forward, onesided):
    shape = list(m[0][0])
    if onesided and shape[axes[-1]] >= 0:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    return [(shape, complex_dtype(m[0][1]))]


def _c2r_infer(m, axes, normalization, forward, last_dim_size):
    shape = list(m[0][0])
    shape[axes[-1]] = last_dim_size
    return [(shape, real_dtype(m[0][1]))]


# ---- gradients -------------------------------------------------------------------------------------------------------
def _c2c_grad(g, out, x, axes, normalization, forward):
    return apply(FFT_C2C, (g,), {"axes": axes, "normalization": _SWAP[normalization], "forward": not forward})


def _r2c_grad(g, out, x, axes, normalization, forward, onesided):
    if onesided:  # the dropped half of the spectrum had no cotangent: pad it with zeros
        from .manipulation import pad
        widths = [0] * (2 * g.ndim)
        widths[2 * axes[-1] + 1] = x.shape[axes[-1]] - g.shape[axes[-1]]
        g = pad(g, widths) if widths[2 * axes[-1] + 1] else g
    return real(apply(FFT_C2C, (g,), {"axes": axes, "normalization": _SWAP[normalization], "forward": not forward}))


def _c2r_grad(g, out, x, axes, normalization, forward, last_dim_size):
    half = apply(FFT_R2C, (g,), {"axes": axes, "normalization": _SWAP[normalization], "forward": not forward,
                                 "onesided": True})
    # each bin of the half spectrum stands for itself and its mirror, except DC and (even sizes) Nyquist
    return half * const(_half_spectrum_weights(last_dim_size, g.ndim, axes[-1]), real_dtype(x.dtype))


FFT_C2C = defop("fft_c2c", _c2c, infer=_c2c_infer, grad=_c2c_grad,
                onnx_reason=_NO_ONNX)
FFT_R2C = defop("fft_r2c", _r2c, infer=_r2c_infer, grad=_r2c_grad,
                onnx_reason=_NO_ONNX)
FFT_C2R = defop("fft_c2r", _c2r, infer=_c2r_infer, grad=_c2r_grad,
                onnx_reason=_NO_ONNX)

FFTFREQ = defop("fftfreq", _fftfreq, inputs=(),
                infer=lambda m, n, d, dtype, onesided: [([n // 2 + 1 if onesided else n], D.convert_dtype(dtype))],
                differentiable=False, onnx_reason="not lowered yet")


# ---- argument handling shared by the public functions ----------------------------------------------------------------
def check_norm(norm):
    if norm not in _NORMS:
        raise ValueError(f"Unexpected norm: {norm!r}. Norm should be 'forward', 'backward' or 'ortho'")
    return norm


def plan(x, s, axes, default_axes):
    """Normalized (s, axes) for an n-D transform: axes default to the last len(s) axes, or `default_axes`."""
    nd = x.ndim
    if s is not None:
        if isinstance(s, int) or not all(isinstance(v, (int, np.integer)) and v > 0 for v in s):
            raise ValueError(f"Invalid FFT argument s ({s}): it should be a sequence of positive integers")
        s = [int(v) for v in s]
    if axes is None:
        axes = list(range(nd - len(s), nd)) if s is not None else (
            list(range(nd)) if default_axes is None else list(default_axes))
    axes = [axes] if isinstance(axes, int) else list(axes)
    for a in axes:
        if not isinstance(a, (int, np.integer)) or not -nd <= a < nd:
            raise ValueError(f"Invalid FFT axes {axes}: each should be an integer in [-{nd}, {nd}) for a tensor of "
                             f"{nd} dims")
    axes = [int(a) % nd for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"FFT axes {axes} contain duplicates")
    if s is not None and len(s) != len(axes):
        raise ValueError(f"Length of s ({len(s)}) should equal the number of axes ({len(axes)})")
    return s, axes


def resize(x, sizes, axes):
    """Crops or zero-pads `x` along `axes` to `sizes`."""
    from .indexing import slice as _slice
    from .manipulation import pad
    crop = [(a, n) for a, n in zip(axes, sizes) if x.shape[a] > n]
    if crop:
        x = _slice(x, [a for a, _ in crop], [0] * len(crop), [n for _, n in crop])
    widths = [0] * (2 * x.ndim)
    for a, n in zip(axes, sizes):
        if x.shape[a] < n:
            widths[2 * a + 1] = n - x.shape[a]
    return pad(x, widths) if any(widths) else x


def as_float(x):
    x = operand(x)
    return x if x.dtype.kind in "fc" else cast(x, D.default_float())


def c2c(x, s, axes, norm, forward):
    x = as_float(x)
    if x.dtype.kind == "f":
        x = make_complex(x, x * 0.0)
    if s is not None:
        x = resize(x, s, axes)
    return apply(FFT_C2C, (x,), {"axes": axes, "normalization": check_norm(norm), "forward": forward})


def r2c(x, s, axes, norm, forward, onesided):
    x = as_float(x)
    if x.dtype.kind == "c":
        raise TypeError(f"this transform expects a real input, got {x.dtype}")
    if s is not None:
        x = resize(x, s, axes)
    return apply(FFT_R2C, (x,), {"axes": axes, "normalization": check_norm(norm), "forward": forward,
                                 "onesided": onesided})


def c2r(x, s, axes, norm, forward):
    x = as_float(x)
    if x.dtype.kind == "f":
        x = make_complex(x, x * 0.0)
    last = s[-1] if s is not None else 2 * (x.shape[axes[-1]] - 1)
    if last <= 0:
        raise ValueError(f"Invalid number of FFT data points ({last}) for an input of shape {x.shape}")
    sizes = (list(s[:-1]) if s is not None else [x.shape[a] for a in axes[:-1]]) + [last // 2 + 1]
    x = resize(x, sizes, axes)
    return apply(FFT_C2R, (x,), {"axes": axes, "normalization": check_norm(norm), "forward": forward,
                                 "last_dim_size": int(last)})


def one_axis(x, n, axis):
    """(s, axes) for the 1-D transforms."""
    x = operand(x)
    if n is not None and (not isinstance(n, (int, np.integer)) or n <= 0):
        raise ValueError(f"Invalid FFT argument n ({n}): it should be a positive integer")
    if not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"Invalid FFT axis ({axis}): it should be an integer in [-{x.ndim}, {x.ndim})")
    return (None if n is None else [int(n)]), [int(axis) % x.ndim]
