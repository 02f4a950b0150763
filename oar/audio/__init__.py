"""`oar.audio` (Paddle's `paddle.audio`): WAV input/output (`load`, `save`, `info` through the wave backend), audio
features (spectrograms, mel filter banks, MFCC) and their functional building blocks.

Example:
    >>> mfcc = oar.audio.features.MFCC(sr=16000, n_mfcc=13, n_fft=256, hop_length=64)
    >>> mfcc(oar.randn([1, 1600])).shape
    [1, 13, 26]
"""
from . import backends, datasets, features, functional
from .backends import info, load, save

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]
