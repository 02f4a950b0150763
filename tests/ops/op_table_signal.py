"""Op-table rows for paddle.signal (imported by op_table.py), against plain NumPy loops."""
import numpy as np

import oar
from op_table import add, generators

randn = generators(14003, 'randn')  # own stream: rows added elsewhere do not move these inputs

S = oar.signal


def frame_np(x, length, hop, axis):
    if axis == -1:
        n = 1 + (x.shape[-1] - length) // hop
        return np.stack([x[..., i * hop:i * hop + length] for i in range(n)], axis=-1)
    n = 1 + (x.shape[0] - length) // hop
    return np.stack([x[i * hop:i * hop + length] for i in range(n)], axis=0)


def overlap_add_np(x, hop, axis):
    if axis == 0:
        return np.moveaxis(overlap_add_np(np.moveaxis(np.moveaxis(x, 0, -1), 0, -2), hop, -1), -1, 0)
    length, n = x.shape[-2], x.shape[-1]
    out = np.zeros(x.shape[:-2] + ((n - 1) * hop + length,))
    for i in range(n):
        out[..., i * hop:i * hop + length] += x[..., i]
    return out


def stft_np(x, n_fft, hop, w, center=True, mode="reflect", onesided=True, normalized=False):
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=mode)
    frames = np.swapaxes(frame_np(x, n_fft, hop, -1), -1, -2) * w
    spec = (np.fft.rfft if onesided else np.fft.fft)(frames, axis=-1, norm="ortho" if normalized else "backward")
    return np.swapaxes(spec, -1, -2)


def istft_np(spec, n_fft, hop, w, length):
    frames = np.fft.irfft(np.swapaxes(spec, -1, -2), n=n_fft, axis=-1) * w
    y = overlap_add_np(np.swapaxes(frames, -1, -2), hop, -1)
    env = overlap_add_np(np.tile((w * w)[:, None], (1, spec.shape[-1])), hop, -1)
    start = n_fft // 2
    return y[..., start:start + length] / env[start:start + length]


def as_real_np(z):
    return np.stack([z.real, z.imag], axis=-1)


HANN = np.hanning(10)[1:-1]  # 8 points, no zeros: the overlap-add condition holds for hop 2

add("frame", lambda x: S.frame(x, 4, 2), lambda x: frame_np(x, 4, 2, -1), (randn(9),), (randn(2, 3, 8),))
add("frame_axis0", lambda x: S.frame(x, 3, 2, axis=0), lambda x: frame_np(x, 3, 2, 0), (randn(8, 2),))
add("overlap_add", lambda x: S.overlap_add(x, 2), lambda x: overlap_add_np(x, 2, -1), (randn(4, 3),),
    (randn(2, 5, 3),))
add("overlap_add_axis0", lambda x: S.overlap_add(x, 3, axis=0), lambda x: overlap_add_np(x, 3, 0), (randn(3, 4, 2),))
add("stft", lambda x, w: oar.as_real(S.stft(x, n_fft=8, hop_length=3, window=w)),
    lambda x, w: as_real_np(stft_np(x, 8, 3, w)), (randn(20), HANN), (randn(2, 16), HANN))
add("stft_options", lambda x: oar.as_real(S.stft(x, n_fft=8, hop_length=2, win_length=6, center=True,
                                                  pad_mode="constant", onesided=False, normalized=True)),
    lambda x: as_real_np(stft_np(x, 8, 2, np.pad(np.ones(6), 1), mode="constant", onesided=False, normalized=True)),
    (randn(12),))
add("istft", lambda re, im: S.istft(oar.complex(re, im), n_fft=8, hop_length=2, window=oar.to_tensor(HANN), length=9),
    lambda re, im: istft_np(re + 1j * im, 8, 2, HANN, 9), (randn(5, 7), randn(5, 7)), (randn(2, 5, 7), randn(2, 5, 7)),
    tags=("dynamic_shape",))  # slicing the window envelope [4:13]: probing an unknown dim with sizes 2 and 3 says 0
