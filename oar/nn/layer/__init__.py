"""`oar.nn.layer` (Paddle's `paddle.nn.layer`): the layer classes, one module per family, laid out as Paddle's so
that model code importing `paddle.nn.layer.activation` or `paddle.nn.layer.layers.Layer` runs unchanged.

Example:
    >>> from oar.nn.layer.loss import CrossEntropyLoss
    >>> from oar.nn.layer.layers import Layer
    >>> issubclass(CrossEntropyLoss, Layer)
    True
"""
from .layers import Layer
from . import layers, activation, common, container, conv, loss, norm, pooling, rnn, transformer  # noqa: F401
