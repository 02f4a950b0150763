"""Op-table rows for paddle.fft and the complex basics (imported by op_table.py). Complex inputs enter as two real
tensors through `oar.complex` and complex results leave through `oar.as_real`, so the finite-difference gradient
checks move real and imaginary parts separately."""
import numpy as np

import oar
from op_table import add, generators

randn, pos = generators(14001, 'randn', 'pos')  # own stream: rows added elsewhere do not move these inputs

F = oar.fft


def cx(re, im):
    return oar.complex(re, im)


def as_real_np(z):
    z = np.asarray(z)
    return np.stack([z.real, z.imag], axis=-1)


def _c(name, fn, ref, *shapes, **kw):
    """A transform of a complex input given as (real, imaginary) arrays; complex outputs compared as real pairs."""
    def wrap_out(o):
        return oar.as_real(o) if o.dtype.kind == "c" else o

    def ref_out(o):
        return as_real_np(o) if np.iscomplexobj(o) else o
    add(name, lambda re, im: wrap_out(fn(cx(re, im))), lambda re, im: ref_out(ref(re + 1j * im)),
        *[(randn(*s), randn(*s)) for s in shapes], **kw)


def _r(name, fn, ref, *shapes, **kw):
    """A transform of a real input."""
    add(name, lambda x: (lambda o: oar.as_real(o) if o.dtype.kind == "c" else o)(fn(x)),
        lambda x: (lambda o: as_real_np(o) if np.iscomplexobj(o) else o)(ref(x)), *[(randn(*s),) for s in shapes],
        **kw)


# ---- complex basics -------------------------------------------------------------------------------------------------
add("complex", lambda re, im: oar.as_real(cx(re, im)), lambda re, im: as_real_np(re + 1j * im), (randn(3), randn(3)))
add("real_imag", lambda re, im: (oar.real(cx(re, im) * 2.0), oar.imag(cx(re, im))),
    lambda re, im: (2 * re, im), (randn(2, 3), randn(2, 3)))
add("conj", lambda re, im: oar.as_real(oar.conj(cx(re, im))), lambda re, im: as_real_np(re - 1j * im),
    (randn(4), randn(4)))
add("as_complex", lambda x: oar.imag(oar.as_complex(x)), lambda x: x[..., 1].copy(), (randn(3, 2),))
add("angle", lambda re, im: oar.angle(cx(re, im)), lambda re, im: np.angle(re + 1j * im), (randn(5), randn(5)))
add("angle_real", oar.angle, np.angle, (randn(5),))

# ---- 1-D -------------------------------------------------------------------------------------------------------------
for _norm in ("backward", "forward", "ortho"):
    _c(f"fft_{_norm}", (lambda n: lambda z: F.fft(z, norm=n))(_norm),
       (lambda n: lambda z: np.fft.fft(z, norm=n))(_norm),
       (5,), (2, 4))
    _c(f"ifft_{_norm}", (lambda n: lambda z: F.ifft(z, norm=n))(_norm),
       (lambda n: lambda z: np.fft.ifft(z, norm=n))(_norm), (6,))
    _r(f"rfft_{_norm}", (lambda n: lambda x: F.rfft(x, norm=n))(_norm),
       (lambda n: lambda x: np.fft.rfft(x, norm=n))(_norm), (6,), (3, 5))
    _c(f"irfft_{_norm}", (lambda n: lambda z: F.irfft(z, norm=n))(_norm),
       (lambda n: lambda z: np.fft.irfft(z, norm=n))(_norm), (4,), (2, 5))
    _c(f"hfft_{_norm}", (lambda n: lambda z: F.hfft(z, n=7, norm=n))(_norm),
       (lambda n: lambda z: np.fft.hfft(z, n=7, norm=n))(_norm), (4,))
    _r(f"ihfft_{_norm}", (lambda n: lambda x: F.ihfft(x, norm=n))(_norm),
       (lambda n: lambda x: np.fft.ihfft(x, norm=n))(_norm), (6,), (5,))
_r("fft_real_input", F.fft, np.fft.fft, (5,), (2, 4))
_r("ifft_real_input", lambda x: F.ifft(x, axis=0), lambda x: np.fft.ifft(x, axis=0), (4, 3))
_c("fft_n_pad_axis0", lambda z: F.fft(z, n=6, axis=0), lambda z: np.fft.fft(z, n=6, axis=0), (4, 3))
_c("fft_n_crop", lambda z: F.fft(z, n=3), lambda z: np.fft.fft(z, n=3), (2, 5))
_r("rfft_n", lambda x: F.rfft(x, n=8), lambda x: np.fft.rfft(x, n=8), (5,))
_c("irfft_n_odd", lambda z: F.irfft(z, n=5), lambda z: np.fft.irfft(z, n=5), (3,), (6,))
_c("irfft_axis0", lambda z: F.irfft(z, axis=0), lambda z: np.fft.irfft(z, axis=0), (3, 2))

