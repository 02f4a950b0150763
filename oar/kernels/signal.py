"""Framing kernels of `paddle.signal`: overlapping frames of a signal and their overlap-add."""
import numpy as np


def frame(x, frame_length, hop_length, axis):
    win = np.lib.stride_tricks.sliding_window_view(x, frame_length, axis=axis)
    if axis == -1:  # [..., num_frames, frame_length] -> [..., frame_length, num_frames]
        return np.ascontiguousarray(np.swapaxes(win[..., ::hop_length, :], -1, -2))
    return np.ascontiguousarray(np.moveaxis(win[::hop_length], -1, 1))  # [num_frames, frame_length, ...]


def overlap_add(x, hop_length, axis):
    if axis == -1:
        frame_length, n = x.shape[-2], x.shape[-1]
        out = np.zeros(x.shape[:-2] + ((n - 1) * hop_length + frame_length,), x.dtype)
        for i in range(n):
            out[..., i * hop_length:i * hop_length + frame_length] += x[..., :, i]
        return out
    n, frame_length = x.shape[0], x.shape[1]
    out = np.zeros(((n - 1) * hop_length + frame_length,) + x.shape[2:], x.dtype)
    for i in range(n):
        out[i * hop_length:i * hop_length + frame_length] += x[i]
    return out


def min_abs(x):
    """The smallest magnitude in `x` (inf when empty)."""
    return float(np.abs(x).min()) if x.size else float("inf")
