"""`paddle.audio.features`: spectrogram, mel spectrogram, log-mel spectrogram and MFCC layers of waveforms [N, T]
(Paddle's definitions; composed from `oar.signal.stft` and the filter banks of `oar.audio.functional`)."""
from ..nn.layer.layers import Layer
from ..ops import linalg as LA
from ..ops import manipulation as S
from ..ops import math as M
from ..ops.signal import stft
from .functional import compute_fbank_matrix, create_dct, get_window, power_to_db

__all__ = ["LogMelSpectrogram", "MelSpectrogram", "MFCC", "Spectrogram"]


class Spectrogram(Layer):
    """``|stft(x)| ** power`` of waveforms [N, T] -> [N, n_fft//2 + 1, frames].

    Example:
        >>> oar.audio.features.Spectrogram(n_fft=64, hop_length=16)(oar.ones([2, 256])).shape
        [2, 33, 17]
    """

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window="hann", power=1.0, center=True,
                 pad_mode="reflect", dtype="float32"):
        super().__init__()
        if power <= 0:
            raise ValueError(f"Spectrogram: power must be positive, got {power}")
        self.n_fft, self.hop_length, self.power, self.center, self.pad_mode = n_fft, hop_length, power, center, \
            pad_mode
        self.win_length = n_fft if win_length is None else win_length
        self.fft_window = get_window(window, self.win_length, fftbins=True, dtype=dtype)

    def forward(self, x):
        spec = stft(x, self.n_fft, self.hop_length, self.win_length, self.fft_window, self.center, self.pad_mode)
        return M.pow(M.abs(spec), self.power)


class MelSpectrogram(Layer):
    """The spectrogram through the mel filter bank: [N, n_mels, frames].

    Example:
        >>> oar.audio.features.MelSpectrogram(sr=16000, n_fft=128, hop_length=32, n_mels=20)(oar.ones([1, 512])).shape
        [1, 20, 17]
    """

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 dtype="float32"):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft, hop_length, win_length, window, power, center, pad_mode, dtype)
        self.n_mels, self.f_min, self.f_max, self.htk, self.norm = n_mels, f_min, f_max, htk, norm
        self.fbank_matrix = compute_fbank_matrix(sr, n_fft, n_mels, f_min, f_max, htk, norm, dtype)

    def forward(self, x):
        return LA.matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(Layer):
    """The mel spectrogram in decibels (`power_to_db`).

    Example:
        >>> layer = oar.audio.features.LogMelSpectrogram(sr=16000, n_fft=128, hop_length=32, n_mels=20)
        >>> layer(oar.ones([1, 512])).shape
        [1, 20, 17]
    """

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        self._melspectrogram = MelSpectrogram(sr, n_fft, hop_length, win_length, window, power, center, pad_mode,
                                              n_mels, f_min, f_max, htk, norm, dtype)
        self.ref_value, self.amin, self.top_db = ref_value, amin, top_db

    def forward(self, x):
        return power_to_db(self._melspectrogram(x), self.ref_value, self.amin, self.top_db)


class MFCC(Layer):
    """Mel-frequency cepstral coefficients: the DCT of the log-mel spectrogram, [N, n_mfcc, frames].

    Example:
        >>> layer = oar.audio.features.MFCC(sr=16000, n_mfcc=13, n_fft=128, hop_length=32, n_mels=20)
        >>> layer(oar.ones([1, 512])).shape
        [1, 13, 17]
    """

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        if n_mfcc > n_mels:
            raise ValueError(f"MFCC: n_mfcc ({n_mfcc}) must not exceed n_mels ({n_mels})")
        self._log_melspectrogram = LogMelSpectrogram(sr, n_fft, hop_length, win_length, window, power, center,
                                                     pad_mode, n_mels, f_min, f_max, htk, norm, ref_value, amin,
                                                     top_db, dtype)
        self.dct_matrix = create_dct(n_mfcc, n_mels, dtype=dtype)

    def forward(self, x):
        log_mel = self._log_melspectrogram(x)  # [N, n_mels, T]
        return S.transpose(LA.matmul(S.transpose(log_mel, [0, 2, 1]), self.dct_matrix), [0, 2, 1])