# ---- 2-D and n-D -----------------------------------------------------------------------------------------------------
_c("fft2", F.fft2, np.fft.fft2, (3, 4), (2, 3, 4))
_c("ifft2_s", lambda z: F.ifft2(z, s=[2, 5]), lambda z: np.fft.ifft2(z, s=[2, 5]), (3, 4))
_r("rfft2", F.rfft2, np.fft.rfft2, (3, 4))
_c("irfft2", F.irfft2, np.fft.irfft2, (3, 3))
_c("hfft2", F.hfft2, lambda z: np.fft.irfft2(np.conj(z), norm="forward"), (3, 3))
_r("ihfft2", F.ihfft2, lambda x: np.conj(np.fft.rfft2(x, norm="forward")), (3, 4))
_c("fftn", F.fftn, np.fft.fftn, (2, 3, 4))
_c("fftn_axes", lambda z: F.fftn(z, axes=[0, 2], norm="ortho"), lambda z: np.fft.fftn(z, axes=[0, 2], norm="ortho"),
   (2, 3, 4))
_c("ifftn_s", lambda z: F.ifftn(z, s=[3, 3]), lambda z: np.fft.ifftn(z, s=[3, 3], axes=[-2, -1]), (2, 4, 2))
_r("rfftn", F.rfftn, np.fft.rfftn, (2, 3, 4))
_c("irfftn_s", lambda z: F.irfftn(z, s=[4, 5]), lambda z: np.fft.irfftn(z, s=[4, 5], axes=[0, 1]), (3, 3))
_c("hfftn", lambda z: F.hfftn(z, norm="ortho"), lambda z: np.fft.irfftn(np.conj(z), norm="ortho"), (2, 3))
_r("ihfftn", F.ihfftn, lambda x: np.conj(np.fft.rfftn(x, norm="forward")), (2, 4))

# ---- frequencies and shifts ------------------------------------------------------------------------------------------
add("fftfreq", lambda: F.fftfreq(5, d=0.3), lambda: np.fft.fftfreq(5, 0.3).astype(np.float32), ())
add("rfftfreq", lambda: F.rfftfreq(6, dtype="float64"), lambda: np.fft.rfftfreq(6), ())
add("fftshift", F.fftshift, np.fft.fftshift, (randn(3, 4),))
add("ifftshift_axes", lambda x: F.ifftshift(x, axes=[1]), lambda x: np.fft.ifftshift(x, axes=[1]), (randn(3, 5),))

# ---- complex arithmetic: gradients use conjugates (dL/dRe + i dL/dIm) ------------------------------------------------
add("complex_multiply", lambda a, b, c, d: oar.as_real(cx(a, b) * cx(c, d)),
    lambda a, b, c, d: as_real_np((a + 1j * b) * (c + 1j * d)), (randn(3), randn(3), randn(3), randn(3)))
add("complex_divide", lambda a, b, c, d: oar.as_real(cx(a, b) / cx(c, d)),
    lambda a, b, c, d: as_real_np((a + 1j * b) / (c + 1j * d)), (randn(3), randn(3), pos(3), pos(3)))
add("complex_matmul", lambda a, b, c, d: oar.as_real(cx(a, b) @ cx(c, d)),
    lambda a, b, c, d: as_real_np((a + 1j * b) @ (c + 1j * d)), (randn(2, 3), randn(2, 3), randn(3, 2), randn(3, 2)))
add("complex_abs", lambda a, b: oar.abs(cx(a, b)), lambda a, b: np.abs(a + 1j * b), (randn(4), randn(4)))
add("fft_filter", lambda x, fr, fi: oar.fft.irfft(oar.fft.rfft(x) * cx(fr, fi), n=6),
    lambda x, fr, fi: np.fft.irfft(np.fft.rfft(x) * (fr + 1j * fi), n=6), (randn(6), randn(4), randn(4)))
add("real_imag_0d", lambda a, b: (oar.real(cx(a, b)), oar.imag(cx(a, b))), lambda a, b: (a, b), (randn(), randn()))
