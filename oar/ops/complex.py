"""Complex tensors: building them (complex, polar, as_complex), taking them apart (real, imag, angle, as_real) and
conj. Gradients: real/imag/complex/as_real/as_complex move gradients between the real and complex views (Paddle's
convention: the gradient of a real loss w.r.t. a complex input is ``dL/dRe + i dL/dIm``)."""
from ..core import dtype as D
from .common import infer_same, binary, infer_broadcast, public_api
from ..kernels.complex import (COMPLEX_OF as _COMPLEX_OF, REAL_OF as _REAL_OF, angle as _angle,
                               as_complex as _as_complex, as_real as _as_real, complex as _complex, conj as _conj,
                               imag as _imag, real as _real)
from .registry import apply, defop

_NO_ONNX = "complex dtypes: ONNX has no complex tensors"  # the onnx_reason of this family's ops


def _real_meta(m):
    return [(m[0][0], _REAL_OF.get(m[0][1].name, m[0][1]))]


REAL = defop("real", _real, infer=_real_meta,  # copy(): 0-D stays 0-D
             grad=lambda g, out, x: complex(g, g * 0.0) if x.dtype.kind == "c" else g,
             onnx_reason=_NO_ONNX)
IMAG = defop("imag", _imag,
             infer=_real_meta, grad=lambda g, out, x: complex(g * 0.0, g) if x.dtype.kind == "c" else None,
             onnx_reason=_NO_ONNX)
CONJ = defop("conj", _conj, grad=lambda g, out, x: conj(g), infer=infer_same,
             onnx_reason=_NO_ONNX)


def _angle_grad(g, out, x):
    if x.dtype.kind != "c":
        return g * 0.0
    re, im = real(x), imag(x)  # d angle = (-im dRe + re dIm) / |x|^2, as dL/dRe + i dL/dIm
    r2 = re * re + im * im
    return complex(-im * g / r2, re * g / r2)


ANGLE = defop("angle", _angle,
              infer=_real_meta, grad=_angle_grad, onnx_reason=_NO_ONNX)
COMPLEX = defop("complex", _complex,
                inputs=("real", "imag"),
                infer=lambda m: [(infer_broadcast(m)[0][0], _COMPLEX_OF[m[0][1].name])],
                grad=lambda g, out, re, im: (_unb(real(g), re), _unb(imag(g), im)),
                onnx_reason=_NO_ONNX)
AS_COMPLEX = defop("as_complex", _as_complex,
                   infer=lambda m: [(m[0][0][:-1], _COMPLEX_OF[m[0][1].name])],
                   grad=lambda g, out, x: as_real(g), onnx_reason=_NO_ONNX)
AS_REAL = defop("as_real", _as_real,
                infer=lambda m: [(list(m[0][0]) + [2], _REAL_OF[m[0][1].name])],
                grad=lambda g, out, x: as_complex(g), onnx_reason=_NO_ONNX)


def _unb(g, x):
    from .math import unbroadcast
    return unbroadcast(g, x)


def real(x, name=None):
    """The real part of a complex tensor (a real tensor is returned as is).

    Example:
        >>> oar.real(oar.to_tensor([1 + 2j, 3 - 1j])).numpy().tolist()
        [1.0, 3.0]
    """
    return apply(REAL, (x,))


def imag(x, name=None):
    """The imaginary part of a complex tensor.

    Example:
        >>> oar.imag(oar.to_tensor([1 + 2j, 3 - 1j])).numpy().tolist()
        [2.0, -1.0]
    """
    return apply(IMAG, (x,))


def conj(x, name=None):
    """The complex conjugate (real tensors are unchanged).

    Example:
        >>> oar.conj(oar.to_tensor([1 + 2j])).numpy().tolist()
        [(1-2j)]
    """
    return apply(CONJ, (x,))


def angle(x, name=None):
    """The argument (phase) of complex numbers; 0 or pi for real numbers.

    Example:
        >>> [round(v, 4) for v in oar.angle(oar.to_tensor([1j, -1.0 + 0j])).numpy().tolist()]
        [1.5708, 3.1416]
    """
    if x.dtype.kind in "iub":
        from .math import cast
        x = cast(x, D.default_float())
    return apply(ANGLE, (x,))


def complex(real, imag, name=None):
    """A complex tensor from real and imaginary parts (float32 -> complex64, float64 -> complex128).

    Example:
        >>> oar.complex(oar.to_tensor([1.0, 2.0]), oar.to_tensor([3.0, -1.0])).numpy().tolist()
        [(1+3j), (2-1j)]
    """
    return binary(COMPLEX, real, imag)


def polar(abs, angle, name=None):
    """The complex number with magnitude `abs` and phase `angle`: ``abs * (cos(angle) + i sin(angle))``.

    Example:
        >>> z = oar.polar(oar.to_tensor([2.0]), oar.to_tensor([0.0]))
        >>> z.numpy().tolist()
        [(2+0j)]
    """
    from .math import cos, sin
    return complex(abs * cos(angle), abs * sin(angle))


def as_complex(x, name=None):
    """Views a real tensor whose last dim is 2 as complex numbers.

    Example:
        >>> oar.as_complex(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist()
        [(1+2j), (3+4j)]
    """
    if x.shape and x.shape[-1] not in (2, -1):
        raise ValueError(f"as_complex: the last dim must be 2, got shape {x.shape}")
    return apply(AS_COMPLEX, (x,))


def as_real(x, name=None):
    """Views a complex tensor as real numbers with a new last dim of 2 (real, imaginary).

    Example:
        >>> oar.as_real(oar.to_tensor([1 + 2j])).numpy().tolist()
        [[1.0, 2.0]]
    """
    return apply(AS_REAL, (x,))


def is_complex(x):
    """Whether `x` has a complex dtype.

    Example:
        >>> oar.is_complex(oar.to_tensor([1j])), oar.is_complex(oar.to_tensor([1.0]))
        (True, False)
    """
    return x.dtype.kind == "c"


def is_floating_point(x):
    """Whether `x` has a real floating dtype.

    Example:
        >>> oar.is_floating_point(oar.to_tensor([1.0])), oar.is_floating_point(oar.to_tensor([1]))
        (True, False)
    """
    return x.dtype.kind == "f" or x.dtype.name == "bfloat16"


def is_integer(x):
    """Whether `x` has an integer dtype.

    Example:
        >>> oar.is_integer(oar.to_tensor([1])), oar.is_integer(oar.to_tensor([1.0]))
        (True, False)
    """
    return x.dtype.kind in "iu"


def _sgn_complex(x):
    from .math import sqrt, where, zeros_like
    re, im = real(x), imag(x)
    m = sqrt(re * re + im * im)
    safe = where(m == 0, m + 1, m)
    return where(m == 0, zeros_like(x), x / complex(safe, safe * 0.0))


__all__ = public_api(globals())
