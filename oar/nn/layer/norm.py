"""Normalisation layers. BatchNorm's running mean/variance are non-trainable parameters named `_mean` and
`_variance` (Paddle's state_dict keys), updated by `F.batch_norm` in training mode."""
from ..param_attr import ParamAttr
from .. import functional as F
from ..initializer import Constant
from ..functional.norm import spectral_normalize
from ...ops.nn.norm import refuse_running_stats
from .layers import Layer


def _affine_parameter(layer, shape, attr, value, is_bias):
    """BatchNorm's and GroupNorm's scale/shift: with ``attr=False`` Paddle 2.x still creates the parameter, fixed
    at `value` and not trainable (so state dicts keep their keys)."""
    if attr is False:
        return layer.create_parameter(shape, attr=ParamAttr(initializer=Constant(value), trainable=False),
                                      is_bias=is_bias)
    return layer.create_parameter(shape, attr=attr, is_bias=is_bias, default_initializer=Constant(value))


class _BatchNormBase(Layer):
    _fmt = "NCHW"
    _ndims = None

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format=None, use_global_stats=None, name=None):
        super().__init__()
        self._name = name
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format = data_format or self._fmt
        self._use_global_stats = use_global_stats
        self.weight = _affine_parameter(self, [num_features], weight_attr, 1.0, is_bias=False)
        self.bias = _affine_parameter(self, [num_features], bias_attr, 0.0, is_bias=True)
        self._mean = self.create_parameter([num_features], attr=ParamAttr(initializer=Constant(0.0),
                                                                           trainable=False))
        self._variance = self.create_parameter([num_features], attr=ParamAttr(initializer=Constant(1.0),
                                                                               trainable=False))

    def _check(self, x):
        if self._ndims is not None and x.ndim not in self._ndims:
            raise ValueError(f"{type(self).__name__} expects a {' or '.join(map(str, self._ndims))}-D input, got "
                             f"shape {x.shape}")
        c = x.shape[-1 if self._data_format[-1] == "C" and x.ndim > 2 else 1]
        if c not in (-1, self._num_features):
            raise ValueError(f"{type(self).__name__}({self._num_features}): the input has {c} channels "
                             f"(shape {x.shape}, data_format={self._data_format})")

    def forward(self, input):
        self._check(input)
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias, training=self.training,
                            momentum=self._momentum, epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        return f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"


class BatchNorm1D(_BatchNormBase):
    """Batch norm of ``[N, C]`` or ``[N, C, L]``.

    Example:
        >>> bn = oar.nn.BatchNorm1D(2)
        >>> y = bn(oar.to_tensor([[1.0, 10.0], [3.0, 20.0]]))
        >>> [[round(v, 3) for v in r] for r in y.numpy().tolist()]
        [[-1.0, -1.0], [1.0, 1.0]]
    """
    _fmt, _ndims = "NCL", (2, 3)


class BatchNorm2D(_BatchNormBase):
    """Batch norm of NCHW input with running statistics (momentum 0.9: ``running = 0.9*running + 0.1*batch``).

    Example:
        >>> bn = oar.nn.BatchNorm2D(8)
        >>> y = bn(oar.ones([4, 8, 5, 5]))        # training: batch statistics
        >>> y = bn.eval()(oar.ones([4, 8, 5, 5]))  # inference: running statistics
    """
    _fmt, _ndims = "NCHW", (4,)


class BatchNorm3D(_BatchNormBase):
    """Batch norm of NCDHW (or NDHWC) input with running statistics.

    Example:
        >>> oar.nn.BatchNorm3D(4)(oar.ones([2, 4, 3, 3, 3])).shape
        [2, 4, 3, 3, 3]
    """
    _fmt, _ndims = "NCDHW", (5,)


class BatchNorm(_BatchNormBase):
    """Paddle's older BatchNorm(num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, ...).

    ``is_test=True`` starts the layer in eval mode (running statistics), as Paddle does; `in_place` and
    `do_model_average_for_mean_and_var` change nothing Paddle 2.x computes; `moving_mean_name` and
    `moving_variance_name` name the running statistics (their ``.name``; the state-dict keys stay ``_mean`` and
    ``_variance``, as in Paddle). `dtype` other than float32 (or float16, whose statistics Paddle keeps in float32)
    and ``trainable_statistics=True`` raise (not supported).

    Example:
        >>> bn = oar.nn.BatchNorm(3)
        >>> bn(oar.ones([2, 3, 4, 4])).shape
        [2, 3, 4, 4]
        >>> oar.nn.BatchNorm(3, is_test=True).training
        False
    """

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        unsupported = [f"{k}={v!r}" for k, v, ok in (
            ("dtype", dtype, dtype in ("float32", "float16")),  # Paddle keeps float16 layers' statistics float32
            ("trainable_statistics", trainable_statistics, not trainable_statistics)) if not ok]
        if unsupported:
            raise ValueError(f"nn.BatchNorm: {', '.join(unsupported)} not supported (use BatchNorm1D/2D/3D, or "
                             "cast the layer with .to(dtype=...))")
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout, use_global_stats)
        for stat, name in ((self._mean, moving_mean_name), (self._variance, moving_variance_name)):
            if name is not None:
                stat.name = name
        self._act = act
        if is_test:
            self.training = False

    def forward(self, input):
        y = super().forward(input)
        if self._act:
            y = getattr(F, self._act)(y)
        return y


class _Sync:
    """How SyncBatchNorm reaches the other ranks: `batch_norm(layer, x)` is installed by `oar.distributed`
    (which this layer may not import); it returns None when one rank runs."""
    batch_norm = None


SYNC = _Sync()


