"""Post-training int8 quantization (`PostTrainingQuantization`, as PaddleSlim's PTQ) and the QDQ ops it inserts.

A quantized model is saved like any other (`docs/format.md`, model format version 2) and runs in the predictor,
natively or with `Config.enable_onnxruntime()` (ONNX Runtime's int8 kernels; see docs/inference.md).

Example:
    >>> from oar.quantization import PostTrainingQuantization
    >>> ptq = PostTrainingQuantization(model_dir='model/net', data_loader=batches, batch_nums=10, algo='KL')
    >>> ptq.quantize()
    >>> ptq.save_quantized_model('model/net_int8')
    >>> predictor = oar.inference.create_predictor(oar.inference.Config('model/net_int8'))
"""
from ..ops.quant import dequantize_linear, quantize_linear
from .calibration import ALGOS
from .ptq import PostTrainingQuantization

__all__ = ["PostTrainingQuantization", "quantize_linear", "dequantize_linear", "ALGOS"]
