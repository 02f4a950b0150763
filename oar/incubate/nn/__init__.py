"""`paddle.incubate.nn`: `FusedLinear` (defined in `oar.nn.layer.common`), `FusedDropoutAdd` and `functional`."""
from ...nn.layer.common import FusedLinear
from ...nn.layer.layers import Layer
from . import functional  # noqa: F401

__all__ = ["FusedLinear", "FusedDropoutAdd", "functional"]


class FusedDropoutAdd(Layer):
    """``dropout(x, p) + y`` as a layer (`functional.fused_dropout_add`): dropout while training, and in
    evaluation ``x + y`` (``mode='upscale_in_train'``) or ``x * (1 - p) + y`` (``'downscale_in_infer'``).

    Example:
        >>> from oar.incubate.nn import FusedDropoutAdd
        >>> layer = FusedDropoutAdd(p=0.5, mode='downscale_in_infer')
        >>> _ = layer.eval()
        >>> layer(oar.ones([2]), oar.ones([2])).numpy().tolist()
        [1.5, 1.5]
    """

    def __init__(self, p=0.5, mode="upscale_in_train", name=None):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"FusedDropoutAdd: p must be in [0, 1], got {p}")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"FusedDropoutAdd: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
        self.p, self.mode, self._name = p, mode, name

    def forward(self, x, y):
        return functional.fused_dropout_add(x, y, self.p, self.training, self.mode)

    def extra_repr(self):
        return f"p={self.p}, mode={self.mode}"
