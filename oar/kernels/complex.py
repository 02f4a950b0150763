"""Complex-number kernels: parts, conjugate, angle, and the complex <-> (real, imag) pair views."""
import numpy as np

from ..core import dtype as D

conj = np.conj
REAL_OF = {"complex64": D.float32, "complex128": D.float64}
COMPLEX_OF = {"float32": D.complex64, "float64": D.complex128}


def real(x):
    return np.real(x).copy()  # copy(): 0-D stays 0-D


def imag(x):
    return np.imag(x).copy() if x.dtype.kind == "c" else np.zeros_like(x)


def angle(x):
    return np.angle(x).astype(REAL_OF.get(str(x.dtype), D.convert_dtype(x.dtype)).np)


def complex(real, imag):
    return (real + 1j * imag).astype(COMPLEX_OF[str(real.dtype)].np)


def as_complex(x):
    return np.ascontiguousarray(x).view(COMPLEX_OF[str(x.dtype)].np)[..., 0]


def as_real(x):
    return np.stack([x.real, x.imag], -1)
