"""Complex-number kernels: parts, conjugate, angle, and the complex <-> (real, imag) pair views."""

from ..core import dtype as D
from .backend import array_module, ufunc_kernel

conj = ufunc_kernel("conj")
REAL_OF = {"complex64": D.float32, "complex128": D.float64}
COMPLEX_OF = {"float32": D.complex64, "float64": D.complex128}


def real(x):
    xp = array_module(x)
    return xp.real(x).copy()  # copy(): 0-D stays 0-D


def imag(x):
    xp = array_module(x)
    return xp.imag(x).copy() if x.dtype.kind == "c" else xp.zeros_like(x)


def angle(x):
    xp = array_module(x)
    return xp.angle(x).astype(REAL_OF.get(str(x.dtype), D.convert_dtype(x.dtype)).np)


def complex(real, imag):
    return (real + 1j * imag).astype(COMPLEX_OF[str(real.dtype)].np)


def as_complex(x):
    xp = array_module(x)
    return xp.ascontiguousarray(x).view(COMPLEX_OF[str(x.dtype)].np)[..., 0]


def as_real(x):
    xp = array_module(x)
    return xp.stack([x.real, x.imag], -1)
