"""`oar.nn.layer` (Paddle's `paddle.nn.layer`): the layer classes, one module per family, laid out as Paddle's so
that model code importing `paddle.nn.layer.activation` or `paddle.nn.layer.layers.Layer` runs unchanged; the
classes are also names of this package (``paddle.nn.layer.Linear``), as in Paddle.

Example:
    >>> from oar.nn.layer.loss import CrossEntropyLoss
    >>> from oar.nn.layer import Layer, Linear
    >>> issubclass(CrossEntropyLoss, Layer), Linear is oar.nn.Linear
    (True, True)
"""
from .layers import Layer
from . import layers, activation, common, container, conv, loss, norm, pooling, rnn, transformer  # noqa: F401


def _public_layers(*modules):
    """name -> class of the public Layer classes each module defines."""
    return {n: v for m in modules for n, v in vars(m).items()
            if isinstance(v, type) and issubclass(v, Layer) and v.__module__ == m.__name__ and not n.startswith("_")}


globals().update(_public_layers(activation, common, container, conv, loss, norm, pooling, rnn, transformer))
