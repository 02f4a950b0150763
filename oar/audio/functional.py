"""`paddle.audio.functional`: mel scales, filter banks, decibels, the DCT matrix and window functions (Paddle's
definitions, librosa's formulas); tensors in, tensors out (float in, float out for the scale conversions)."""
import math

import numpy as np

from ..ops import creation as C
from ..ops import math as M
from ..ops import reduction as R

__all__ = ["compute_fbank_matrix", "create_dct", "fft_frequencies", "hz_to_mel", "mel_frequencies", "mel_to_hz",
           "power_to_db", "get_window"]

_F_SP = 200.0 / 3  # Slaney's scale: linear below 1 kHz (3 mels per 200 Hz), logarithmic above
_MIN_LOG_HZ, _LOGSTEP = 1000.0, math.log(6.4) / 27.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP


def hz_to_mel(freq, htk=False):
    """Hz to mels: HTK's ``2595 log10(1 + f/700)`` or Slaney's (linear below 1 kHz, logarithmic above).

    Example:
        >>> round(oar.audio.functional.hz_to_mel(1000.0), 4), round(oar.audio.functional.hz_to_mel(2000.0), 4)
        (15.0, 25.0819)
    """
    if htk:
        return 2595.0 * (M.log10(1.0 + freq / 700.0) if hasattr(freq, "dtype") else math.log10(1.0 + freq / 700.0))
    if hasattr(freq, "dtype"):
        log_part = _MIN_LOG_MEL + M.log(M.clip(freq, min=_MIN_LOG_HZ) / _MIN_LOG_HZ) / _LOGSTEP
        return M.where(freq >= _MIN_LOG_HZ, log_part, freq / _F_SP)
    return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ) / _LOGSTEP if freq >= _MIN_LOG_HZ else freq / _F_SP


def mel_to_hz(mel, htk=False):
    """Mels to Hz, the inverse of `hz_to_mel`.

    Example:
        >>> round(oar.audio.functional.mel_to_hz(15.0), 4)
        1000.0
    """
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    if hasattr(mel, "dtype"):
        log_part = _MIN_LOG_HZ * M.exp(_LOGSTEP * (M.clip(mel, min=_MIN_LOG_MEL) - _MIN_LOG_MEL))
        return M.where(mel >= _MIN_LOG_MEL, log_part, mel * _F_SP)
    return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL)) if mel >= _MIN_LOG_MEL else mel * _F_SP


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """`n_mels` frequencies (Hz) evenly spaced on the mel scale from `f_min` to `f_max`.

    Example:
        >>> [round(v, 2) for v in oar.audio.functional.mel_frequencies(3, 0.0, 2000.0).numpy().tolist()]
        [0.0, 836.06, 2000.0]
    """
    mels = C.linspace(hz_to_mel(f_min, htk), hz_to_mel(f_max, htk), n_mels, dtype="float64")
    return M.cast(mel_to_hz(mels, htk), dtype)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The centre frequencies of an `n_fft`-point real FFT's bins: ``linspace(0, sr/2, 1 + n_fft//2)``.

    Example:
        >>> oar.audio.functional.fft_frequencies(8, 4).numpy().tolist()
        [0.0, 2.0, 4.0]
    """
    return C.linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney", dtype="float32"):
    """Triangular mel filters [n_mels, 1 + n_fft//2]; `norm` 'slaney' scales each to unit area, a number p
    normalises each row to unit p-norm, None leaves them.

    Example:
        >>> fb = oar.audio.functional.compute_fbank_matrix(16000, 512, n_mels=40)
        >>> fb.shape
        [40, 257]
    """
    f_max = float(sr) / 2 if f_max is None else f_max
    fft = fft_frequencies(sr, n_fft, "float64").numpy()
    mel_f = mel_frequencies(n_mels + 2, f_min, f_max, htk, "float64").numpy()
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft[None, :]
    lower, upper = -ramps[:-2] / fdiff[:-1, None], ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    if norm == "slaney":
        weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, None]
    elif norm is not None:
        p = float(norm)
        weights /= np.maximum((np.abs(weights) ** p).sum(-1, keepdims=True) ** (1 / p), 1e-12)
    return C.assign(weights.astype(dtype))


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """Power to decibels: ``10 log10(max(amin, x)) - 10 log10(max(amin, ref_value))``, floored at ``max - top_db``
    when `top_db` is given.

    Example:
        >>> oar.audio.functional.power_to_db(oar.to_tensor([1.0, 10.0, 1e-12])).numpy().tolist()
        [0.0, 10.0, -70.0]
    """
    if amin <= 0:
        raise ValueError(f"power_to_db: amin must be positive, got {amin}")
    if ref_value <= 0:
        raise ValueError(f"power_to_db: ref_value must be positive, got {ref_value}")
    db = 10.0 * M.log10(M.clip(spect, min=amin)) - 10.0 * math.log10(max(amin, ref_value))
    if top_db is not None:
        if top_db < 0:
            raise ValueError(f"power_to_db: top_db must be non-negative, got {top_db}")
        db = M.maximum(db, R.max(db) - top_db)
    return db


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The DCT-II matrix [n_mels, n_mfcc] that turns log-mel bins into cepstral coefficients ('ortho' or None).

    Example:
        >>> d = oar.audio.functional.create_dct(4, 4, dtype='float64').numpy()
        >>> bool(np.allclose(d.T @ d, np.eye(4)))
        True
    """
    if norm not in ("ortho", None):
        raise ValueError(f"create_dct: norm must be 'ortho' or None, got {norm!r}")
    n, k = np.arange(n_mels, dtype=np.float64), np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_mels * (n + 0.5) * k)
    if norm is None:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    return C.assign(dct.T.astype(dtype))


