"""`paddle.signal`: short-time Fourier transforms (`stft`, `istft`) and the framing ops under them (`frame`,
`overlap_add`), all differentiable; defined in `oar/ops/signal.py`."""
from .ops.signal import stft, istft, frame, overlap_add  # noqa: F401  (oar.signal.frame as documented)

__all__ = ["stft", "istft"]
