"""`paddle.incubate.nn.functional`: `fused_linear`, `fused_matmul_bias` (`oar.nn.functional.fused`), `swiglu` and
`fused_dropout_add`."""
from ...nn.functional.fused import fused_linear, fused_matmul_bias
from ...ops.nn.activation_composed import swiglu

__all__ = ["fused_linear", "fused_matmul_bias", "swiglu", "fused_dropout_add"]


def fused_dropout_add(x, y, p=0.5, training=True, mode="upscale_in_train", name=None):
    """``dropout(x, p) + y`` (one kernel on Paddle's GPUs; the same dropout and sum here).

    Example:
        >>> from oar.incubate.nn.functional import fused_dropout_add
        >>> fused_dropout_add(oar.ones([3]), oar.ones([3]), p=0.5, training=False).numpy().tolist()
        [2.0, 2.0, 2.0]
    """
    from ...nn.functional import dropout
    return dropout(x, p, training=training, mode=mode) + y
