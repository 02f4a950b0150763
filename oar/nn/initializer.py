"""Parameter initializers (Paddle 2.x names and defaults) and static-mode parameter creation.

Every initializer is also an op (`uniform_random`, `gaussian_random`, `truncated_gaussian_random`, `full`,
`assign_value`), so a static startup program holds the same draw the eager path makes. Random draws come
from `oar.core.state.rng()`, so `oar.seed(n)` makes models reproducible.
"""
import math

import numpy as np

from ..core import dtype as D
from ..core.devices import device_of, place_array
from ..core.state import rng
from ..kernels import creation as creation_kernels, init as init_kernels, random as random_kernels
from ..ops import creation as _creation, random as _random  # noqa: F401  (registers the init ops)
from ..ops.registry import defop, get_op


def _truncated_normal(shape, mean, std, a, b, dtype):
    return random_kernels.truncated_gaussian(rng(), shape, dtype, mean, std, a, b)


TRUNCATED_GAUSSIAN = defop("truncated_gaussian_random", _truncated_normal, inputs=(), random=True,
                           infer=lambda m, shape, dtype, **kw: [(list(shape), D.convert_dtype(dtype))],
                           differentiable=False)


def _fans(shape):
    """Paddle's fan rule: 2-D weights are [in, out]; conv weights are [out, in, *kernel]."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base class: ``init(param)`` fills an eager parameter, or appends the init op for a static one."""

    op_name = None

    def _attrs(self, shape):
        raise NotImplementedError

    def __call__(self, param, block=None):
        shape, dtype = list(param.shape), D.convert_dtype(param.dtype)
        op_name, attrs = self._attrs(shape)
        attrs = dict(attrs, shape=shape, dtype=dtype.name)
        if hasattr(param, "block") and not hasattr(param, "_data"):  # a static Variable
            target = block if block is not None else param.block
            target.append_op(op_name, {}, {"out": [param.name]}, attrs)
            return None
        # drawn on the host (the same numbers on every device), then put where the parameter lives
        param._data = place_array(np.asarray(get_op(op_name).impl(**attrs)), device_of(param._data))
        return param

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


class Constant(Initializer):
    """Fills with `value` (default 0.0).

    Example:
        >>> oar.nn.Linear(2, 2, weight_attr=oar.nn.initializer.Constant(1.0)).weight.numpy().tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """

    def __init__(self, value=0.0):
        self.value = float(value)

    def _attrs(self, shape):
        return "full", {"value": self.value}


class Uniform(Initializer):
    """Uniform in ``[low, high)`` (default ``[-1, 1)``)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        self.low, self.high = float(low), float(high)

    def _attrs(self, shape):
        return "uniform_random", {"min": self.low, "max": self.high}


class Normal(Initializer):
    """Normal with `mean` and `std` (default 0, 1)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean, self.std = float(mean), float(std)

    def _attrs(self, shape):
        return "gaussian_random", {"mean": self.mean, "std": self.std}


class TruncatedNormal(Initializer):
    """Normal with `mean` and `std`, redrawn outside ``[mean + a*std, mean + b*std]`` (default a=-2, b=2)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        self.mean, self.std, self.a, self.b = float(mean), float(std), float(a), float(b)

    def _attrs(self, shape):
        return "truncated_gaussian_random", {"mean": self.mean, "std": self.std, "a": self.a, "b": self.b}


class XavierUniform(Initializer):
    """Uniform in ``±gain*sqrt(6/(fan_in+fan_out))`` (Glorot)."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, float(gain)

    def _attrs(self, shape):
        fi, fo = _fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        limit = self.gain * math.sqrt(6.0 / float(fi + fo))
        return "uniform_random", {"min": -limit, "max": limit}


class XavierNormal(Initializer):
    """Normal with ``std = gain*sqrt(2/(fan_in+fan_out))`` (Glorot)."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, float(gain)

    def _attrs(self, shape):
        fi, fo = _fans(shape)
        fi, fo = self.fan_in or fi, self.fan_out or fo
        return "gaussian_random", {"mean": 0.0, "std": self.gain * math.sqrt(2.0 / float(fi + fo))}


def _gain(nonlinearity, slope):
    if nonlinearity in ("relu",):
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "selu":
        return 3.0 / 4
    return 1.0


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity ('relu', 'tanh', 'leaky_relu', 'selu', 'sigmoid', 'linear'...)."""
    return _gain(nonlinearity, 0.01 if param is None else param)


class KaimingNormal(Initializer):
    """Normal with ``std = gain/sqrt(fan_in)`` (He), gain from `nonlinearity` and `negative_slope`."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, float(negative_slope), nonlinearity

    def _attrs(self, shape):
        fi = self.fan_in or _fans(shape)[0]
        return "gaussian_random", {"mean": 0.0, "std": _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fi)}


class KaimingUniform(Initializer):
    """Uniform in ``±gain*sqrt(3/fan_in)`` (He)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.negative_slope, self.nonlinearity = fan_in, float(negative_slope), nonlinearity

    def _attrs(self, shape):
        fi = self.fan_in or _fans(shape)[0]
        limit = _gain(self.nonlinearity, self.negative_slope) * math.sqrt(3.0 / fi)
        return "uniform_random", {"min": -limit, "max": limit}


