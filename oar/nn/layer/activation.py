"""Activation layers: thin wrappers over `oar.nn.functional`."""
from .. import functional as F
from ..initializer import Constant
from .layers import Layer


def _simple(name, fn, doc, x, out):
    """A parameterless layer calling `fn`; `x` and `out` are its docstring example's input and rounded output."""
    def forward(self, x):
        return fn(x)
    doc += (f"\n\n    Example:\n        >>> [round(v, 4) for v in oar.nn.{name}()(oar.to_tensor({x})).numpy().tolist()]"
            f"\n        {out}\n    ")
    cls = type(name, (Layer,), {"forward": forward, "__doc__": doc,
                                "__init__": _init_named})
    return cls


def _init_named(self, name=None):
    Layer.__init__(self)
    self._name = name


ReLU = _simple("ReLU", F.relu, "max(x, 0).", "[-1.0, 1.0]", "[0.0, 1.0]")
ReLU6 = _simple("ReLU6", F.relu6, "min(max(x, 0), 6).", "[-1.0, 3.0, 8.0]", "[0.0, 3.0, 6.0]")
SELU = _simple("SELU", F.selu, "Scaled ELU with Paddle's constants.", "[-1.0, 1.0]", "[-1.1113, 1.0507]")


class Silu(Layer):
    """x * sigmoid(x); with `inplace` the result is written into the input (Paddle 3).

    Example:
        >>> x = oar.to_tensor([0.0, 1.0])
        >>> _ = oar.nn.Silu(inplace=True)(x)
        >>> [round(v, 4) for v in x.numpy().tolist()]
        [0.0, 0.7311]
    """

    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._name, self._inplace = name, inplace

    def forward(self, x):
        return F.silu(x, inplace=self._inplace)


Sigmoid = _simple("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).", "[0.0, 2.0]", "[0.5, 0.8808]")
Tanh = _simple("Tanh", F.tanh, "tanh(x).", "[0.0, 1.0]", "[0.0, 0.7616]")
Hardswish = _simple("Hardswish", F.hardswish, "x * relu6(x + 3) / 6.", "[-4.0, 1.0, 4.0]", "[-0.0, 0.6667, 4.0]")
Mish = _simple("Mish", F.mish, "x * tanh(softplus(x)).", "[0.0, 1.0]", "[0.0, 0.8651]")
Swish = _simple("Swish", F.swish, "x * sigmoid(x).", "[0.0, 1.0]", "[0.0, 0.7311]")
Softsign = _simple("Softsign", F.softsign, "x / (1 + |x|).", "[-1.0, 3.0]", "[-0.5, 0.75]")
LogSigmoid = _simple("LogSigmoid", F.log_sigmoid, "log(sigmoid(x)).", "[0.0]", "[-0.6931]")
Tanhshrink = _simple("Tanhshrink", F.tanhshrink, "x - tanh(x).", "[0.0, 1.0]", "[0.0, 0.2384]")


class Hardshrink(Layer):
    """x where |x| >= threshold, else 0 (see `F.hardshrink`).

    Example:
        >>> oar.nn.Hardshrink(0.5)(oar.to_tensor([-1.0, 0.2, 2.0])).numpy().tolist()
        [-1.0, 0.0, 2.0]
    """

    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._name = name
        self._threshold = threshold

    def forward(self, x):
        return F.hardshrink(x, self._threshold)

    def extra_repr(self):
        return f"threshold={self._threshold}"


class Softshrink(Layer):
    """x shrunk towards 0 by `threshold`, 0 inside [-threshold, threshold] (see `F.softshrink`).

    Example:
        >>> oar.nn.Softshrink(0.5)(oar.to_tensor([-1.0, 0.2, 2.0])).numpy().tolist()
        [-0.5, 0.0, 1.5]
    """

    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._name = name
        self._threshold = threshold

    def forward(self, x):
        return F.softshrink(x, self._threshold)

    def extra_repr(self):
        return f"threshold={self._threshold}"


