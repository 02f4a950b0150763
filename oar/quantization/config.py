"""`QuantConfig` (``paddle.quantization.QuantConfig``): which quanter each layer's activations and weights get.

A layer's config is, from weakest to strongest: the global one (``QuantConfig(activation, weight)``), its
parent's, the one set for its type (`add_type_config`), for its full name (`add_name_config`), for the layer
object itself (`add_layer_config`). A config with neither quanter leaves the layer in float.

Example:
    >>> from oar.quantization import QuantConfig
    >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
    >>> q = FakeQuanterWithAbsMaxObserver()
    >>> config = QuantConfig(activation=q, weight=q)
    >>> config.add_type_config(oar.nn.Linear, activation=None, weight=None)   # keep Linear layers in float
"""
from ..nn.layer.layers import Layer


class SingleLayerConfig:
    """The activation and weight quanter factories of one layer (either may be None)."""

    def __init__(self, activation, weight):
        self._activation, self._weight = activation, weight

    @property
    def activation(self):
        return self._activation

    @property
    def weight(self):
        return self._weight

    def __repr__(self):
        return f"activation: {self._activation}\nweight: {self._weight}"


class QuantConfig:
    """Quantization configuration for `QAT`.

    Args:
        activation: the quanter factory for activations (a layer's inputs), or None.
        weight: the quanter factory for weights, or None.

    Example:
        >>> from oar.quantization import QuantConfig
        >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> config = QuantConfig(activation=FakeQuanterWithAbsMaxObserver(), weight=FakeQuanterWithAbsMaxObserver())
        >>> net = oar.nn.Sequential(oar.nn.Linear(2, 2))
        >>> config.add_layer_config(net[0], activation=None, weight=None)   # this one stays float
        >>> config.config_of(net)
        {}
    """

    def __init__(self, activation, weight):
        self._global_config = None if activation is None and weight is None else \
            SingleLayerConfig(activation, weight)
        self._layer2config, self._prefix2config, self._type2config = {}, {}, {}

    def add_layer_config(self, layer, activation=None, weight=None):
        """Sets the quanters of `layer` (a Layer or a list of Layers) and of its sublayers."""
        for lay in layer if isinstance(layer, (list, tuple)) else [layer]:
            if not isinstance(lay, Layer):
                raise TypeError(f"add_layer_config: expected a Layer, got {type(lay).__name__}")
            self._layer2config[id(lay)] = SingleLayerConfig(activation, weight)

    def add_name_config(self, layer_name, activation=None, weight=None):
        """Sets the quanters of the layer whose ``full_name()`` is `layer_name` (a str or a list)."""
        for name in layer_name if isinstance(layer_name, (list, tuple)) else [layer_name]:
            self._prefix2config[str(name)] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        """Sets the quanters of every layer of type `layer_type` (a class or a list of classes)."""
        for t in layer_type if isinstance(layer_type, (list, tuple)) else [layer_type]:
            if not (isinstance(t, type) and issubclass(t, Layer)):
                raise TypeError(f"add_type_config: expected a Layer class, got {t!r}")
            self._type2config[t] = SingleLayerConfig(activation, weight)

    @property
    def global_config(self):
        return self._global_config

    def config_of(self, model):
        """{sublayer path ('features.0'): SingleLayerConfig} for every sublayer of `model` a config applies to
        (paths, so the map carries over to a deep copy of `model`)."""
        out = {}

        def visit(parent, prefix, inherited):
            for name, child in parent.named_children():
                config = self._type2config.get(type(child), inherited)
                config = self._prefix2config.get(child.full_name(), config)
                config = self._layer2config.get(id(child), config)
                path = prefix + name
                if config is not None and (config.activation is not None or config.weight is not None):
                    out[path] = config
                visit(child, path + ".", config)
        visit(model, "", self._layer2config.get(id(model), self._global_config))
        return out

    def __repr__(self):
        return f"Global config:\n{self._global_config}"
