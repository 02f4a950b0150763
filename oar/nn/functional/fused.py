"""The functions of Paddle's `paddle.incubate.nn.functional` that model code calls: on Paddle they are GPU-only
fused kernels; here they are the plain computation (the `fuse_linear` pass fuses the matmul and bias of saved
programs)."""
from ...ops.linalg import matmul


def fused_matmul_bias(x, y, bias=None, transpose_x=False, transpose_y=False, name=None):
    """``matmul(x, y, transpose_x, transpose_y) + bias``.

    Example:
        >>> from oar.incubate.nn.functional import fused_matmul_bias
        >>> fused_matmul_bias(oar.ones([2, 3]), oar.ones([3, 4]), oar.ones([4])).numpy()[0].tolist()
        [4.0, 4.0, 4.0, 4.0]
    """
    out = matmul(x, y, transpose_x=transpose_x, transpose_y=transpose_y)
    return out if bias is None else out + bias


def fused_linear(x, weight, bias=None, transpose_weight=False, name=None):
    """``x @ weight + bias``, with `weight` stored ``[out, in]`` when `transpose_weight`.

    Example:
        >>> from oar.incubate.nn.functional import fused_linear
        >>> fused_linear(oar.ones([2, 3]), oar.ones([4, 3]), transpose_weight=True).shape
        [2, 4]
    """
    return fused_matmul_bias(x, weight, bias, False, transpose_weight)
