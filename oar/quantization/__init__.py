"""Post-training int8 quantization (`PostTrainingQuantization`, as PaddleSlim's PTQ), quantization-aware training
(`QAT`, `QuantConfig`, `quanters`, as ``paddle.quantization``) and the QDQ ops both write.

A quantized model is saved like any other (`docs/format.md`, model format version 2) and runs in the predictor,
natively or with `Config.enable_onnxruntime()` (ONNX Runtime's int8 kernels; see docs/inference.md).

Example:
    >>> from oar.quantization import PostTrainingQuantization
    >>> from oar.static import InputSpec
    >>> oar.jit.save(oar.nn.Linear(4, 3), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
    >>> batches = [np.random.rand(8, 4).astype('float32') for _ in range(4)]
    >>> ptq = PostTrainingQuantization(model_dir='model/net', data_loader=batches, algo='KL', bins=256)
    >>> program = ptq.quantize()
    >>> ptq.save_quantized_model('model/net_int8')
    'model/net_int8.pdmodel'
    >>> predictor = oar.inference.create_predictor(oar.inference.Config('model/net_int8'))
    >>> predictor.run([batches[0]])[0].shape
    (8, 3)
"""
from ..ops.quant import dequantize_linear, quantize_linear
from . import observers, quanters
from .base import BaseObserver, BaseQuanter, quanter
from .calibration import ALGOS
from .config import QuantConfig
from .ptq import PostTrainingQuantization
from .qat import PTQ, QAT

__all__ = ["PostTrainingQuantization", "QAT", "PTQ", "QuantConfig", "BaseQuanter", "BaseObserver", "quanter",
           "quanters", "observers", "quantize_linear", "dequantize_linear", "ALGOS"]
