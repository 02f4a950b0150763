"""Deployment inference (Paddle 2.x `paddle.inference`): load a saved model, optimize it, run it.

Example:
    >>> config = oar.inference.Config('model/net.pdmodel', 'model/net.pdiparams')
    >>> predictor = oar.inference.create_predictor(config)
    >>> h = predictor.get_input_handle(predictor.get_input_names()[0])
    >>> h.reshape(x.shape); h.copy_from_cpu(x)
    >>> predictor.run()
    >>> out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
"""
from .config import Config, PrecisionType, PlaceType
from .predictor import Predictor, Tensor, create_predictor

__all__ = ["Config", "Predictor", "Tensor", "create_predictor", "PrecisionType", "PlaceType"]
