"""`Layer`: the base class of every model part. It owns parameters, buffers and sublayers, and runs hooks.

A Layer is a thin object around functional ops: `forward` calls `oar.nn.functional`. Parameters are
`oar.Parameter`s named like Paddle's (``linear_0.w_0``); in static mode they are persistable Variables of
the main program with init ops in the startup program.
"""
import collections
import contextlib
import re
import threading

import numpy as np

from ...core import dtype as D
from ..param_attr import ParamAttr
from ...core.devices import device_of, place_array
from ...core.state import mode, no_grad, place_name
from ...eager.tensor import Parameter, Tensor

class UniqueNames:
    """Paddle's unique-name generator (`paddle.base.unique_name`): ``key_0``, ``key_1``, ... from one process-wide
    counter per key, behind a lock (layers created in two threads at once never share a name); `guard` swaps in
    fresh counters (and a name prefix) for its body.

    Example:
        >>> from oar.base import unique_name
        >>> with unique_name.guard():
        ...     unique_name.generate('fc'), unique_name.generate('fc')
        ('fc_0', 'fc_1')
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.counts, self.prefix = collections.defaultdict(int), ""

    def generate(self, key):
        with self.lock:
            n = self.counts[key]
            self.counts[key] = n + 1
            return f"{self.prefix}{key}_{n}"

    @contextlib.contextmanager
    def guard(self, new_generator=None):
        if new_generator is not None and not isinstance(new_generator, str):
            raise TypeError(f"unique_name.guard: new_generator must be None or a name prefix (str), got "
                            f"{type(new_generator).__name__}")
        with self.lock:
            saved = self.counts, self.prefix
            self.counts, self.prefix = collections.defaultdict(int), new_generator or ""
        try:
            yield
        finally:
            with self.lock:
                self.counts, self.prefix = saved


UNIQUE_NAMES = UniqueNames()


def unique_name(prefix):
    """``prefix_0``, ``prefix_1``, ... from the process-wide counters (Paddle's unique_name)."""
    return UNIQUE_NAMES.generate(prefix)


def unique_param_name(scope, is_bias):
    return unique_name(f"{scope}.{'b' if is_bias else 'w'}")


def _snake(name):
    """Paddle's camel-to-snake rule: ``Conv2D -> conv2d``, ``BatchNorm2D -> batch_norm2d`` (a digit does not
    start a new word, so parameters are named ``conv2d_0.w_0`` as in Paddle)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _is_param(v):
    return isinstance(v, Parameter) or (getattr(v, "is_parameter", False) and not isinstance(v, Tensor))


class HookRemoveHelper:
    """Returned by ``register_forward_*_hook``; ``remove()`` unregisters the hook."""

    _next = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = HookRemoveHelper._next
        HookRemoveHelper._next += 1

    def remove(self):
        self._hooks.pop(self._id, None)


STATIC_FORWARD = []  # filled by oar.jit: layer -> the forward to call while to_static builds a program


class _LayerEdits:
    """How many times a parameter, sublayer or buffer of some Layer was replaced or removed: a converted
    program's guards compare it, since a program holds the parameter objects it was traced with."""

    def __init__(self):
        self.count = 0


LAYER_EDITS = _LayerEdits()


class Layer:
    """Base class of layers: subclass it, create parameters and sublayers in ``__init__``, write ``forward``.

    Example:
        >>> class Net(oar.nn.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self._linear = oar.nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         return self._linear(x)
        >>> list(Net().state_dict().keys())
        ['_linear.weight', '_linear.bias']
    """

    def __init__(self, name_scope=None, dtype=None):
        d = self.__dict__
        d["training"] = True
        d["_full_name"] = unique_name(name_scope or _snake(type(self).__name__))
        d["_name"] = None  # a layer taking a `name` argument keeps it here, as Paddle's do
        # None follows oar.set_default_dtype at parameter creation, as Paddle's layers do
        d["_dtype"] = D.convert_dtype(dtype) if dtype is not None else None
        d["_parameters"] = collections.OrderedDict()
        d["_sub_layers"] = collections.OrderedDict()
        d["_buffers"] = collections.OrderedDict()
        d["_non_persistable_buffer_names_set"] = set()
        d["_forward_pre_hooks"] = collections.OrderedDict()
        d["_forward_post_hooks"] = collections.OrderedDict()
        d["_built"] = False

    # ---- calling -------------------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs, **kwargs):
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                r = hook(self, inputs)
                if r is not None:
                    inputs = r if isinstance(r, tuple) else (r,)
        forward = self.forward
        if mode().static and STATIC_FORWARD:  # building a program: a user layer's forward is converted
            forward = STATIC_FORWARD[0](self)
        out = forward(*inputs, **kwargs)
        if self._forward_post_hooks:
            for hook in list(self._forward_post_hooks.values()):
                r = hook(self, inputs, out)
                if r is not None:
                    out = r
        return out

    def register_forward_pre_hook(self, hook):
        """``hook(layer, inputs)`` runs before forward; a non-None result replaces the inputs."""
        h = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[h._id] = hook
        return h

    def register_forward_post_hook(self, hook):
        """``hook(layer, inputs, output)`` runs after forward; a non-None result replaces the output."""
        h = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[h._id] = hook
        return h

    # ---- parameters, buffers, sublayers --------------------------------------------------------------------
    def full_name(self):
        """The layer's unique name, e.g. ``linear_0``."""
        return self._full_name

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None):
        """A new parameter of `shape`, initialised by `attr.initializer` or `default_initializer` (Paddle's
        defaults: zero bias, XavierUniform weight). Returns None when ``attr is False``."""
        from ..initializer import create_parameter
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        dtype = D.convert_dtype(dtype) if dtype is not None else (self._dtype or D.default_float())
        name = attr.name or unique_param_name(self._full_name, is_bias)
        try:
            return create_parameter(shape, dtype, name, attr, is_bias, default_initializer)
        except ValueError as e:
            raise ValueError(f"{type(self).__name__}: {e}") from None

    def add_parameter(self, name, parameter):
        """Registers `parameter` (a Parameter or None) under attribute `name`."""
        if "." in name:
            raise KeyError(f"parameter name {name!r} must not contain '.'")
        if parameter is not None and not _is_param(parameter):
            raise TypeError(f"add_parameter({name!r}): expected a Parameter, got {type(parameter).__name__}")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Registers `sublayer` under attribute `name` and returns it."""
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer({name!r}): expected a Layer, got {type(sublayer).__name__}")
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Registers a non-parameter tensor (running statistics, masks); persistable ones go in state_dict."""
        if "." in name:
            raise KeyError(f"buffer name {name!r} must not contain '.'")
        if tensor is not None and not hasattr(tensor, "dtype"):
            raise TypeError(f"register_buffer({name!r}): expected a Tensor, got {type(tensor).__name__}")
        for d in (self._parameters, self._sub_layers):
            d.pop(name, None)
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if tensor is not None and hasattr(tensor, "persistable"):
            tensor.persistable = persistable
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    def __setattr__(self, name, value):
        d = self.__dict__
        params, layers, buffers = d.get("_parameters"), d.get("_sub_layers"), d.get("_buffers")
        if params is not None and any(name in s and s[name] is not value for s in (params, layers, buffers)):
            LAYER_EDITS.count += 1
        if params is None and (_is_param(value) or isinstance(value, Layer)):
            raise RuntimeError(f"call super().__init__() in {type(self).__name__}.__init__ before assigning "
                               f"parameters or sublayers (while setting {name!r})")
        if _is_param(value):
            d.pop(name, None)
            layers.pop(name, None)
            buffers.pop(name, None)
            params[name] = value
        elif isinstance(value, Layer):
            d.pop(name, None)
            params.pop(name, None)
            buffers.pop(name, None)
            layers[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to parameter {name!r} (Parameter or None "
                                "expected)")
            params[name] = None
        elif layers is not None and name in layers:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to sublayer {name!r} (Layer or None expected)")
            layers[name] = None
        elif buffers is not None and name not in buffers and isinstance(value, Tensor) and \
                not isinstance(value, Parameter):  # a Tensor (eager, or pending in oar.lazy()) but no Parameter
            # Paddle: an eager tensor set as an attribute is a buffer, non-persistable (not in state_dict) unless
            # `register_buffer` says otherwise; it shows in named_buffers() and follows `to()` / `astype`
            d.pop(name, None)
            params.pop(name, None)
            layers.pop(name, None)
            self._non_persistable_buffer_names_set.add(name)
            buffers[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not hasattr(value, "dtype"):
                raise TypeError(f"cannot assign {type(value).__name__} to buffer {name!r} (Tensor or None expected)")
            if value is not None and hasattr(value, "persistable"):
                value.persistable = name not in self._non_persistable_buffer_names_set
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):  # (the three stores written out: `self.weight` in a forward is a hot path)
        d = self.__dict__
        store = d.get("_parameters")
        if store is not None and name in store:
            return store[name]
        store = d.get("_sub_layers")
        if store is not None and name in store:
            return store[name]
        store = d.get("_buffers")
        if store is not None and name in store:
            return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_sub_layers", "_buffers"):
            if name in self.__dict__[key]:
                LAYER_EDITS.count += 1
                del self.__dict__[key][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers) | set(self._buffers))

    # ---- traversal ---------------------------------------------------------------------------------------
    def named_sublayers(self, prefix="", include_self=False, layers_set=None):
        """``(dotted_name, layer)`` for every sublayer, depth first, each layer once."""
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            p = prefix + ("." if prefix else "") + key
            layers_set.add(id(layer))
            yield p, layer
            yield from layer.named_sublayers(prefix=p, include_self=False, layers_set=layers_set)

    def sublayers(self, include_self=False):
        return [l for _, l in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        return [l for _, l in self.named_children()]

    def _named_members(self, store, prefix, include_sublayers):
        """``(structured_name, tensor)`` from each layer's `store` dict, each tensor once."""
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for lp, layer in layers:
            for key, t in layer.__dict__[store].items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield lp + ("." if lp else "") + key, t

    def named_parameters(self, prefix="", include_sublayers=True):
        """``(structured_name, parameter)`` pairs, each parameter once."""
        return self._named_members("_parameters", prefix, include_sublayers)

    def parameters(self, include_sublayers=True):
        """All parameters (trainable or not) of this layer and, by default, its sublayers."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        """``(structured_name, buffer)`` pairs, each buffer once."""
        return self._named_members("_buffers", prefix, include_sublayers)

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    # ---- modes and utilities ------------------------------------------------------------------------------
    def train(self):
        """Training mode for this layer and its sublayers (dropout active, batch norm updates statistics)."""
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = True
        return self

    def eval(self):
        """Inference mode for this layer and its sublayers."""
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = False
        return self

    def apply(self, fn):
        """Calls ``fn(layer)`` on every sublayer, then on this layer; returns self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def clear_gradients(self, set_to_zero=True):
        """Clears the gradients of all parameters (zeroed in place by default, as Paddle)."""
        for p in self.parameters():
            if isinstance(p, Tensor) and not p.stop_gradient:
                p.clear_grad(set_to_zero)

    clear_grad = clear_gradients

    def to(self, device=None, dtype=None, blocking=None):
        """Moves parameters and buffers (and their gradients) to `device` ('cpu', 'gpu', 'gpu:N', a Place) in place,
        and converts the floating ones to `dtype`. Copies finish before the next op runs, so `blocking` changes
        nothing.

        Example:
            >>> net = oar.nn.Linear(2, 2).to('cpu', 'float64')
            >>> net.weight.place, net.weight.dtype == oar.float64
            (Place(cpu), True)
        """
        if device is not None:
            place = place_name(device)
            with no_grad():
                for t in list(self.parameters()) + list(self.buffers()):
                    if isinstance(t, Tensor) and device_of(t._data) != place:
                        t._data = place_array(t._data, place)
                        t._version += 1
                        if t._grad is not None:
                            t._grad = Tensor(place_array(t._grad._data, place))
        if dtype is None:
            return self
        dt = D.convert_dtype(dtype)
        with no_grad():
            for t in list(self.parameters()) + list(self.buffers()):
                if isinstance(t, Tensor) and t._data.dtype.kind == "f":
                    t._data = t._data.astype(dt.np)
                    if t._grad is not None:
                        t._grad = Tensor(t._grad._data.astype(dt.np))
        for layer in self.sublayers(include_self=True):
            layer.__dict__["_dtype"] = dt
        return self

    def float(self):
        return self.to(dtype="float32")

    def double(self):
        return self.to(dtype="float64")

    def half(self):
        return self.to(dtype="float16")

    def extra_repr(self):
        """Extra text shown inside ``repr(layer)``; layers override it with their configuration."""
        return ""

    def __repr__(self):
        lines = []
        for name, layer in self._sub_layers.items():
            if layer is None:
                continue
            sub = repr(layer).split("\n")
            lines.append(f"({name}): " + "\n  ".join(sub))
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    # ---- state dict ------------------------------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True):
        """An ordered dict ``structured_name -> Tensor`` of parameters and persistable buffers.

        Example:
            >>> sd = oar.nn.Linear(2, 3).state_dict()   # keys 'weight', 'bias'
        """
        out = collections.OrderedDict() if destination is None else destination
        layers = self.named_sublayers(include_self=True) if include_sublayers else [("", self)]
        for lp, layer in layers:
            pre = structured_name_prefix + lp + ("." if lp else "")
            for key, p in layer._parameters.items():
                if p is not None:
                    out[pre + key] = p
            for key, b in layer._buffers.items():
                if b is not None and key not in layer._non_persistable_buffer_names_set:
                    out[pre + key] = b
        return out

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Loads values (Tensors or NumPy arrays) into the parameters and buffers.

        With ``use_structured_name=False`` the keys are the parameters' own names (``linear_0.w_0``); a
        state dict object with a ``name_map`` attribute (structured name -> key) is also understood.
        Returns ``(missing_keys, unexpected_keys)``.
        """
        mine = self.state_dict()
        name_map = getattr(state_dict, "name_map", None) or {}
        missing, used, loaded = [], set(), set()
        for key, target in mine.items():
            k = key if use_structured_name else getattr(target, "name", key)
            if k not in state_dict and name_map.get(key) in state_dict:
                k = name_map[key]
            if k not in state_dict:
                missing.append(key)
                continue
            used.add(k)
            loaded.add(id(target))
            _assign(target, state_dict[k], key)
        # a tensor listed under two names (an RNN's ``weight_ih_l0`` and ``0.cell.weight_ih``) loaded by either
        missing = [k for k in missing if id(mine[k]) not in loaded]
        unexpected = [k for k in state_dict if k not in used]
        return missing, unexpected

    set_dict = load_dict = set_state_dict

    def __getstate__(self):  # (copies and pickles leave out the converted methods: rebuilt on first call)
        return {k: v for k, v in self.__dict__.items() if k != "_oar_static_functions"}

    def __setstate__(self, state):
        self.__dict__.update(state)


def _assign(target, value, key):
    a = value._data if isinstance(value, Tensor) else np.asarray(value)
    if not isinstance(target, Tensor):
        raise TypeError(f"set_state_dict: {key!r} is a static Variable; load static parameters with "
                        "oar.static.set_program_state or the Executor's scope")
    if list(a.shape) != list(target._data.shape):
        raise ValueError(f"set_state_dict: {key!r} expects shape {list(target._data.shape)} but the state "
                         f"holds shape {list(a.shape)}")
    with no_grad():
        a = a if device_of(a) == device_of(target._data) else place_array(a, device_of(target._data))
        target._data = a.astype(target._data.dtype, copy=True)
        target._version += 1
