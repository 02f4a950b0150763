"""The layer functions of static programs (`fc`, `create_parameter`), re-exported by `oar.static.nn`."""


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """A fully connected layer built from a fresh weight and bias: ``act(flatten(x) @ w + b)``.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 4, 5])
        ...     y = oar.static.nn.fc(x, size=10, activation='relu')
        >>> oar.disable_static()
        >>> y.shape, [p.shape for p in main.all_parameters()]
        ([-1, 10], [[20, 10], [10]])
    """
    import numpy as np
    from ..ops.manipulation import reshape
    from ..ops.math import matmul
    in_dim = int(np.prod(x.shape[num_flatten_dims:]))
    if in_dim < 0:
        raise ValueError(f"fc: the dims after num_flatten_dims of {x.shape} must be known")
    w = create_parameter([in_dim, size], x.dtype.name, attr=weight_attr)
    h = matmul(reshape(x, list(x.shape[:num_flatten_dims]) + [in_dim]) if x.ndim != num_flatten_dims + 1 else x, w)
    if bias_attr is not False:
        h = h + create_parameter([size], x.dtype.name, attr=bias_attr, is_bias=True)
    if activation:
        from . import functional as F
        h = getattr(F, activation)(h)
    return h


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """Creates a parameter in the main program and its initialiser in the startup program (in dynamic mode,
    an eager Parameter, as Paddle).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([3, 2], 'float32', name='w')
        >>> oar.disable_static()
        >>> w.shape, [p.name for p in main.all_parameters()]
        ([3, 2], ['w'])
    """
    from .initializer import create_parameter as create  # oar.nn loads on first use (oar.lite)
    return create(shape, dtype, name, attr, is_bias, default_initializer)


# ---- the layer functions of Paddle's static.nn: each builds the 2.x layer (so parameters are named as Paddle's
# static functions name them: conv2d_0.w_0, batch_norm_0.w_1, ...) and calls it ------------------------------------

def _act(y, act):
    if not act:
        return y
    from . import functional as F
    return getattr(F, act)(y)


def _groups(groups):
    return 1 if groups is None else groups


def _check_cudnn(use_cudnn):
    """`use_cudnn` only picks a GPU kernel in Paddle; the result is the same either way."""
    if not isinstance(use_cudnn, bool):
        raise TypeError(f"use_cudnn must be a bool, got {type(use_cudnn).__name__}")


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """Paddle's static ``conv2d``: a fresh `Conv2D` (parameters ``conv2d_N.w_0`` / ``.b_0``), then `act`.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.conv2d(oar.static.data('img', [None, 3, 8, 8]), 4, 3, act='relu')
        >>> oar.disable_static()
        >>> y.shape, [p.shape for p in main.all_parameters()]
        ([-1, 4, 6, 6], [[4, 3, 3, 3], [4]])
    """
    from .layer.conv import Conv2D
    _check_cudnn(use_cudnn)
    layer = Conv2D(input.shape[1 if data_format == "NCHW" else -1], num_filters, filter_size, stride, padding,
                   dilation, _groups(groups), weight_attr=param_attr, bias_attr=bias_attr, data_format=data_format)
    return _act(layer(input), act)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """Paddle's static ``conv3d``: a fresh `Conv3D`, then `act`.

    Example:
        >>> oar.enable_static()
        >>> with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
        ...     y = oar.static.nn.conv3d(oar.static.data('vol', [None, 2, 5, 5, 5]), 3, 3)
        >>> oar.disable_static()
        >>> y.shape
        [-1, 3, 3, 3, 3]
    """
    from .layer.conv import Conv3D
    _check_cudnn(use_cudnn)
    layer = Conv3D(input.shape[1 if data_format == "NCDHW" else -1], num_filters, filter_size, stride, padding,
                   dilation, _groups(groups), weight_attr=param_attr, bias_attr=bias_attr, data_format=data_format)
    return _act(layer(input), act)


