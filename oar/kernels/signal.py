"""Framing kernels of `paddle.signal`: overlapping frames of a signal and their overlap-add."""
from .backend import array_module, sliding_window_view


def frame(x, frame_length, hop_length, axis):
    xp = array_module(x, frame_length, hop_length, axis)
    win = sliding_window_view(x, frame_length, axis=axis)
    if axis == -1:  # [..., num_frames, frame_length] -> [..., frame_length, num_frames]
        return xp.ascontiguousarray(xp.swapaxes(win[..., ::hop_length, :], -1, -2))
    return xp.ascontiguousarray(xp.moveaxis(win[::hop_length], -1, 1))  # [num_frames, frame_length, ...]


def overlap_add(x, hop_length, axis):
    xp = array_module(x, hop_length, axis)
    if axis == -1:
        frame_length, n = x.shape[-2], x.shape[-1]
        out = xp.zeros(x.shape[:-2] + ((n - 1) * hop_length + frame_length,), x.dtype)
        for i in range(n):
            out[..., i * hop_length:i * hop_length + frame_length] += x[..., :, i]
        return out
    n, frame_length = x.shape[0], x.shape[1]
    out = xp.zeros(((n - 1) * hop_length + frame_length,) + x.shape[2:], x.dtype)
    for i in range(n):
        out[i * hop_length:i * hop_length + frame_length] += x[i]
    return out


def min_abs(x):
    """The smallest magnitude in `x` (inf when empty)."""
    xp = array_module(x)
    return float(xp.abs(x).min()) if x.size else float("inf")
