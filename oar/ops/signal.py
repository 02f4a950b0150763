"""Framing ops of `paddle.signal` and the short-time Fourier transforms built on them.

`frame` slices a signal into overlapping frames and `overlap_add` sums frames back into a signal; each is the
other's gradient. `stft` is pad -> frame -> window -> FFT and `istft` is inverse FFT -> window -> overlap_add ->
divide by the summed squared window, so both are differentiable through those ops.
"""
from ..core.state import STATE
from .common import operand, const
from .fft import c2c, r2c, c2r
from .manipulation import pad, transpose, unsqueeze, squeeze, tile
from ..kernels.creation import full as _full
from ..kernels.signal import frame as _frame, min_abs as _min_abs, overlap_add as _overlap_add
from .registry import apply, defop


def _check_axis(axis):
    if axis not in (0, -1):
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")


def _frame_infer(m, frame_length, hop_length, axis):
    shape, dt = m[0]
    length = shape[axis]
    n = 1 + (length - frame_length) // hop_length if length >= 0 else -1
    out = list(shape[:-1]) + [frame_length, n] if axis == -1 else [n, frame_length] + list(shape[1:])
    return [(out, dt)]


def _overlap_add_infer(m, hop_length, axis):
    shape, dt = m[0]
    fl, n = (shape[-2], shape[-1]) if axis == -1 else (shape[1], shape[0])
    length = (n - 1) * hop_length + fl if n >= 0 and fl >= 0 else -1
    return [(list(shape[:-2]) + [length] if axis == -1 else [length] + list(shape[2:]), dt)]


FRAME = defop("frame", _frame, infer=_frame_infer,
              grad=lambda g, out, x, frame_length, hop_length, axis: _fit(apply(OVERLAP_ADD, (g,), {
                  "hop_length": hop_length, "axis": axis}), x, axis), onnx_reason="not lowered yet")
OVERLAP_ADD = defop("overlap_add", _overlap_add, infer=_overlap_add_infer,
                    grad=lambda g, out, x, hop_length, axis: apply(FRAME, (g,), {
                        "frame_length": x.shape[-2] if axis == -1 else x.shape[1], "hop_length": hop_length,
                        "axis": axis}), onnx_reason="not lowered yet")


