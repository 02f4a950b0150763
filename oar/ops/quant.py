"""Linear quantization ops (ONNX QuantizeLinear / DequantizeLinear, Paddle's ``quantize_linear`` /
``dequantize_linear``), the QDQ pair `oar.quantization` inserts into inference programs.

    quantize_linear(x, scale, zero_point)   = clip(round_half_even(x / scale) + zero_point, qmin, qmax)
    dequantize_linear(q, scale, zero_point) = (q - zero_point) * scale

``scale`` is the step size (ONNX convention: ``abs_max / 127`` for symmetric int8). With ``quant_axis = -1`` the
scale and zero point are scalars (per tensor); otherwise 1-D, one per index of axis ``quant_axis`` (per channel).
The quantized dtype is the zero point's (int8, uint8; int32 for biases, dequantize only). Neither op has a
gradient: they appear in inference programs only.

Example:
    >>> x = oar.to_tensor([0.5, -1.0, 2.0])
    >>> scale, zero = oar.to_tensor(np.array(0.02, 'float32')), oar.to_tensor(np.array(0, 'int8'))
    >>> q = oar.quantization.quantize_linear(x, scale, zero)
    >>> q.numpy(), oar.quantization.dequantize_linear(q, scale, zero).numpy()
    (array([ 25, -50, 100], dtype=int8), array([ 0.5, -1. ,  2. ], dtype=float32))
"""

from ..kernels.quant import dequantize as _dequantize, fake_quantize_dequantize as _fake_qdq, quantize as _quantize
from .registry import apply, defop, lowerings


def _check_axis(x, scale, zero_point, quant_axis=-1):
    nd = len(x.shape)
    if quant_axis >= nd or quant_axis < -1:
        raise ValueError(f"quant_axis {quant_axis} is out of range for a {nd}-D input (-1: per tensor)")
    if quant_axis >= 0 and len(scale.shape) == 1 and x.shape[quant_axis] not in (-1, scale.shape[0]):
        raise ValueError(f"{scale.shape[0]} scales for axis {quant_axis} of size {x.shape[quant_axis]}")


QUANTIZE_LINEAR = defop("quantize_linear", _quantize, inputs=("x", "scale", "zero_point"),
                        infer=lambda m, quant_axis=-1: [(m[0][0], m[2][1])], check=_check_axis, differentiable=False)
DEQUANTIZE_LINEAR = defop("dequantize_linear", _dequantize, inputs=("x", "scale", "zero_point"),
                          infer=lambda m, quant_axis=-1: [(m[0][0], m[1][1])], check=_check_axis, differentiable=False)


# Quantization-aware training's simulated quantization. Its gradient is the straight-through estimator as Paddle
# 3.3.1 defines it for fake_quantize_dequantize_moving_average_abs_max: the identity, inside and outside [-s, s].
FAKE_QUANTIZE_DEQUANTIZE = defop("fake_quantize_dequantize_abs_max", _fake_qdq, inputs=("x", "scale"),
                                 infer=lambda m, bit_length=8: [m[0]], nondiff=(1,),
                                 grad=lambda g, out, x, scale, bit_length=8: (g, None),
                                 onnx_reason="a training op: QAT.convert replaces it by quantize_linear / "
                                             "dequantize_linear, which export (ONNX rounds ties to even and "
                                             "clips int8 at -128, this op rounds ties away from zero at +-127)")


def fake_quantize_dequantize(x, scale, bit_length=8):
    """`x` rounded to the `bit_length`-bit symmetric grid of abs-max `scale` and back to float (see
    `kernels.quant.fake_quantize_dequantize`); the gradient passes straight through (identity, as Paddle).

    Example:
        >>> from oar.ops.quant import fake_quantize_dequantize
        >>> fake_quantize_dequantize(oar.to_tensor([0.5, 1.5, 300.0]), oar.to_tensor([127.0])).numpy()
        array([  1.,   2., 127.], dtype=float32)
    """
    return apply(FAKE_QUANTIZE_DEQUANTIZE, (x, scale), {"bit_length": int(bit_length)})


def quantize_linear(x, scale, zero_point, quant_axis=-1):
    """Quantizes `x` to the zero point's integer dtype (see the module doc).

    Example:
        >>> scale, zero = oar.to_tensor(np.array(0.5, 'float32')), oar.to_tensor(np.array(0, 'int8'))
        >>> oar.quantization.quantize_linear(oar.to_tensor([1.0]), scale, zero).numpy()
        array([2], dtype=int8)
    """
    return apply(QUANTIZE_LINEAR, (x, scale, zero_point), {"quant_axis": int(quant_axis)})


def dequantize_linear(q, scale, zero_point, quant_axis=-1):
    """The float values of the integers `q` (see the module doc).

    Example:
        >>> scale, zero = oar.to_tensor(np.array(0.5, 'float32')), oar.to_tensor(np.array(0, 'int8'))
        >>> oar.quantization.dequantize_linear(oar.to_tensor(np.array([2], "int8")), scale, zero).numpy()
        array([1.], dtype=float32)
    """
    return apply(DEQUANTIZE_LINEAR, (q, scale, zero_point), {"quant_axis": int(quant_axis)})


def _onnx_qdq(onnx_type):
    """QuantizeLinear / DequantizeLinear, per tensor or per axis (opset 13). ONNX Runtime fuses
    ``DequantizeLinear -> Conv/MatMul -> QuantizeLinear`` groups into int8 kernels."""
    def lower(ctx, op):
        axis = op.attrs.get("quant_axis", -1)
        if axis >= 0 and ctx.opset < 13:
            raise ctx.block_op_error(op, "per-channel quantization needs opset_version >= 13")
        ins = [ctx.inp(op, "x"), ctx.inp(op, "scale"), ctx.inp(op, "zero_point")]
        ctx.node(onnx_type, ins, [ctx.out(op)], axis=axis if axis >= 0 else None)
    return lower


lowerings({"quantize_linear": _onnx_qdq("QuantizeLinear"), "dequantize_linear": _onnx_qdq("DequantizeLinear")})
