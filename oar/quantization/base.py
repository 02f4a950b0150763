"""The base classes of quanters and observers, and the `quanter` decorator (``paddle.quantization``).

A quanter is a layer that fake-quantizes one tensor during training (`BaseQuanter`); an observer only watches a
tensor during calibration and computes its scale afterwards (`BaseObserver`). `QAT.convert` / `PTQ.convert`
freeze any of them through their `scales()` and `bit_length()`.

Example:
    >>> from oar.quantization import BaseObserver, QuantConfig, quanter
    >>> @quanter("MaxObserver")
    ... class MaxObserverLayer(BaseObserver):
    ...     def __init__(self, layer, bits=8):
    ...         super().__init__()
    ...         self.bits, self.seen = bits, 0.0
    ...     def forward(self, x):
    ...         self.seen = max(self.seen, float(x.abs().max()))
    ...         return x
    ...     def cal_thresholds(self):
    ...         pass
    ...     def scales(self):
    ...         return oar.to_tensor([self.seen])
    ...     def zero_points(self):
    ...         return None
    ...     def quant_axis(self):
    ...         return -1
    ...     def bit_length(self):
    ...         return self.bits
    >>> config = QuantConfig(activation=MaxObserver(bits=8), weight=None)   # the factory the decorator made
    >>> MaxObserver(bits=4)._instance(None).bit_length()
    4
"""
import abc
import sys

from ..nn.layer.layers import Layer


class QuanterFactory:
    """Makes quanter layers with the arguments it was created with (``paddle.quantization.factory``).

    Example:
        >>> from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver
        >>> FakeQuanterWithAbsMaxObserver(bit_length=4)._instance(None).bit_length()
        4
    """

    def __init__(self, *args, **kwargs):
        self.args, self.partial_args = args, kwargs

    def _get_class(self):
        raise NotImplementedError

    def _instance(self, layer):
        """A new quanter layer for a tensor of `layer`: ``cls(layer, *args, **kwargs)`` with the arguments the
        factory was made with."""
        return self._get_class()(layer, *self.args, **self.partial_args)

    def __repr__(self):
        args = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.partial_args.items()]
        return f"{type(self).__name__}({', '.join(args)})"


class BaseQuanter(Layer, metaclass=abc.ABCMeta):
    """A layer that (fake-)quantizes the tensor it is called on; subclasses define `forward`, `scales`,
    `zero_points`, `quant_axis` and `bit_length` (a missing one makes the class abstract).

    Example:
        >>> from oar.quantization import BaseQuanter
        >>> class Sign(BaseQuanter):
        ...     def forward(self, x):
        ...         return x.sign()
        >>> Sign()
        Traceback (most recent call last):
        TypeError: Can't instantiate abstract class Sign with abstract methods bit_length, ...scales, zero_points
    """

    @abc.abstractmethod
    def forward(self, input):
        """The quantized (or observed) input."""

    @abc.abstractmethod
    def scales(self):
        """The scale(s) the quantization uses: a tensor of one value per tensor or per channel."""

    @abc.abstractmethod
    def zero_points(self):
        """The zero point(s), or None for symmetric quantization."""

    @abc.abstractmethod
    def quant_axis(self):
        """The channel axis of per-channel scales, -1 for one scale per tensor."""

    @abc.abstractmethod
    def bit_length(self):
        """Bits of the integers simulated (8: levels -127..127)."""


class BaseObserver(BaseQuanter, metaclass=abc.ABCMeta):
    """A quanter that only watches: `forward` returns its input unchanged while recording statistics, and
    `cal_thresholds` turns them into `scales()` (post-training quantization).

    Example:
        >>> from oar.quantization import BaseObserver
        >>> from oar.quantization.observers import AbsmaxObserverLayer
        >>> issubclass(AbsmaxObserverLayer, BaseObserver)
        True
    """

    @abc.abstractmethod
    def cal_thresholds(self):
        """Computes the scales from what was observed."""


def quanter(class_name):
    """Declares a factory named `class_name` for the decorated quanter layer class, in the calling module: calling
    the factory with the layer's other arguments gives what `QuantConfig` takes, and each quantized tensor gets
    ``cls(layer, *args, **kwargs)``. The class itself is returned unchanged.

    Example:
        >>> from oar.quantization import BaseQuanter, quanter
        >>> @quanter("Identity")
        ... class IdentityLayer(BaseQuanter):
        ...     def __init__(self, layer, bits=8):
        ...         super().__init__()
        ...         self.bits = bits
        ...     def forward(self, x):
        ...         return x
        ...     def scales(self):
        ...         return None
        ...     def zero_points(self):
        ...         return None
        ...     def quant_axis(self):
        ...         return -1
        ...     def bit_length(self):
        ...         return self.bits
        >>> Identity(bits=4)
        Identity(bits=4)
    """
    def wrapper(target):
        if not (isinstance(target, type) and issubclass(target, BaseQuanter)):
            raise TypeError(f"@quanter({class_name!r}) decorates a subclass of BaseQuanter, got {target!r}")
        factory = type(class_name, (QuanterFactory,), {"_get_class": lambda self: target,
                                                       "__module__": target.__module__})
        caller = sys._getframe(1).f_globals
        caller[class_name] = factory
        if isinstance(caller.get("__all__"), list):
            caller["__all__"].append(class_name)
        return target
    return wrapper