def _fit(g, x, axis):
    """Samples after the last whole frame get no gradient: pad the overlap-added gradient back to x's length."""
    missing = x.shape[axis] - g.shape[axis]
    if missing <= 0:
        return g
    widths = [0] * (2 * g.ndim)
    widths[2 * (axis % g.ndim) + 1] = missing
    return pad(g, widths)


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slices `x` into overlapping frames: ``[..., frame_length, num_frames]`` for axis -1, or
    ``[num_frames, frame_length, ...]`` for axis 0, with ``num_frames = 1 + (len - frame_length) // hop_length``.

    Example:
        >>> oar.signal.frame(oar.arange(8), frame_length=4, hop_length=2).numpy().tolist()
        [[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5, 7]]
    """
    x = operand(x)
    _check_axis(axis)
    if not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError(f"Unexpected frame_length: {frame_length}. It should be a positive integer.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be a positive integer.")
    if 0 <= x.shape[axis] < frame_length:
        raise ValueError(f"frame_length ({frame_length}) should be at most the sequence length ({x.shape[axis]})")
    return apply(FRAME, (x,), {"frame_length": frame_length, "hop_length": hop_length, "axis": axis})


def overlap_add(x, hop_length, axis=-1, name=None):
    """Sums overlapping frames (``[..., frame_length, num_frames]`` for axis -1) back into a signal of
    ``(num_frames - 1) * hop_length + frame_length`` samples.

    Example:
        >>> oar.signal.overlap_add(oar.arange(16).reshape([8, 2]), hop_length=2).numpy().tolist()
        [0, 2, 5, 9, 13, 17, 21, 25, 13, 15]
    """
    x = operand(x)
    _check_axis(axis)
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be a positive integer.")
    if x.ndim < 2:
        raise ValueError(f"overlap_add expects at least 2 dims, got shape {x.shape}")
    return apply(OVERLAP_ADD, (x,), {"hop_length": hop_length, "axis": axis})


def _window(window, win_length, n_fft, dtype):
    if window is None:
        window = const(_full([win_length], 1.0, "float64"), dtype)
    else:
        window = operand(window)
        if window.ndim != 1 or window.shape[0] != win_length:
            raise ValueError(f"expected a 1-D window of size win_length ({win_length}), got shape {window.shape}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pad(window, [left, n_fft - win_length - left], mode="constant")
    return window


def _lengths(n_fft, hop_length, win_length):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise ValueError(f"hop_length should be > 0, got {hop_length}")
    if not 0 < win_length <= n_fft:
        raise ValueError(f"win_length should be in (0, n_fft ({n_fft})], got {win_length}")
    return hop_length, win_length


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=True, name=None):
    """Short-time Fourier transform of a 1-D or 2-D (batch, time) signal: ``[..., n_fft//2 + 1, num_frames]``
    (``[..., n_fft, num_frames]`` when not `onesided`), complex.

    Example:
        >>> x = oar.randn([2, 400], dtype='float64')
        >>> oar.signal.stft(x, n_fft=64).shape, oar.signal.stft(x, n_fft=64, onesided=False).shape
        ([2, 33, 26], [2, 64, 26])
    """
    x = operand(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"stft expects a 1-D or 2-D input, got shape {x.shape}")
    single = x.ndim == 1
    if single:
        x = unsqueeze(x, 0)
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    window = _window(window, win_length, n_fft, x.dtype if x.dtype.kind == "f" else "float32")
    if center:
        if pad_mode not in ("constant", "reflect"):
            raise ValueError(f'pad_mode should be "reflect" or "constant", got {pad_mode!r}')
        x = squeeze(pad(unsqueeze(x, 1), [n_fft // 2, n_fft // 2], mode=pad_mode), 1)  # [batch, 1, time]
    if not 0 < n_fft <= x.shape[-1]:
        raise ValueError(f"n_fft should be in (0, seq_length ({x.shape[-1]})], got {n_fft}")
    frames = transpose(frame(x, n_fft, hop_length), [0, 2, 1]) * window  # [batch, num_frames, n_fft]
    norm = "ortho" if normalized else "backward"
    if frames.dtype.kind == "c":
        if onesided:
            raise ValueError("onesided should be False when the input or the window is complex")
        out = c2c(frames, None, [2], norm, True)
    else:
        out = r2c(frames, None, [2], norm, True, onesided)
    out = transpose(out, [0, 2, 1])
    return squeeze(out, 0) if single else out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=True,
          length=None, return_complex=False, name=None):
    """Inverse of `stft` by overlap-add (the least-squares estimate when the spectrum was modified); needs the
    window to satisfy the nonzero-overlap-add condition.

    Example:
        >>> x = oar.randn([2, 400], dtype='float64')
        >>> y = oar.signal.istft(oar.signal.stft(x, n_fft=64), n_fft=64, length=400)
        >>> bool(np.allclose(y.numpy(), x.numpy()))
        True
    """
    x = operand(x)
    if x.ndim not in (2, 3) or x.dtype.kind != "c":
        raise ValueError(f"istft expects a complex tensor of shape [(batch,) freq, frames], got {x.dtype}{x.shape}")
    single = x.ndim == 2
    if single:
        x = unsqueeze(x, 0)
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    n_frames = x.shape[-1]
    fft_size = x.shape[-2]
    if onesided and fft_size != n_fft // 2 + 1:
        raise ValueError(f"with onesided, the input should have n_fft // 2 + 1 = {n_fft // 2 + 1} frequency bins, "
                         f"got {fft_size}")
    if not onesided and fft_size != n_fft:
        raise ValueError(f"without onesided, the input should have n_fft = {n_fft} frequency bins, got {fft_size}")
    if return_complex and onesided:
        raise ValueError("onesided should be False when return_complex is True")
    from .fft import real_dtype
    window = _window(window, win_length, n_fft, real_dtype(x.dtype))
    norm = "ortho" if normalized else "backward"
    spec = transpose(x, [0, 2, 1])  # [batch, frames, freq]
    if return_complex:
        frames = c2c(spec, None, [2], norm, False)
    else:
        if not onesided:
            from .indexing import slice as _slice
            spec = _slice(spec, [2], [0], [n_fft // 2 + 1])
        frames = c2r(spec, [n_fft], [2], norm, False)
    frames = transpose(frames * window, [0, 2, 1])  # [batch, n_fft, frames]
    y = overlap_add(frames, hop_length)
    # the summed squared window, built with ops so that gradients reach a trainable window too
    env = overlap_add(tile(unsqueeze(window * window, -1), [1, n_frames]), hop_length)
    total = env.shape[0]
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + int(length)
    if end > total:
        raise ValueError(f"length ({length}) is longer than the signal the frames cover ({total - start})")
    from .indexing import slice as _slice
    env = _slice(env, [0], [start], [end])
    if not STATE.static and _min_abs(env.numpy()) < 1e-11:  # a static program checks nothing at build time
        raise ValueError("istft: the window's overlap-add has zeros (the NOLA condition fails); use another window "
                         "or a smaller hop_length")
    y = _slice(y, [1], [start], [end]) / env
    return squeeze(y, 0) if single else y

