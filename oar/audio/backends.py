"""`paddle.audio.backends`: reading and writing audio files. oar has Paddle's default backend, 'wave_backend'
(16-bit PCM WAV through Python's `wave` module); Paddle's optional 'soundfile' backend (the paddleaudio package) is
not available."""
import wave

import numpy as np

from ..eager.tensor import Tensor
from ..ops.creation import assign

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]

_BACKENDS = ["wave_backend"]


class AudioInfo:
    """What `info` returns: sample_rate, num_samples (frames), num_channels, bits_per_sample, encoding."""

    def __init__(self, sample_rate, num_samples, num_channels, bits_per_sample, encoding):
        self.sample_rate, self.num_samples, self.num_channels = sample_rate, num_samples, num_channels
        self.bits_per_sample, self.encoding = bits_per_sample, encoding

    def __repr__(self):
        return (f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, "
                f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
                f"encoding={self.encoding})")


def list_available_backends():
    """The audio backends oar can use: ['wave_backend'].

    Example:
        >>> oar.audio.backends.list_available_backends()
        ['wave_backend']
    """
    return list(_BACKENDS)


def get_current_backend():
    """The backend `oar.audio.load`/`save`/`info` use: 'wave_backend'.

    Example:
        >>> oar.audio.backends.get_current_backend()
        'wave_backend'
    """
    return _BACKENDS[0]


def set_backend(backend_name):
    """Selects the audio backend; only 'wave_backend' exists in oar (a clear error for any other).

    Example:
        >>> oar.audio.backends.set_backend('wave_backend')
    """
    if backend_name not in _BACKENDS:
        raise NotImplementedError(f"set_backend: {backend_name!r} is not available; oar has {_BACKENDS} (Paddle's "
                                  "'soundfile' backend needs the paddleaudio package)")


def _open(filepath):
    f = filepath if hasattr(filepath, "read") else open(filepath, "rb")
    try:
        return f, wave.open(f)
    except (wave.Error, EOFError) as e:
        f.close()
        raise NotImplementedError(f"{filepath}: the wave backend reads 16-bit PCM WAV files only ({e})") from None


def info(filepath):
    """The sample rate, frame count, channels and sample width of a WAV file.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), 'a.wav')
        >>> oar.audio.save(path, oar.zeros([2, 100]), 8000)
        >>> i = oar.audio.info(path); (i.sample_rate, i.num_samples, i.num_channels, i.bits_per_sample)
        (8000, 100, 2, 16)
    """
    f, w = _open(filepath)
    try:
        return AudioInfo(w.getframerate(), w.getnframes(), w.getnchannels(), w.getsampwidth() * 8, "PCM_S")
    finally:
        f.close()


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """(waveform, sample_rate) of a 16-bit PCM WAV file: float32 in [-1, 1) when `normalize`, else the integer
    sample values as float32; [channels, frames] when `channels_first`. `frame_offset` skips frames (Paddle applies
    it only together with `num_frames`; oar always).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), 'a.wav')
        >>> oar.audio.save(path, oar.to_tensor([[0.5, -0.25, 0.0]]), 16000)
        >>> wav, sr = oar.audio.load(path)
        >>> wav.numpy().tolist(), sr
        ([[0.5, -0.25, 0.0]], 16000)
    """
    f, w = _open(filepath)
    try:
        if w.getsampwidth() != 2:
            raise NotImplementedError(f"{filepath}: {w.getsampwidth() * 8}-bit samples; the wave backend reads "
                                      "16-bit PCM only")
        channels, rate, frames = w.getnchannels(), w.getframerate(), w.getnframes()
        data = np.frombuffer(w.readframes(frames), dtype="<i2").astype(np.float32).reshape(frames, channels)
    finally:
        f.close()
    if normalize:
        data = data / 2.0 ** 15
    stop = None if num_frames == -1 else frame_offset + num_frames
    data = np.ascontiguousarray(data[frame_offset:stop])
    return assign(data.T.copy() if channels_first else data), rate


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Writes a 2-D waveform as 16-bit PCM WAV: float32 values in [-1, 1] are scaled by 2**15 (clipped to the int16
    range, where Paddle's cast would wrap 1.0 around to -1), integer values are written as they are.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), 'b.wav')
        >>> oar.audio.save(path, oar.zeros([1, 10]), 8000)
        >>> oar.audio.info(path).num_samples
        10
    """
    if src.ndim != 2:
        raise ValueError(f"save: expected a 2-D waveform, got shape {src.shape}")
    if bits_per_sample not in (None, 16):
        raise ValueError(f"save: the wave backend writes 16-bit samples only, got bits_per_sample={bits_per_sample}")
    if encoding not in (None, "PCM_S", "PCM_16"):
        raise ValueError(f"save: the wave backend writes PCM only, got encoding={encoding!r}")
    data = src.numpy() if isinstance(src, Tensor) else np.asarray(src)
    data = data.T if channels_first else data
    if data.dtype.kind == "f":
        data = data * 2.0 ** 15
    data = np.clip(np.trunc(data), -2 ** 15, 2 ** 15 - 1).astype("<i2")  # truncated, as Paddle's cast
    with wave.open(str(filepath), "wb") as w:
        w.setnchannels(data.shape[1])
        w.setsampwidth(2)
        w.setframerate(int(sample_rate))
        w.writeframes(data.tobytes())
