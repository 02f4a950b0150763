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
