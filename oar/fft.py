"""`paddle.fft`: discrete Fourier transforms of real and complex tensors (1-D, 2-D, n-D), Hermitian transforms,
sample frequencies and shifts. Every transform is one of three differentiable ops in `oar/ops/fft.py`.

`norm` is 'backward' (no scaling forward, 1/n inverse; the default), 'forward' (the reverse) or 'ortho'.
"""
from .core import dtype as D
from .ops.common import operand
from .ops.fft import c2c, r2c, c2r, plan, one_axis, FFTFREQ
from .ops.registry import apply
from .ops.manipulation import roll

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _real_input(x):
    return operand(x).dtype.kind != "c"


# ---- 1-D -------------------------------------------------------------------------------------------------------------
def fft(x, n=None, axis=-1, norm="backward", name=None):
    """1-D discrete Fourier transform along `axis` (cropped or zero-padded to `n` points).

    Example:
        >>> x = oar.to_tensor(np.exp(3j * np.pi * np.arange(7) / 7))
        >>> oar.fft.fft(x).numpy().round(3).tolist()[:2]
        [(1+1.254j), (1+4.381j)]
    """
    s, axes = one_axis(x, n, axis)
    if _real_input(x):
        return r2c(x, s, axes, norm, True, False)
    return c2c(x, s, axes, norm, True)


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    """1-D inverse discrete Fourier transform: ``ifft(fft(x)) == x``.

    Example:
        >>> oar.fft.ifft(oar.to_tensor([4 + 0j, 0j, 0j, 0j])).numpy().tolist()
        [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    s, axes = one_axis(x, n, axis)
    if _real_input(x):
        return r2c(x, s, axes, norm, False, False)
    return c2c(x, s, axes, norm, False)


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    """1-D transform of a real signal: the ``n//2 + 1`` non-negative frequency terms.

    Example:
        >>> oar.fft.rfft(oar.to_tensor([0.0, 1.0, 0.0, 0.0])).numpy().tolist()
        [(1+0j), -1j, (-1+0j)]
    """
    s, axes = one_axis(x, n, axis)
    return r2c(x, s, axes, norm, True, True)


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    """Inverse of `rfft`: a real signal of `n` points (default ``2 * (m - 1)``) from its half spectrum.

    Example:
        >>> oar.fft.irfft(oar.to_tensor([1, -1j, -1])).numpy().tolist()
        [0.0, 1.0, 0.0, 0.0]
    """
    s, axes = one_axis(x, n, axis)
    return c2r(x, s, axes, norm, False)


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    """Transform of a Hermitian-symmetric signal given by its first half: a real spectrum of `n` points.

    Example:
        >>> oar.fft.hfft(oar.to_tensor([1 + 0j, 2 + 0j, 3 + 0j])).numpy().tolist()
        [8.0, -2.0, 0.0, -2.0]
    """
    s, axes = one_axis(x, n, axis)
    return c2r(x, s, axes, norm, True)


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    """Inverse of `hfft`: the half spectrum (``n//2 + 1`` terms) of a real signal, inverse direction.

    Example:
        >>> oar.fft.ihfft(oar.to_tensor([8.0, -2.0, 0.0, -2.0])).numpy().real.tolist()
        [1.0, 2.0, 3.0]
    """
    s, axes = one_axis(x, n, axis)
    return r2c(x, s, axes, norm, False, True)


# ---- n-D -------------------------------------------------------------------------------------------------------------
def fftn(x, s=None, axes=None, norm="backward", name=None):
    """n-D discrete Fourier transform over `axes` (all axes, or the last len(s)), resized to `s`.

    Example:
        >>> oar.fft.fftn(oar.ones([2, 2])).numpy().tolist()
        [[(4+0j), 0j], [0j, 0j]]
    """
    s, axes = plan(operand(x), s, axes, None)
    if _real_input(x):
        return r2c(x, s, axes, norm, True, False)
    return c2c(x, s, axes, norm, True)


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    """n-D inverse discrete Fourier transform.

    Example:
        >>> oar.fft.ifftn(oar.to_tensor([[4 + 0j, 0j], [0j, 0j]])).numpy().real.tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    s, axes = plan(operand(x), s, axes, None)
    if _real_input(x):
        return r2c(x, s, axes, norm, False, False)
    return c2c(x, s, axes, norm, False)


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    """n-D transform of a real input; the last axis keeps ``n//2 + 1`` terms.

    Example:
        >>> oar.fft.rfftn(oar.ones([2, 4])).shape
        [2, 3]
    """
    s, axes = plan(operand(x), s, axes, None)
    return r2c(x, s, axes, norm, True, True)


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    """Inverse of `rfftn`: a real tensor (last axis ``2 * (m - 1)`` points unless `s` says).

    Example:
        >>> oar.fft.irfftn(oar.fft.rfftn(oar.ones([2, 4]))).numpy().tolist()
        [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    s, axes = plan(operand(x), s, axes, None)
    return c2r(x, s, axes, norm, False)


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    """n-D transform of a Hermitian-symmetric input given by its half (last axis): a real result.

    Example:
        >>> oar.fft.hfftn(oar.to_tensor([[1 + 0j, 0j], [0j, 0j]])).numpy().tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    s, axes = plan(operand(x), s, axes, None)
    return c2r(x, s, axes, norm, True)


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    """Inverse of `hfftn`: the half spectrum of a real input, inverse direction.

    Example:
        >>> oar.fft.ihfftn(oar.ones([2, 2])).numpy().real.tolist()
        [[1.0, 0.0], [0.0, 0.0]]
    """
    s, axes = plan(operand(x), s, axes, None)
    return r2c(x, s, axes, norm, False, True)


# ---- 2-D: the n-D transforms over two axes ---------------------------------------------------------------------------
def _two_axes(axes):
    if axes is None or len(axes) != 2:
        raise ValueError(f"the 2-D transforms need exactly two axes, got {axes}")
    return axes


def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D discrete Fourier transform over `axes` (the last two by default).

    Example:
        >>> oar.fft.fft2(oar.ones([2, 2])).numpy().real.tolist()
        [[4.0, 0.0], [0.0, 0.0]]
    """
    return fftn(x, s, _two_axes(axes), norm)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D inverse discrete Fourier transform.

    Example:
        >>> oar.fft.ifft2(oar.fft.fft2(oar.ones([2, 2]))).numpy().real.tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    return ifftn(x, s, _two_axes(axes), norm)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D transform of a real input (the last axis halved).

    Example:
        >>> oar.fft.rfft2(oar.ones([2, 4])).shape
        [2, 3]
    """
    return rfftn(x, s, _two_axes(axes), norm)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Inverse of `rfft2`.

    Example:
        >>> oar.fft.irfft2(oar.fft.rfft2(oar.ones([2, 4]))).shape
        [2, 4]
    """
    return irfftn(x, s, _two_axes(axes), norm)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """2-D transform of a Hermitian-symmetric input given by its half: a real result.

    Example:
        >>> oar.fft.hfft2(oar.to_tensor([[1 + 0j, 0j], [0j, 0j]])).shape
        [2, 2]
    """
    return hfftn(x, s, _two_axes(axes), norm)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Inverse of `hfft2`.

    Example:
        >>> oar.fft.ihfft2(oar.ones([2, 4])).shape
        [2, 3]
    """
    return ihfftn(x, s, _two_axes(axes), norm)


# ---- frequencies and shifts ------------------------------------------------------------------------------------------
def _freq_dtype(dtype):
    t = D.convert_dtype(dtype) if dtype is not None else D.default_float()
    return t


def fftfreq(n, d=1.0, dtype=None, name=None):
    """Sample frequencies of an `n`-point transform with sample spacing `d`.

    Example:
        >>> oar.fft.fftfreq(4, d=0.5).numpy().tolist()
        [0.0, 0.5, -1.0, -0.5]
    """
    return apply(FFTFREQ, (), {"n": int(n), "d": float(d), "dtype": _freq_dtype(dtype).name, "onesided": False})


def rfftfreq(n, d=1.0, dtype=None, name=None):
    """Sample frequencies of `rfft`'s output (non-negative only).

    Example:
        >>> oar.fft.rfftfreq(4, d=0.5).numpy().tolist()
        [0.0, 0.5, 1.0]
    """
    return apply(FFTFREQ, (), {"n": int(n), "d": float(d), "dtype": _freq_dtype(dtype).name, "onesided": True})


def _shift(x, axes, sign):
    x = operand(x)
    axes = list(range(x.ndim)) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    shifts = [sign * (x.shape[a] // 2) for a in axes]
    return roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the centre (a roll by n // 2 along `axes`, all by default).

    Example:
        >>> oar.fft.fftshift(oar.fft.fftfreq(5, dtype='float64')).numpy().round(2).tolist()
        [-0.4, -0.2, 0.0, 0.2, 0.4]
    """
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """Inverse of `fftshift`.

    Example:
        >>> oar.fft.ifftshift(oar.fft.fftshift(oar.fft.fftfreq(5, dtype='float64'))).numpy().round(2).tolist()
        [0.0, 0.2, 0.4, -0.4, -0.2]
    """
    return _shift(x, axes, -1)