class CELU(Layer):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (see `F.celu`).

    Example:
        >>> [round(v, 4) for v in oar.nn.CELU(2.0)(oar.to_tensor([-1.0, 2.0])).numpy().tolist()]
        [-0.7869, 2.0]
    """

    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._name = name
        self._alpha = alpha

    def forward(self, x):
        return F.celu(x, self._alpha)

    def extra_repr(self):
        return f"alpha={self._alpha}"


class Maxout(Layer):
    """The maximum over runs of `groups` channels (see `F.maxout`).

    Example:
        >>> oar.nn.Maxout(2)(oar.ones([1, 4, 3, 3])).shape
        [1, 2, 3, 3]
    """

    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._name = name
        self._groups, self._axis = groups, axis

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis)


class Softmax2D(Layer):
    """Softmax over the channels (dim -3) of ``[C, H, W]`` or ``[N, C, H, W]`` input.

    Example:
        >>> y = oar.nn.Softmax2D()(oar.ones([1, 2, 3, 3]))
        >>> y.numpy()[0, :, 0, 0].tolist()
        [0.5, 0.5]
    """

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        if len(x.shape) not in (3, 4):
            raise ValueError(f"Softmax2D: input must be 3-D or 4-D, got shape {list(x.shape)}")
        return F.softmax(x, axis=-3)


class LeakyReLU(Layer):
    """x if x > 0 else negative_slope * x.

    Example:
        >>> [round(v, 4) for v in oar.nn.LeakyReLU(0.1)(oar.to_tensor([-2.0, 3.0])).numpy().tolist()]
        [-0.2, 3.0]
    """

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._name = name
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}"


class PReLU(Layer):
    """Leaky ReLU with learned slopes: `num_parameters` is 1 (shared) or the channel count (init 0.25).

    Example:
        >>> m = oar.nn.PReLU(num_parameters=2, init=0.5)
        >>> m.parameters()[0].shape
        [2]
        >>> m(oar.to_tensor([[-2.0, -4.0]])).numpy().tolist()
        [[-1.0, -2.0]]
    """

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self._num_parameters, self._data_format = num_parameters, data_format
        self._weight = self.create_parameter([num_parameters], attr=weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, self._data_format)

    def extra_repr(self):
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}"


class ELU(Layer):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``.

    Example:
        >>> oar.nn.ELU(alpha=1.0)(oar.to_tensor([-1.0, 2.0])).numpy()
        array([-0.63212055,  2.        ], dtype=float32)
    """
    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._name = name
        self._alpha = alpha

    def forward(self, x):
        return F.elu(x, self._alpha)


class GELU(Layer):
    """Gaussian error linear unit; ``approximate=True`` uses the tanh formula.

    Example:
        >>> [round(v, 4) for v in oar.nn.GELU()(oar.to_tensor([-1.0, 1.0])).numpy().tolist()]
        [-0.1587, 0.8413]
    """

    def __init__(self, approximate=False, name=None):
        super().__init__()
        self._name = name
        self._approximate = approximate

    def forward(self, x):
        return F.gelu(x, self._approximate)


class Hardsigmoid(Layer):
    """``clip(x / 6 + 0.5, 0, 1)`` (Paddle's slope 1/6, offset 0.5).

    Example:
        >>> oar.nn.Hardsigmoid()(oar.to_tensor([-4.0, 0.0, 4.0])).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.hardsigmoid(x)


class Hardtanh(Layer):
    """clip(x, min, max).

    Example:
        >>> oar.nn.Hardtanh(-2.0, 2.0)(oar.to_tensor([-3.0, 1.0, 5.0])).numpy().tolist()
        [-2.0, 1.0, 2.0]
    """
    def __init__(self, min=-1.0, max=1.0, name=None):
        super().__init__()
        self._name = name
        self._min, self._max = min, max

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max)


class Softplus(Layer):
    """``log(1 + exp(beta * x)) / beta``, linear above ``beta * x > threshold``.

    Example:
        >>> oar.nn.Softplus(beta=2)(oar.to_tensor([0.0, 30.0])).numpy()
        array([ 0.3465736, 30.       ], dtype=float32)
    """
    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self._name = name
        self._beta, self._threshold = beta, threshold

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold)


class ThresholdedReLU(Layer):
    """x where x > threshold, else 0.

    Example:
        >>> oar.nn.ThresholdedReLU(threshold=1.0)(oar.to_tensor([0.5, 2.0])).numpy().tolist()
        [0.0, 2.0]
    """
    def __init__(self, threshold=1.0, name=None):
        super().__init__()
        self._name = name
        self._threshold = threshold

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold)


class Softmax(Layer):
    """softmax along `axis` (default -1).

    Example:
        >>> oar.nn.Softmax()(oar.to_tensor([[1.0, 1.0]])).numpy().tolist()
        [[0.5, 0.5]]
    """

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._name = name
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)

    def extra_repr(self):
        return f"axis={self._axis}"


class LogSoftmax(Layer):
    """``log(softmax(x))`` along `axis`, computed stably.

    Example:
        >>> oar.nn.LogSoftmax(axis=-1)(oar.ones([2, 3])).shape
        [2, 3]
    """
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._name = name
        self._axis = axis

    def forward(self, x):
        return F.log_softmax(x, self._axis)


class GLU(Layer):
    """Gated linear unit: a * sigmoid(b) for the halves a, b of the input along `axis`.

    Example:
        >>> oar.nn.GLU()(oar.ones([2, 6])).shape
        [2, 3]
    """
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._name = name
        self._axis = axis

    def forward(self, x):
        return F.glu(x, self._axis)


class RReLU(Layer):
    """Randomized leaky ReLU (`F.rrelu`): a slope drawn from U(lower, upper) per element in training, their mean
    in evaluation.

    Example:
        >>> layer = oar.nn.RReLU(0.1, 0.3)
        >>> _ = layer.eval()
        >>> [round(v, 4) for v in layer(oar.to_tensor([-1.0, 2.0])).numpy().tolist()]
        [-0.2, 2.0]
    """

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._name = name
        self._lower, self._upper = lower, upper

    def forward(self, x):
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self):
        return f"lower={self._lower}, upper={self._upper}"
