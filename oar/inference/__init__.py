"""Deployment inference (Paddle 2.x `paddle.inference`): load a saved model, optimize it, run it.

Example:
    >>> from oar.static import InputSpec
    >>> oar.jit.save(oar.nn.Linear(4, 2), 'model/net', input_spec=[InputSpec([None, 4], 'float32', 'x')])
    >>> config = oar.inference.Config('model/net.pdmodel', 'model/net.pdiparams')
    >>> predictor = oar.inference.create_predictor(config)
    >>> x = np.ones([3, 4], 'float32')
    >>> h = predictor.get_input_handle(predictor.get_input_names()[0])
    >>> h.reshape(x.shape); h.copy_from_cpu(x)
    >>> predictor.run()
    True
    >>> out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    >>> out.shape
    (3, 2)
"""
from .config import Config, PrecisionType, PlaceType
from .predictor import Predictor, Tensor, create_predictor
from .extras import DataType, PredictorPool, get_num_bytes_of_data_type, get_version

__all__ = ["Config", "Predictor", "Tensor", "create_predictor", "PrecisionType", "PlaceType", "DataType",
           "PredictorPool", "get_num_bytes_of_data_type", "get_version"]
