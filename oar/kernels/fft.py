"""Discrete Fourier transform kernels (NumPy's pocketfft): complex-to-complex, real-to-complex, complex-to-real,
and the sample frequencies."""
import numpy as np

from ..core import dtype as D

SWAP_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def complex_dtype(dt):
    return D.complex128 if D.convert_dtype(dt) in (D.float64, D.complex128) else D.complex64


def real_dtype(dt):
    return D.float64 if D.convert_dtype(dt) in (D.float64, D.complex128) else D.float32


def c2c(x, axes, normalization, forward):
    f = np.fft.fftn if forward else np.fft.ifftn
    return f(x, axes=axes, norm=normalization).astype(x.dtype, copy=False)


def r2c(x, axes, normalization, forward, onesided):
    c = complex_dtype(x.dtype).np
    if not onesided:
        return (np.fft.fftn if forward else np.fft.ifftn)(x, axes=axes, norm=normalization).astype(c, copy=False)
    if forward:
        return np.fft.rfftn(x, axes=axes, norm=normalization).astype(c, copy=False)
    return np.conj(np.fft.rfftn(x, axes=axes, norm=SWAP_NORM[normalization])).astype(c, copy=False)


def c2r(x, axes, normalization, forward, last_dim_size):
    s = [x.shape[a] for a in axes[:-1]] + [last_dim_size]
    if forward:  # hfft: the Hermitian signal's forward transform
        out = np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=SWAP_NORM[normalization])
    else:
        out = np.fft.irfftn(x, s=s, axes=axes, norm=normalization)
    return out.astype(real_dtype(x.dtype).np, copy=False)


def fftfreq(n, d, dtype, onesided):
    return (np.fft.rfftfreq if onesided else np.fft.fftfreq)(n, d).astype(D.np_dtype(dtype))


def half_spectrum_weights(last_dim_size, ndim, axis):
    """How many bins of the full spectrum each bin of a half spectrum stands for (itself and its mirror; DC and,
    for even sizes, Nyquist only themselves), shaped to broadcast along `axis` of an `ndim`-dim array."""
    w = np.full(last_dim_size // 2 + 1, 2.0)
    w[0] = 1.0
    if last_dim_size % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = w.size
    return w.reshape(shape)
