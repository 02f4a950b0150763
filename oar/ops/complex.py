"""Complex-number basics that the FFT family needs: real, imag, conj, complex, as_real, as_complex, angle, is_complex.

Gradients follow Paddle's (and PyTorch's) convention for a real loss L of a complex z: the gradient is
``dL/dRe(z) + i dL/dIm(z)``. So `real`'s gradient is ``g + 0j``, `imag`'s is ``0 + g i``, `conj`'s is ``conj(g)``.
"""
import numpy as np

from ..framework import dtype as D
from .common import public_api, operand
from .math import atan2, cast, zeros_like
from .registry import apply, defop


def _real_of(dt):
    return D.float64 if D.convert_dtype(dt) is D.complex128 else D.float32


def _complex_of(dt):
    return D.complex128 if D.convert_dtype(dt) in (D.float64, D.complex128) else D.complex64


def _part_infer(m):
    shape, dt = m[0]
    return [(shape, _real_of(dt) if dt.kind == "c" else dt)]


REAL = defop("real", lambda x: np.real(x).copy(), infer=_part_infer,
             grad=lambda g, out, x: apply(COMPLEX, (g, g * 0.0)) if x.dtype.kind == "c" else g)
IMAG = defop("imag", lambda x: np.imag(x).copy(), infer=_part_infer,
             grad=lambda g, out, x: apply(COMPLEX, (g * 0.0, g)) if x.dtype.kind == "c" else g * 0.0)
CONJ = defop("conj", np.conj, infer=lambda m: [m[0]], grad=lambda g, out, x: apply(CONJ, (g,)))
COMPLEX = defop("complex", lambda real, imag: real + 1j * imag.astype(_complex_of(real.dtype).np),
                inputs=("real", "imag"),
                infer=lambda m: [(m[0][0], _complex_of(m[0][1]))],
                grad=lambda g, out, re, im: (apply(REAL, (g,)), apply(IMAG, (g,))))
AS_REAL = defop("as_real", lambda x: np.stack([x.real, x.imag], axis=-1),
                infer=lambda m: [(list(m[0][0]) + [2], _real_of(m[0][1]))],
                grad=lambda g, out, x: apply(AS_COMPLEX, (g,)))
AS_COMPLEX = defop("as_complex", lambda x: x[..., 0] + 1j * x[..., 1].astype(_complex_of(x.dtype).np),
                   infer=lambda m: [(list(m[0][0][:-1]), _complex_of(m[0][1]))],
                   grad=lambda g, out, x: apply(AS_REAL, (g,)))


def real(x, name=None):
    """The real part of a complex tensor (a float tensor is returned as is).

    Example:
        >>> oar.real(oar.to_tensor([1 + 2j, 3 - 1j])).numpy().tolist()
        [1.0, 3.0]
    """
    return apply(REAL, (operand(x),))


def imag(x, name=None):
    """The imaginary part of a complex tensor (zeros for a float tensor).

    Example:
        >>> oar.imag(oar.to_tensor([1 + 2j, 3 - 1j])).numpy().tolist()
        [2.0, -1.0]
    """
    return apply(IMAG, (operand(x),))


def conj(x, name=None):
    """Complex conjugate (a real tensor is returned unchanged in value).

    Example:
        >>> oar.conj(oar.to_tensor([1 + 2j])).numpy().tolist()
        [(1-2j)]
    """
    return apply(CONJ, (operand(x),))


def complex(real, imag, name=None):
    """A complex tensor from real and imaginary parts of the same float dtype.

    Example:
        >>> oar.complex(oar.to_tensor([1.0]), oar.to_tensor([2.0])).numpy().tolist()
        [(1+2j)]
    """
    real, imag = operand(real), operand(imag)
    if real.dtype.kind != "f" or imag.dtype is not real.dtype:
        raise TypeError(f"complex expects two float tensors of one dtype, got {real.dtype} and {imag.dtype}")
    return apply(COMPLEX, (real, imag))


def as_real(x, name=None):
    """A complex tensor viewed as floats with a last axis of 2 (real, imaginary).

    Example:
        >>> oar.as_real(oar.to_tensor([1 + 2j])).numpy().tolist()
        [[1.0, 2.0]]
    """
    x = operand(x)
    if x.dtype.kind != "c":
        raise TypeError(f"as_real expects a complex tensor, got {x.dtype}")
    return apply(AS_REAL, (x,))


def as_complex(x, name=None):
    """A float tensor with a last axis of 2 read as (real, imaginary) pairs.

    Example:
        >>> oar.as_complex(oar.to_tensor([[1.0, 2.0]])).numpy().tolist()
        [(1+2j)]
    """
    x = operand(x)
    if x.dtype.kind != "f" or not x.shape or x.shape[-1] != 2:
        raise ValueError(f"as_complex expects a float tensor whose last axis has size 2, got {x.dtype}{x.shape}")
    return apply(AS_COMPLEX, (x,))


def angle(x, name=None):
    """The argument (phase) of complex numbers; 0 or pi for real numbers.

    Example:
        >>> round(oar.angle(oar.to_tensor([1j])).item(), 4)
        1.5708
    """
    x = operand(x)
    if x.dtype.kind != "c":
        x = x if x.dtype.kind == "f" else cast(x, D.default_float())
        return atan2(zeros_like(x), x)
    return atan2(imag(x), real(x))


def is_complex(x):
    """Whether `x` has a complex dtype.

    Example:
        >>> oar.is_complex(oar.to_tensor([1j])), oar.is_complex(oar.ones([1]))
        (True, False)
    """
    return operand(x).dtype.kind == "c"


__all__ = public_api(globals())
