"""ONNX lowerings of the QDQ ops (`oar.ops.quant`): QuantizeLinear / DequantizeLinear, per tensor or per axis
(opset 13). ONNX Runtime fuses ``DequantizeLinear -> Conv/MatMul -> QuantizeLinear`` groups into int8 kernels."""
from ..ops import quant as _quant  # noqa: F401  (defines the ops lowered here)
from .lower_math import register


def _qdq(onnx_type):
    def lower(ctx, op):
        axis = op.attrs.get("quant_axis", -1)
        if axis >= 0 and ctx.opset < 13:
            raise ctx.block_op_error(op, "per-channel quantization needs opset_version >= 13")
        ins = [ctx.inp(op, "x"), ctx.inp(op, "scale"), ctx.inp(op, "zero_point")]
        ctx.node(onnx_type, ins, [ctx.out(op)], axis=axis if axis >= 0 else None)
    return lower


register({"quantize_linear": _qdq("QuantizeLinear"), "dequantize_linear": _qdq("DequantizeLinear")})