class Assign(Initializer):
    """Fills with the given values (a NumPy array, list or Tensor) of the parameter's shape."""

    def __init__(self, value, name=None):
        self.value = np.asarray(value._data if hasattr(value, "_data") else value)

    def _attrs(self, shape):
        if list(self.value.shape) != list(shape) and self.value.size != math.prod(shape):
            raise ValueError(f"Assign initializer: value of shape {list(self.value.shape)} does not fit a "
                             f"parameter of shape {list(shape)}")
        return "assign_value", {"values": self.value.reshape(-1).tolist()}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`: the parameter seen as [shape[0], prod(shape[1:])] has orthonormal
    rows (or columns, whichever are fewer); from the QR decomposition of a standard normal draw (oar's generator),
    signs fixed by R's diagonal. Needs at least 2 dims.

    Example:
        >>> w = oar.create_parameter([3, 5], 'float64', default_initializer=oar.nn.initializer.Orthogonal(2.0))
        >>> bool(oar.allclose(w @ w.T, 4 * oar.eye(3, dtype='float64')))
        True
    """

    def __init__(self, gain=1.0, name=None):
        self.gain = float(gain)

    def _attrs(self, shape):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer: the parameter needs at least 2 dims, got shape {shape}")
        return "assign_value", {"values": init_kernels.orthogonal(rng(), shape, self.gain)}


class Dirac(Initializer):
    """The identity of a convolution: weight [out, in, *kernel] is 1 at the kernel centre for channel i -> i
    within each of `groups` groups of output channels, 0 elsewhere (3-D to 5-D weights).

    Example:
        >>> w = oar.create_parameter([2, 2, 3], 'float32', default_initializer=oar.nn.initializer.Dirac())
        >>> w.numpy()[:, :, 1].tolist(), float(w.sum())
        ([[1.0, 0.0], [0.0, 1.0]], 2.0)
    """

    def __init__(self, groups=1, name=None):
        self.groups = int(groups)

    def _attrs(self, shape):
        if not 3 <= len(shape) <= 5 or shape[0] % self.groups:
            raise ValueError(f"Dirac initializer: needs a 3-D to 5-D weight whose dim 0 divides into groups="
                             f"{self.groups}, got shape {shape}")
        return "assign_value", {"values": init_kernels.dirac(shape, self.groups)}


class Bilinear(Initializer):
    """Bilinear upsampling weights for a transposed convolution [C_out, C_in, K, K]: ``(1 - |x/f - c|) *
    (1 - |y/f - c|)`` with ``f = ceil(K / 2)``, ``c = (2f - 1 - f % 2) / (2f)``, the same for every channel pair.

    Paddle 3.3.1 computes the row index y with a true division (``(i / K) % K``), giving an asymmetric kernel; oar
    uses the integer row, the symmetric kernel the formula means.

    Example:
        >>> w = oar.create_parameter([1, 1, 4, 4], 'float32', default_initializer=oar.nn.initializer.Bilinear())
        >>> w.numpy()[0, 0, 0].tolist()
        [0.0625, 0.1875, 0.1875, 0.0625]
    """

    def __init__(self, name=None):
        pass

    def _attrs(self, shape):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(f"Bilinear initializer: needs a 4-D weight with square kernels, got shape {shape}")
        return "assign_value", {"values": init_kernels.bilinear(shape)}


# Paddle's older spellings
ConstantInitializer, UniformInitializer, NormalInitializer = Constant, Uniform, Normal
XavierInitializer, MSRAInitializer, NumpyArrayInitializer = XavierUniform, KaimingNormal, Assign


_GLOBAL = [None, None]


def set_global_initializer(weight_init, bias_init=None):
    """Overrides the default initializers of every layer created afterwards (None restores them)."""
    _GLOBAL[0], _GLOBAL[1] = weight_init, bias_init


def pick_initializer(attr, is_bias, default_initializer):
    """The initializer a new parameter gets: the attr's, else the global override, else the layer's default,
    else Paddle's (zero bias, XavierUniform weight)."""
    if attr is not None and attr is not False and attr.initializer is not None:
        return attr.initializer
    glob = _GLOBAL[1] if is_bias else _GLOBAL[0]
    if glob is not None:
        return glob
    if default_initializer is not None:
        return default_initializer
    return Constant(0.0) if is_bias else XavierUniform()


def init_static_parameter(shape, dtype, name, attr, is_bias=False, default_initializer=None):
    """Creates a parameter Variable in the main program's global block and its init op in the startup program.

    Returns the main-program Variable (persistable, ``is_parameter=True``); its ``attrs`` hold
    ``optimize_attr``, ``regularizer`` and ``need_clip`` from the `ParamAttr`.
    """
    from .param_attr import ParamAttr, WeightNormParamAttr
    from ..graph.builder import default_main_program, default_startup_program
    from .layer.layers import unique_param_name
    attr = ParamAttr._to_attr(attr)
    dtype = D.convert_dtype(dtype if dtype is not None else D.get_default_dtype())
    name = name or attr.name or unique_param_name("create_parameter", is_bias)
    shape = [int(s) for s in shape]
    if isinstance(attr, WeightNormParamAttr):
        return _weight_normalized(shape, dtype, name, attr, is_bias, default_initializer)
    main_gb = default_main_program().global_block()
    if name in main_gb.vars:
        raise ValueError(f"a parameter named {name!r} already exists in the main program; give each ParamAttr a "
                         "unique name")
    var = main_gb.create_var(name, shape, dtype, persistable=True, stop_gradient=not attr.trainable,
                             is_parameter=True, trainable=attr.trainable)
    var.attrs.update(optimize_attr={"learning_rate": attr.learning_rate}, regularizer=attr.regularizer,
                     need_clip=attr.need_clip, do_model_average=attr.do_model_average)
    sb = default_startup_program().global_block()
    svar = sb.create_var(name, shape, dtype, persistable=True, stop_gradient=True, is_parameter=True,
                         trainable=attr.trainable)
    pick_initializer(attr, is_bias, default_initializer)(svar, sb)
    return var


def _norm_except(v, dim):
    from ..ops.math import sqrt
    from ..ops.reduction import sum as rsum
    axes = [i for i in range(len(v.shape)) if i != dim] if dim is not None else None
    return sqrt(rsum(v * v, axis=axes, keepdim=True))


def _weight_normalized(shape, dtype, name, attr, is_bias, default_initializer):
    """`WeightNormParamAttr`: parameters ``name_g`` / ``name_v``; the startup program sets ``g = ||v||``, the main
    program computes ``g * v / ||v||`` (Paddle's LayerHelper does the same)."""
    import copy
    from .param_attr import ParamAttr
    from ..graph.builder import program_guard, default_main_program, default_startup_program, append_assign
    from ..ops.manipulation import reshape
    if attr.dim is not None and not -len(shape) <= attr.dim < len(shape):
        raise ValueError(f"WeightNormParamAttr: dim {attr.dim} is out of range for shape {shape}")
    dim = None if attr.dim is None else attr.dim % len(shape)
    plain = ParamAttr(None, attr.initializer, attr.learning_rate, attr.regularizer, attr.trainable,
                      attr.do_model_average, attr.need_clip)
    g_shape = [1] * len(shape)
    if dim is not None:
        g_shape[dim] = shape[dim]
    g_attr = copy.copy(plain)
    g_attr.initializer = Constant(0.0)  # overwritten by ||v|| below
    g = init_static_parameter(g_shape, dtype, name + "_g", g_attr, is_bias)
    v = init_static_parameter(shape, dtype, name + "_v", copy.copy(plain), is_bias, default_initializer)
    main, startup = default_main_program(), default_startup_program()
    with program_guard(startup, startup):  # g = ||v|| once v is drawn
        sv = startup.global_block().var(v.name)
        append_assign(reshape(_norm_except(sv, dim), g_shape), startup.global_block().var(g.name))
    with program_guard(main, startup):
        return g * v / _norm_except(v, dim)


def create_parameter(shape, dtype=None, name=None, attr=None, is_bias=False, default_initializer=None):
    """A new parameter: an eager `Parameter` in dynamic mode, a program parameter (with its initializer in the
    startup program) in static mode. `attr` (a ParamAttr) gives the name, initializer, learning rate,
    regularizer and trainability; otherwise Paddle's defaults (zero bias, XavierUniform weight).

    Example:
        >>> w = oar.create_parameter([3, 2], 'float32', default_initializer=oar.nn.initializer.Constant(0.5))
        >>> w.numpy().tolist(), w.stop_gradient
        ([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], False)
    """
    from .param_attr import ParamAttr
    from ..core.state import STATE
    from ..eager.tensor import Parameter
    from .layer.layers import unique_param_name
    attr = ParamAttr._to_attr(attr)
    dtype = D.convert_dtype(dtype if dtype is not None else D.get_default_dtype())
    shape = [int(s) for s in shape]
    if any(s < 0 for s in shape):
        raise ValueError(f"create_parameter: shape {shape} has a negative dimension")
    name = name or attr.name or unique_param_name("create_parameter", is_bias)
    if STATE.static:
        return init_static_parameter(shape, dtype, name, attr, is_bias, default_initializer)
    from .param_attr import WeightNormParamAttr
    if isinstance(attr, WeightNormParamAttr):
        raise TypeError("WeightNormParamAttr reparameterises a parameter of a static program (build it after "
                        "oar.enable_static())")
    p = Parameter(creation_kernels.full(shape, 0, dtype), name=name, trainable=attr.trainable)
    pick_initializer(attr, is_bias, default_initializer)(p)
    p.optimize_attr = {"learning_rate": attr.learning_rate}
    p.regularizer = attr.regularizer
    p.need_clip = attr.need_clip
    p.do_model_average = attr.do_model_average
    return p
