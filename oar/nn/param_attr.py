"""`ParamAttr`: how a Layer's parameter is named, initialised, regularised, clipped and scheduled."""


class ParamAttr:
    """Options for one parameter, passed as `weight_attr` / `bias_attr` of a layer.

    Args:
        name: the parameter's unique name (generated like ``linear_0.w_0`` when None).
        initializer: an `oar.nn.initializer` object (the layer's default when None).
        learning_rate: multiplier of the optimizer's learning rate for this parameter.
        regularizer: an `L1Decay`/`L2Decay` that overrides the optimizer's weight decay.
        trainable: False makes the parameter constant (``stop_gradient=True``).
        need_clip: False exempts the parameter from gradient clipping.

    Example:
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.Constant(0.5), learning_rate=0.1)
        >>> fc = oar.nn.Linear(4, 2, weight_attr=attr, bias_attr=False)
    """

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr name must be a str, got {type(name).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = bool(need_clip)

    @staticmethod
    def _to_attr(arg):
        """Normalises a `weight_attr`/`bias_attr` argument: None -> default ParamAttr, False -> False (no
        parameter), str -> named attr, initializer -> attr with it, ParamAttr -> itself."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        from .initializer import Initializer
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if arg is True:
            return ParamAttr()
        raise TypeError(f"expected a ParamAttr, an initializer, a name, None or False, got {type(arg).__name__}")

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, learning_rate={self.learning_rate},"
                f" regularizer={self.regularizer!r}, trainable={self.trainable}, need_clip={self.need_clip})")


class WeightNormParamAttr(ParamAttr):
    """A `ParamAttr` that reparameterises a static program's weight as ``w = g * v / ||v||`` (weight
    normalisation, Salimans & Kingma 2016): parameters ``NAME_g`` and ``NAME_v`` are trained instead of ``NAME``.
    ``||v||`` is taken over every dim but `dim` (over all dims when `dim` is None); `g` has v's rank with 1 in every
    dim but `dim`. `v` starts as the initializer draws it and `g` as ``||v||``, so ``w`` starts as that draw.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     y = oar.static.nn.fc(oar.static.data('wn_x', [None, 3]), 2, bias_attr=False,
        ...                          weight_attr=oar.static.WeightNormParamAttr(dim=1, name='wn'))
        >>> oar.disable_static()
        >>> [(p.name, p.shape) for p in main.all_parameters()]
        [('wn_g', [1, 2]), ('wn_v', [3, 2])]
    """

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=False, need_clip=True):
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"WeightNormParamAttr: dim must be an int or None, got {type(dim).__name__}")
        super().__init__(name, initializer, learning_rate, regularizer, trainable, do_model_average, need_clip)
        self.dim = dim