def _transpose(cls, nd, input, num_filters, output_size, filter_size, padding, stride, dilation, groups, param_attr,
               bias_attr, use_cudnn, act, data_format):
    _check_cudnn(use_cudnn)
    if filter_size is None:
        raise ValueError("conv_transpose: give filter_size (working it out from output_size is not supported)")
    channels = input.shape[1 if data_format.startswith("NC") else -1]
    layer = cls(channels, num_filters, filter_size, stride, padding, groups=_groups(groups), dilation=dilation,
                weight_attr=param_attr, bias_attr=bias_attr, data_format=data_format)
    return _act(layer(input, output_size) if output_size is not None else layer(input), act)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCHW"):
    """Paddle's static ``conv2d_transpose``: a fresh `Conv2DTranspose` (``conv2d_transpose_N.w_0``), then `act`.

    Example:
        >>> oar.enable_static()
        >>> with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
        ...     y = oar.static.nn.conv2d_transpose(oar.static.data('up', [None, 3, 8, 8]), 2, filter_size=3)
        >>> oar.disable_static()
        >>> y.shape
        [-1, 2, 10, 10]
    """
    from .layer.conv import Conv2DTranspose
    return _transpose(Conv2DTranspose, 2, input, num_filters, output_size, filter_size, padding, stride, dilation,
                      groups, param_attr, bias_attr, use_cudnn, act, data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCDHW"):
    """Paddle's static ``conv3d_transpose``: a fresh `Conv3DTranspose`, then `act`.

    Example:
        >>> oar.enable_static()
        >>> with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
        ...     y = oar.static.nn.conv3d_transpose(oar.static.data('v', [None, 2, 3, 3, 3]), 4, filter_size=2)
        >>> oar.disable_static()
        >>> y.shape
        [-1, 4, 4, 4, 4]
    """
    from .layer.conv import Conv3DTranspose
    return _transpose(Conv3DTranspose, 3, input, num_filters, output_size, filter_size, padding, stride, dilation,
                      groups, param_attr, bias_attr, use_cudnn, act, data_format)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Paddle's static ``batch_norm`` (parameters ``batch_norm_N.w_0`` / ``.b_0``, statistics ``.w_1`` / ``.w_2``):
    batch statistics while training, the running ones with ``is_test=True`` or in a ``clone(for_test=True)``.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.batch_norm(oar.static.data('bn_in', [None, 4, 2, 2]))
        >>> oar.disable_static()
        >>> sorted(v.name.split('.')[1] for v in main.list_vars() if v.persistable)
        ['b_0', 'w_0', 'w_1', 'w_2']
    """
    from .layer.norm import BatchNorm
    if moving_mean_name is not None or moving_variance_name is not None:
        raise NotImplementedError("batch_norm: naming the moving statistics is not supported (they are named "
                                  "batch_norm_N.w_1 / .w_2)")
    if not do_model_average_for_mean_and_var:
        raise NotImplementedError("batch_norm: do_model_average_for_mean_and_var=False is not supported")
    layer = BatchNorm(input.shape[1 if data_layout == "NCHW" else -1], momentum=momentum, epsilon=epsilon,
                      param_attr=param_attr, bias_attr=bias_attr, data_layout=data_layout,
                      use_global_stats=use_global_stats)
    if is_test:
        layer.eval()
    return _act(layer(input), act)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None, bias_attr=None,
               act=None, name=None):
    """Paddle's static ``layer_norm`` over the dims from `begin_norm_axis` on (flat parameters
    ``layer_norm_N.w_0`` / ``.b_0``; ``scale`` / ``shift`` False leave them out).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.layer_norm(oar.static.data('ln_in', [None, 4, 3]))
        >>> oar.disable_static()
        >>> [p.shape for p in main.all_parameters()]
        [[12], [12]]
    """
    from .layer.norm import LayerNorm
    shape = list(input.shape[begin_norm_axis:])
    if any(d < 0 for d in shape):
        raise ValueError(f"layer_norm: the normalized dims {shape} must be known")
    layer = LayerNorm(shape, epsilon, weight_attr=param_attr if scale else False,
                      bias_attr=bias_attr if shift else False)
    return _act(layer(input), act)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """Paddle's static ``embedding``: a ``size = [vocab, dim]`` table ``embedding_N.w_0`` looked up by `input`
    (ids; a trailing dim of 1 is kept, as Paddle's).

    Example:
        >>> oar.enable_static()
        >>> with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
        ...     e = oar.static.nn.embedding(oar.static.data('ids', [None, 1], 'int64'), [10, 4])
        >>> oar.disable_static()
        >>> e.shape
        [-1, 1, 4]
    """
    from .layer.common import Embedding
    if is_distributed:
        raise NotImplementedError("embedding: is_distributed=True needs Paddle's parameter server")
    layer = Embedding(size[0], size[1], padding_idx=padding_idx, sparse=is_sparse, weight_attr=param_attr)
    if layer.weight.dtype.name != str(dtype):
        raise NotImplementedError(f"embedding: dtype {dtype} differs from the default float dtype")
    return layer(input)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """Paddle's static ``bilinear_tensor_product``: ``out[n, k] = x[n] @ W[k] @ y[n] + b[k]`` with parameters
    ``bilinear_tensor_product_N.w_0`` ``[size, dx, dy]`` and ``.b_0`` ``[1, size]``.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     out = oar.static.nn.bilinear_tensor_product(oar.static.data('bx', [None, 3]),
        ...                                                 oar.static.data('by', [None, 2]), 4)
        >>> oar.disable_static()
        >>> out.shape, [p.shape for p in main.all_parameters()]
        ([-1, 4], [[4, 3, 2], [1, 4]])
    """
    from .layer.layers import unique_name
    from . import functional as F
    scope = unique_name(name or "bilinear_tensor_product")
    w = create_parameter([size, x.shape[-1], y.shape[-1]], x.dtype.name, name=f"{scope}.w_0", attr=param_attr)
    b = None if bias_attr is False else create_parameter([1, size], x.dtype.name, name=f"{scope}.b_0",
                                                         attr=bias_attr, is_bias=True)
    return _act(F.bilinear(x, y, w, b), act)


def row_conv(input, future_context_size, param_attr=None, act=None):
    """Paddle's static ``row_conv`` (lookahead convolution, DeepSpeech 2): for input ``[N, T, D]``,
    ``out[n, t] = sum_{i=0..k} input[n, t + i] * w[i]`` (zero past the end) with ``k = future_context_size`` and
    the parameter ``row_conv_N.w_0`` of shape ``[k + 1, D]``; then `act`. (Paddle 3.3.1 raises on it in its default
    PIR static mode; this follows its legacy static mode.)

    Example:
        >>> x = oar.to_tensor([[[1.0], [2.0], [3.0]]])
        >>> y = oar.static.nn.row_conv(x, 1, param_attr=oar.nn.initializer.Constant(0.5))
        >>> y.numpy().ravel().tolist()
        [1.5, 2.5, 1.5]
    """
    from ..ops.manipulation import concat
    from ..ops.math import zeros_like
    from .layer.layers import unique_name
    if input.ndim != 3:
        raise ValueError(f"row_conv: input must be [batch, time, dim] (Paddle's LoD input is not supported), got "
                         f"shape {input.shape}")
    k = int(future_context_size)
    if k < 0:
        raise ValueError(f"row_conv: future_context_size must be >= 0, got {future_context_size}")
    w = create_parameter([k + 1, input.shape[-1]], input.dtype.name, name=f"{unique_name('row_conv')}.w_0",
                         attr=param_attr)
    t = input.shape[1]
    zero = zeros_like(input[:, :1])
    out = input * w[0]
    for i in range(1, k + 1):
        if 0 <= t <= i:
            break  # every row past the end is zero
        # rows t + i of the input, zero past the end (a run with fewer than i rows fails on the add's shapes)
        out = out + concat([input[:, i:]] + [zero] * i, axis=1) * w[i]
    return _act(out, act)