def _general_cosine(m, coeffs):
    fac = np.linspace(-math.pi, math.pi, m)
    return sum(a * np.cos(k * fac) for k, a in enumerate(coeffs))


def _triang(m):
    n = np.arange(1, (m + 1) // 2 + 1)
    if m % 2 == 0:
        w = (2 * n - 1.0) / m
        return np.concatenate([w, w[::-1]])
    w = 2 * n / (m + 1.0)
    return np.concatenate([w, w[-2::-1]])


_WINDOWS = {
    "hann": lambda m: _general_cosine(m, [0.5, 0.5]),
    "hamming": lambda m: _general_cosine(m, [0.54, 0.46]),
    "blackman": lambda m: _general_cosine(m, [0.42, 0.50, 0.08]),
    "nuttall": lambda m: _general_cosine(m, [0.3635819, 0.4891775, 0.1365995, 0.0106411]),
    "bartlett": lambda m: np.bartlett(m),
    "triang": lambda m: _triang(m),
    "cosine": lambda m: np.sin(math.pi / m * (np.arange(m) + 0.5)),
    "bohman": lambda m: np.concatenate([[0.0], (lambda f: (1 - f) * np.cos(math.pi * f) + np.sin(math.pi * f)
                                                 / math.pi)(np.abs(np.linspace(-1, 1, m)[1:-1])), [0.0]])
    if m > 2 else np.zeros(m),
}
_PARAM_WINDOWS = {
    "gaussian": lambda m, std: np.exp(-0.5 * ((np.arange(m) - (m - 1) / 2) / std) ** 2),
    "exponential": lambda m, center=None, tau=1.0: np.exp(-np.abs(np.arange(m) - ((m - 1) / 2 if center is None
                                                                                else center)) / tau),
    "kaiser": lambda m, beta: np.kaiser(m, beta),
}


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """A window of `win_length` samples: a name ('hann', 'hamming', 'blackman', 'nuttall', 'bartlett', 'triang',
    'cosine', 'bohman') or a tuple with parameters ('gaussian', std), ('kaiser', beta), ('exponential'[, center
    [, tau]]);
    `fftbins` gives the periodic window (for spectra), else the symmetric one (scipy's definitions).

    Example:
        >>> oar.audio.functional.get_window('hann', 4).numpy().tolist()
        [0.0, 0.5, 1.0, 0.5]
    """
    name, args = (window[0], tuple(window[1:])) if isinstance(window, tuple) else (window, ())
    if name in ("gaussian", "kaiser") and len(args) != 1 or name == "exponential" and len(args) > 2:
        raise ValueError(f"get_window: wrong parameters {args} for the {name!r} window (gaussian: std, kaiser: "
                         "beta, exponential: center, tau)")
    if name == "exponential" and not fftbins and args and args[0] is not None:
        raise ValueError("get_window: a symmetric exponential window (fftbins=False) takes no center")
    if name not in _WINDOWS and name not in _PARAM_WINDOWS:
        raise ValueError(f"get_window: unknown window {name!r}; oar has {sorted(_WINDOWS) + sorted(_PARAM_WINDOWS)}"
                         " ('tukey' and 'taylor' are not implemented)")
    if win_length <= 1:
        return C.assign(np.ones(max(int(win_length), 0), dtype))
    m = win_length + 1 if fftbins else win_length  # periodic: the symmetric window one longer, truncated
    w = _PARAM_WINDOWS[name](m, *args) if name in _PARAM_WINDOWS else _WINDOWS[name](m)
    return C.assign(np.asarray(w[:win_length], dtype))
