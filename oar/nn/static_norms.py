"""The normalisation layer functions of static programs (`group_norm`, `instance_norm`, `spectral_norm`, `prelu`),
re-exported by `oar.static.nn`. Each creates its parameters under Paddle's static names (``group_norm_0.w_0``, ...)
and builds the functional op, so they also work in dynamic mode as Paddle 2.6's do.

Paddle 3.3.1 raises on all but `spectral_norm` in its default (PIR) static mode; these follow its legacy static
mode (``FLAGS_enable_pir_api=0``), which is Paddle 2.6's."""
from .initializer import Constant, Normal
from .layer.layers import unique_name
from .param_attr import ParamAttr
from .static_functions import _act, create_parameter


def _channels(x, data_layout):
    return x.shape[1 if data_layout.startswith("NC") else -1]


def _scale_shift(scope, c, dtype, param_attr, bias_attr):
    w = None if param_attr is False else create_parameter(
        [c], dtype, name=f"{scope}.w_0", attr=param_attr, default_initializer=Constant(1.0))
    b = None if bias_attr is False else create_parameter([c], dtype, name=f"{scope}.b_0", attr=bias_attr,
                                                         is_bias=True)
    return w, b


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """Paddle's static ``group_norm``: channels split into `groups`, each normalised over its channels and the
    spatial dims, then scaled and shifted per channel (``group_norm_N.w_0`` = 1, ``.b_0`` = 0), then `act`.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.group_norm(oar.static.data('gn_in', [None, 4, 3, 3]), groups=2)
        >>> oar.disable_static()
        >>> y.shape, [(p.name.split('.')[1], p.shape) for p in main.all_parameters()]
        ([-1, 4, 3, 3], [('w_0', [4]), ('b_0', [4])])
    """
    from . import functional as F
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError(f"group_norm: data_layout must be 'NCHW' or 'NHWC', got {data_layout!r}")
    c = _channels(input, data_layout)
    if c % groups:
        raise ValueError(f"group_norm: {c} channels do not split into {groups} groups")
    w, b = _scale_shift(unique_name(name or "group_norm"), c, input.dtype.name, param_attr, bias_attr)
    return _act(F.group_norm(input, groups, epsilon, w, b, data_format=data_layout), act)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Paddle's static ``instance_norm``: each sample's channel normalised over its spatial dims, then scaled and
    shifted per channel (``instance_norm_N.w_0`` = 1, ``.b_0`` = 0). Input NC, NCL, NCHW or NCDHW.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.instance_norm(oar.static.data('in_in', [None, 3, 4, 4]))
        >>> oar.disable_static()
        >>> y.shape, [p.shape for p in main.all_parameters()]
        ([-1, 3, 4, 4], [[3], [3]])
    """
    from . import functional as F
    if input.ndim < 2 or input.ndim > 5:
        raise ValueError(f"instance_norm: input must have 2 to 5 dims, got shape {input.shape}")
    w, b = _scale_shift(unique_name(name or "instance_norm"), input.shape[1], input.dtype.name, param_attr,
                        bias_attr)
    return F.instance_norm(input, weight=w, bias=b, eps=epsilon)


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """Paddle's static ``prelu``: ``max(0, x) + alpha * min(0, x)`` with ``prelu_N.w_0`` (0.25) of shape ``[1]``
    (`mode` 'all'), ``[1, C, 1, 1]`` ('channel', one per channel) or ``[1, *x.shape[1:]]`` ('element').

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.prelu(oar.static.data('pr_in', [None, 3, 2, 2]), 'channel')
        >>> oar.disable_static()
        >>> [p.shape for p in main.all_parameters()]
        [[1, 3, 1, 1]]
    """
    from ..ops.manipulation import reshape
    from . import functional as F
    if mode not in ("all", "channel", "element"):
        raise ValueError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"prelu: unknown data_format {data_format!r}")
    if mode != "all" and x.ndim < 2:
        raise ValueError(f"prelu: mode {mode!r} needs an input of at least 2 dims, got shape {x.shape}")
    channels_first = data_format[1] == "C"
    if mode == "all":
        shape = [1]
    elif mode == "channel":
        shape = [1, x.shape[1], 1, 1] if channels_first else [1, 1, 1, x.shape[-1]]
    else:
        shape = [1] + list(x.shape[1:])
        if any(d < 0 for d in shape):
            raise ValueError(f"prelu: mode 'element' needs the dims after the first known, got shape {x.shape}")
    alpha = create_parameter(shape, x.dtype.name, name=f"{unique_name(name or 'prelu')}.w_0", attr=param_attr,
                             default_initializer=Constant(0.25))
    if mode == "all":
        return F.prelu(x, alpha, data_format="NCHW" if channels_first else "NHWC")
    if mode == "channel":
        return F.prelu(x, reshape(alpha, [shape[1] if channels_first else shape[-1]]),
                       data_format="NCHW" if channels_first else "NHWC")
    from ..ops.math import maximum, minimum
    return maximum(x, 0.0) + alpha * minimum(x, 0.0)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """Paddle's static ``spectral_norm``: `weight` divided by its largest singular value, estimated by
    `power_iters` power iterations from the vectors ``spectral_norm_N.w_0`` (u, length ``weight.shape[dim]``) and
    ``.w_1`` (v, the other dims' product), both drawn from N(0, 1) and not trained. As in Paddle, each run
    iterates from the stored u, v (they are not written back) and no gradient flows through them.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([4, 6], 'float32', name='sn_w')
        ...     y = oar.static.nn.spectral_norm(w, dim=0, power_iters=2)
        >>> oar.disable_static()
        >>> y.shape, [p.shape for p in main.all_parameters()]
        ([4, 6], [[4, 6], [4], [6]])
    """
    import numpy as np
    from ..ops.manipulation import reshape, transpose
    from ..ops.math import matmul, sqrt
    from ..ops.reduction import sum as rsum
    shape = list(weight.shape)
    if not 0 <= dim < len(shape):
        raise ValueError(f"spectral_norm: dim {dim} is out of range for a weight of shape {shape}")
    if any(d < 0 for d in shape):
        raise ValueError(f"spectral_norm: the weight's shape {shape} must be known")
    h, w_len = shape[dim], int(np.prod(shape)) // shape[dim]
    scope = unique_name(name or "spectral_norm")
    dtype = weight.dtype.name
    frozen = ParamAttr(trainable=False, initializer=Normal(0.0, 1.0))
    u = create_parameter([h], dtype, name=f"{scope}.w_0", attr=frozen)
    v = create_parameter([w_len], dtype, name=f"{scope}.w_1", attr=frozen)
    perm = [dim] + [i for i in range(len(shape)) if i != dim]
    mat = reshape(transpose(weight, perm) if dim else weight, [h, w_len])
    u, v = reshape(u, [h, 1]), reshape(v, [w_len, 1])
    for _ in range(int(power_iters)):
        v = matmul(mat, u, transpose_x=True)
        v = v / (sqrt(rsum(v * v)) + eps)
        u = matmul(mat, v)
        u = u / (sqrt(rsum(u * u)) + eps)
    u, v = u.detach(), v.detach()
    sigma = rsum(u * matmul(mat, v))
    return weight / sigma