class SyncBatchNorm(BatchNorm2D):
    """Batch norm whose training statistics cover the batches of every rank of an `oar.distributed` job
    (eager mode, e.g. under `DataParallel`); with one rank, or in eval mode, it is BatchNorm2D.

    Example:
        >>> oar.nn.SyncBatchNorm(3)(oar.ones([2, 3, 2, 2])).shape
        [2, 3, 2, 2]
    """
    _ndims = None

    def forward(self, input):
        if self.training and not self._use_global_stats and SYNC.batch_norm is not None:
            self._check(input)
            out = SYNC.batch_norm(self, input)
            if out is not None:
                return out
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """`layer` with every BatchNorm1D/2D/3D sublayer replaced by a SyncBatchNorm holding its parameters."""
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            sync = cls(layer._num_features, layer._momentum, layer._epsilon, data_format=layer._data_format,
                       use_global_stats=layer._use_global_stats)
            for name in ("weight", "bias", "_mean", "_variance"):
                setattr(sync, name, getattr(layer, name))
            return sync
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class LayerNorm(Layer):
    """Normalises the trailing `normalized_shape` dims; weight ones, bias zeros.

    Example:
        >>> oar.nn.LayerNorm(8)(oar.ones([2, 8])).shape
        [2, 8]
    """

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._name = name
        self._normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._epsilon = epsilon
        n = 1
        for d in self._normalized_shape:
            n *= d
        self.weight = self.create_parameter([n], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([n], attr=bias_attr, is_bias=True)

    def forward(self, input):
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalises groups of channels; weight ones, bias zeros.

    Example:
        >>> gn = oar.nn.GroupNorm(num_groups=2, num_channels=4)
        >>> gn(oar.randn([2, 4, 3, 3])).shape
        [2, 4, 3, 3]
    """

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} is not divisible by num_groups={num_groups}")
        self._num_groups, self._num_channels, self._epsilon = num_groups, num_channels, epsilon
        self._data_format = data_format
        self.weight = _affine_parameter(self, [num_channels], weight_attr, 1.0, is_bias=False)
        self.bias = _affine_parameter(self, [num_channels], bias_attr, 0.0, is_bias=True)

    def forward(self, input):
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    _fmt = "NCHW"

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format=None, name=None):
        super().__init__()
        refuse_running_stats(type(self).__name__, momentum=momentum)
        self._name = name
        self._epsilon, self._data_format = epsilon, data_format or self._fmt
        self._num_features = num_features
        if weight_attr is False:
            self.scale = None
        else:
            self.scale = self.create_parameter([num_features], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter([num_features], attr=bias_attr,
                                                                          is_bias=True)

    def forward(self, input):
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Normalises each channel of each sample of ``[N, C, L]`` over L (scale ones, bias zeros).

    Example:
        >>> y = oar.nn.InstanceNorm1D(1)(oar.to_tensor([[[1.0, 3.0]]]))
        >>> [round(v, 3) for v in y.numpy().ravel().tolist()]
        [-1.0, 1.0]
    """
    _fmt = "NCL"


class InstanceNorm2D(_InstanceNormBase):
    """Normalises each channel of each sample over H, W (scale ones, bias zeros).

    Example:
        >>> oar.nn.InstanceNorm2D(3)(oar.randn([2, 3, 4, 4])).shape
        [2, 3, 4, 4]
    """
    _fmt = "NCHW"


class InstanceNorm3D(_InstanceNormBase):
    """Normalises each channel of each sample of NCDHW input over D, H, W (scale ones, bias zeros).

    Example:
        >>> oar.nn.InstanceNorm3D(2)(oar.randn([1, 2, 2, 3, 3])).shape
        [1, 2, 2, 3, 3]
    """
    _fmt = "NCDHW"


class LocalResponseNorm(Layer):
    """Local response normalisation across channels (see `F.local_response_norm`).

    Example:
        >>> oar.nn.LocalResponseNorm(size=3)(oar.ones([1, 4, 2, 2])).shape
        [1, 4, 2, 2]
    """
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self.size, self.alpha, self.beta, self.k, self.data_format = size, alpha, beta, k, data_format

    def forward(self, x):
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k, self.data_format)


class SpectralNorm(Layer):
    """Divides a weight by its largest singular value, estimated by `power_iters` power iterations from the
    vectors `weight_u` [h] and `weight_v` [w] (parameters drawn from N(0, 1) that do not train and are not updated,
    as in Paddle); the weight is seen as a [h, w] matrix with ``h = weight_shape[dim]``. forward(weight).

    Example:
        >>> sn = oar.nn.SpectralNorm([2, 3], power_iters=20)
        >>> w = oar.to_tensor([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        >>> [round(v, 4) for v in sn(w).numpy().reshape(-1).tolist()]
        [1.0, 0.0, 0.0, 0.0, 0.3333, 0.0]
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, epsilon=1e-12, dtype="float32"):
        super().__init__()
        from ..initializer import Normal
        self._shape = [int(s) for s in weight_shape]
        if not -len(self._shape) <= dim < len(self._shape):
            raise ValueError(f"SpectralNorm: dim {dim} is out of range for a weight of rank {len(self._shape)}")
        self._dim, self._power_iters, self._epsilon = dim % len(self._shape), power_iters, epsilon
        h = self._shape[self._dim]
        w = 1
        for i, s in enumerate(self._shape):
            w *= 1 if i == self._dim else s
        self.weight_u = self.create_parameter([h], attr=ParamAttr(initializer=Normal(0.0, 1.0)), dtype=dtype)
        self.weight_v = self.create_parameter([w], attr=ParamAttr(initializer=Normal(0.0, 1.0)), dtype=dtype)
        self.weight_u.stop_gradient = self.weight_v.stop_gradient = True

    def forward(self, weight):
        return spectral_normalize(weight, self.weight_u, self.weight_v, self._dim, self._power_iters,
                                  self._epsilon)[0]
