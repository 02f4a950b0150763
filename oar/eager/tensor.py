"""The eager `Tensor`: a NumPy array plus autograd bookkeeping. Operators and methods come from `TensorMethods`."""
import copy
import itertools

import numpy as np

from ..core import dtype as D
from ..core.state import mode, place_name, get_device as mode_device, CPUPlace, CUDAPlace
from ..core.devices import device_of, is_device_array, place_array, to_host
from ..kernels import elementwise as elementwise_kernels
from ..ops import registry
from ..core.tensor_methods import TensorMethods

_names = itertools.count()
_BY_NP = D._BY_NP  # numpy dtype -> DType, the fast path of `Tensor.dtype`
_backward = None  # engine.backward_tensor
OBSERVE = None  # while a trace records: ``hook(tensor, kind, value)`` on every tensor -> Python conversion


def set_observer(hook):
    """Installs (None: removes) the hook told of every conversion of a Tensor's value to Python (`bool`, `int`,
    `float`, `item`, `numpy`, `tolist`, `np.asarray`, `to_tensor` of a tensor): `oar.jit.trace` guards the
    decisions they make."""
    global OBSERVE
    OBSERVE = hook


class Tensor(TensorMethods):
    """An n-dimensional array that records the ops applied to it for `backward()`.

    Create one with `oar.to_tensor`. ``stop_gradient`` (True by default) means no gradient is wanted.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> (x * x).sum().backward()
        >>> x.grad.numpy()
        array([2., 4.], dtype=float32)
    """

    # _vc: [version, shared] — the in-place version counter, one list shared by a tensor and its views (`shared`
    # True once a view exists: in-place writes then go into the common buffer)
    __slots__ = ("_data", "stop_gradient", "_grad", "_node", "_name", "_hooks", "_vc", "persistable",
                 "__weakref__")
    __array_priority__ = 100  # numpy defers binary operators to us

    def __init__(self, data, stop_gradient=True, name=None):
        self._data = data
        self.stop_gradient = stop_gradient
        self._grad = None
        self._node = None
        self._name = name
        self._hooks = None
        self._vc = [0, False]
        self.persistable = False

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (a tape node checks it was not changed after
        it was read)."""
        return self._vc[0]

    @_version.setter
    def _version(self, v):
        self._vc[0] = v

    @classmethod
    def _wrap(cls, a):
        """Wraps a kernel result (fast path: no checks, no copy)."""
        t = object.__new__(Tensor)
        t._data = a if type(a) is np.ndarray or is_device_array(a) else np.asarray(a)
        t.stop_gradient = True
        t._grad = t._node = t._name = t._hooks = None
        t._vc = [0, False]
        t.persistable = False
        return t

    def _meta(self):
        """(shape, numpy dtype) of the value; a pending `oar.lazy()` value answers without being computed."""
        a = self._data
        return a.shape, a.dtype

    def _grad_copy(self):
        """A copy of this gradient owned by the leaf it is delivered to (the autograd walk's ``.grad``). While a
        trace records or a lazy graph is pending (`Mode.hook`), an `assign` op, so they hold it."""
        t = registry.apply(registry.get_op("assign"), [self]) if mode().hook is not None else \
            Tensor._wrap(self._data.copy())
        t.stop_gradient = False
        return t

    def _accumulate(self, g):
        """``self = self + g`` into a new array, one version later (the autograd walk's ``.grad`` accumulation);
        an `add` op while a trace records or a lazy graph is pending. (Not in place: summing a large gradient into
        its buffer leaves glibc's malloc without the large free that raises its mmap threshold, and every large
        temporary of the next step is then mapped afresh: LeNet's step 5-10% slower, `bench/eager_steps.py`.)"""
        if mode().hook is not None:
            self._data = registry.apply(registry.get_op("add"), [self, g])._data
        else:
            self._data = self._data + g._data
        self._vc[0] += 1

    # ---- metadata -------------------------------------------------------------------------------------------
    @property
    def shape(self):
        return list(self._data.shape)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    @property
    def dtype(self):
        t = _BY_NP.get(self._data.dtype)
        return t if t is not None else D.convert_dtype(self._data.dtype)

    @property
    def size(self):
        return int(self._data.size)

    @property
    def name(self):
        if self._name is None:
            self._name = f"generated_tensor_{next(_names)}"
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def place(self):
        """Where the values live: ``CPUPlace()`` (a NumPy array) or ``CUDAPlace(n)`` (a CuPy array on GPU n)."""
        name = device_of(self._data)
        return CPUPlace() if name == "cpu" else CUDAPlace(int(name[4:]))

    @property
    def is_leaf(self):
        return self._node is None

    def is_dist(self):
        """Whether this is a distributed tensor (`oar.distributed.shard_tensor`): False for every other tensor.

        Example:
            >>> oar.ones([2]).is_dist(), oar.ones([2]).placements, oar.ones([2]).process_mesh
            (False, None, None)
        """
        return False

    placements = property(lambda self: None, doc="A distributed tensor's placements (None for others).")
    process_mesh = property(lambda self: None, doc="A distributed tensor's ProcessMesh (None for others).")

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is None or isinstance(value, Tensor):
            if value is not None and device_of(value._data) != device_of(self._data):
                raise ValueError(f"cannot set the gradient of a tensor on {device_of(self._data)} to a tensor on "
                                 f"{device_of(value._data)}: put it on the same device first (.cuda(), .cpu())")
            self._grad = value
        else:  # an array (oar's extension; Paddle takes Tensors only) goes where the tensor is
            a = value if is_device_array(value) else np.asarray(value)
            self._grad = Tensor(place_array(a, device_of(self._data)))

    # ---- conversion -----------------------------------------------------------------------------------------
    def numpy(self):
        """The values as a new NumPy array (a copy, as in Paddle: later changes of the tensor, such as
        ``clear_grad()`` zeroing a gradient, do not reach it). Code inside oar reads ``_data`` instead.

        Example:
            >>> x = oar.to_tensor([1.0, 2.0])
            >>> a = x.numpy()
            >>> x[0] = 5.0
            >>> a.tolist()
            [1.0, 2.0]
        """
        if OBSERVE is not None:
            OBSERVE(self, "numpy", self._data)
        a = self._data
        return a.copy() if type(a) is np.ndarray else to_host(a)  # a device array is copied to the host

    def __array__(self, dtype=None, copy=None):
        if OBSERVE is not None:
            OBSERVE(self, "numpy", self._data)
        a = self._data if type(self._data) is np.ndarray else to_host(self._data)
        return a if dtype is None else a.astype(dtype)

    def tolist(self):
        if OBSERVE is not None:
            OBSERVE(self, "numpy", self._data)
        return self._data.tolist()

    def item(self, *args):
        if OBSERVE is not None:
            OBSERVE(self, "numpy" if args else "item", self._data)
        if args:
            return self._data.item(*args)
        if self._data.size != 1:
            raise ValueError(f"item() needs a tensor with one element, this one has shape {self.shape}")
        return self._data.item()

    def _scalar(self, kind):
        if self._data.size != 1:
            raise TypeError(f"only a tensor with one element can be converted to a Python {kind.__name__}; "
                            f"this one has shape {self.shape}")
        if OBSERVE is not None:
            OBSERVE(self, kind.__name__, self._data)
        return kind(self._data.reshape(()).item())

    def __bool__(self):
        return self._scalar(bool)

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __index__(self):
        if self._data.dtype.kind not in "iu":
            raise TypeError("only integer tensors can be used as an index")
        return self._scalar(int)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self._data.shape[0]

    def __repr__(self):
        from .printing import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    def __deepcopy__(self, memo):
        t = Tensor(self._data.copy(), self.stop_gradient)
        t.persistable = self.persistable
        return t

    # ---- autograd -------------------------------------------------------------------------------------------
    def backward(self, grad_tensor=None, retain_graph=False):
        """Accumulates d(self)/d(leaf) into ``leaf.grad`` for every leaf with ``stop_gradient=False``."""
        global _backward
        if _backward is None:  # (the engine imports this module: bound on first use, not imported per call)
            from .engine import backward_tensor as _backward
        _backward(self, grad_tensor, retain_graph)

    def clear_grad(self, set_to_zero=True):
        """Zeroes the accumulated gradient (Paddle's default), or drops it with ``set_to_zero=False``.

        Example:
            >>> import oar as paddle
            >>> x = paddle.to_tensor([1., 2.], stop_gradient=False)
            >>> (x * x).sum().backward()
            >>> x.clear_grad()
            >>> x.grad.tolist()
            [0.0, 0.0]
            >>> x.clear_grad(set_to_zero=False)
            >>> x.grad is None
            True
        """
        m = mode()
        if m.static:  # a parameter's clear_grad() inside a to_static training step
            from ..core.capture import active
            if active() is not None:
                return active().clear_grad([self], set_to_zero)
        g = self._grad
        if set_to_zero and g is not None:
            if m.hook is not None:  # a trace records (a lazy graph defers) the zeros as an op
                self._grad = registry.apply(registry.get_op("zeros_like"), [g])
                self._grad.stop_gradient = False
                return
            a = g._data
            if g._node is None and not g.stop_gradient and type(a) is np.ndarray:
                try:  # (cheaper than reading `a.flags.writeable` first)
                    a.fill(0)  # the leaf owns this buffer (the walk's copy or sum): zeroed in place, as Paddle
                except ValueError:  # a read-only array: not the walk's
                    pass
                else:
                    g._vc[0] += 1
                    return
            # (a gradient delivered by create_graph may be a graph value or shared with another leaf: new zeros)
            self._grad = Tensor(elementwise_kernels.zeros_like(a), stop_gradient=False)
        else:
            self._grad = None

    clear_gradient = clear_grad

    def gradient(self):
        """The accumulated gradient as a NumPy array, or None before any backward (Paddle 2.x; ``x.grad`` is the
        tensor form).

        Example:
            >>> import oar as paddle
            >>> x = paddle.to_tensor(5., stop_gradient=False)
            >>> paddle.pow(x, 4.0).backward()
            >>> float(x.gradient())
            500.0
        """
        return None if self._grad is None else to_host(self._grad._data)

    def register_hook(self, hook):
        """Calls ``hook(grad)`` when this tensor's gradient is computed; a non-None return replaces it."""
        if self.stop_gradient:
            raise RuntimeError("cannot register a hook on a tensor with stop_gradient=True")
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)

        class _Handle:
            def remove(_):
                if hook in self._hooks:
                    self._hooks.remove(hook)
        return _Handle()

    def detach(self):
        """A tensor sharing the memory (and in-place version) with no gradient history. While `to_static` traces,
        an op reading this tensor (so the program reads its value at each run, not the value at trace time)."""
        if mode().static:
            from ..ops.creation import assign
            out = assign(self)
            out.stop_gradient = True
            return out
        t = Tensor(self._data, True)
        self._vc[1] = True
        t._vc = self._vc
        return t

    def set_value(self, value):
        """Replaces the values in place (same shape); used by optimizers and state loading."""
        a = place_array(value._data if isinstance(value, Tensor) else value, device_of(self._data))
        if OBSERVE is not None:  # a trace binds the tensor before it changes (it replays or refuses the write)
            OBSERVE(self, "write", None)
        if list(a.shape) != list(self._data.shape):
            raise ValueError(f"set_value: shape {list(a.shape)} does not match the tensor's {self.shape}")
        if self._vc[1] and getattr(self._data.flags, "writeable", True):  # views share memory: write into it
            self._data[...] = a
        else:
            self._data = a.astype(self._data.dtype, copy=False)
        self._version += 1

    def _inplace(self, out, keep_dtype=True):
        """Makes `self` take the result `out` of an in-place op, keeping the tape consistent (and `self`'s dtype,
        unless `keep_dtype` is False, as for ``cast_``). Where views share the memory (Paddle's view semantics)
        the values are written into it, so every view sees them."""
        if OBSERVE is not None:  # a trace binds the tensor first; a lazy graph computes what reads it first
            OBSERVE(self, "write", None)
        if not self.stop_gradient and self._node is None and mode().grad_enabled:
            raise RuntimeError("a leaf tensor that requires grad (stop_gradient=False) cannot be changed in place; "
                               "use the out-of-place op or wrap the change in oar.no_grad()")
        old_data = self._data
        new = out._data.astype(old_data.dtype, copy=False) if keep_dtype and out._data.dtype != old_data.dtype \
            else out._data
        node = out._node
        through = self._vc[1] and new.shape == old_data.shape and new.dtype == old_data.dtype and \
            getattr(old_data.flags, "writeable", True)
        reads_self = node is not None and node.saved is not None and any(t is self for t in node.saved)
        if through:
            if reads_self:
                old_data = old_data.copy()  # the value the op read, for its gradient
            self._data[...] = new
        else:
            self._data = new
        self._version += 1
        if node is not None:
            prev = self._node
            i = prev.index(self) if prev is not None else None
            if prev is not None:  # `self` no longer stands for that op's output
                prev.replace_output(i, None)
            if reads_self:
                # the op's gradient reads the old value of `self`: give that value its own tensor (on the producer's
                # output slot), so the rule sees what the op saw
                old = Tensor._wrap(old_data)
                old.stop_gradient, old._node, old._version = self.stop_gradient, prev, self._version - 1
                node.saved = tuple(old if t is self else t for t in node.saved)
                if prev is not None:
                    prev.replace_output(i, old)
            node.replace_output(node.index(out), self)
            self._node, self.stop_gradient = node, False
        return self


class Parameter(Tensor):
    """A trainable Tensor owned by a Layer (``stop_gradient=False`` unless ``trainable=False``).

    Example:
        >>> p = oar.nn.Linear(2, 3).weight
        >>> isinstance(p, oar.Tensor), p.stop_gradient, p.shape
        (True, False, [2, 3])
    """

    __slots__ = ("trainable", "optimize_attr", "regularizer", "need_clip", "is_distributed", "do_model_average")

    @property
    def block(self):
        """The global block of the default main program, as Paddle's parameters report (initializers are called
        as ``init(param, param.block)``; eagerly they fill the parameter and ignore the block). Only Parameters
        have it: elsewhere in oar ``hasattr(x, "block")`` tells a static Variable from an eager Tensor."""
        return registry.STATIC.global_block()

    def __init__(self, data, name=None, trainable=True):
        device = mode_device()
        if device != "cpu":  # made on the current device, as Paddle's parameters are (`oar.set_device`)
            data = place_array(data, device)
        super().__init__(data, stop_gradient=not trainable, name=name)
        self.trainable = trainable
        self.persistable = True
        self.optimize_attr = {"learning_rate": 1.0}
        self.regularizer = None
        self.need_clip = True
        self.is_distributed = False
        self.do_model_average = None

    def __setattr__(self, key, value):
        object.__setattr__(self, key, value)
        if key == "trainable":
            object.__setattr__(self, "stop_gradient", not value)

    def __deepcopy__(self, memo):
        """A Parameter again (a deep-copied Layer keeps parameters, not buffers), with the same settings."""
        p = Parameter(self._data.copy(), trainable=self.trainable)
        for k in ("optimize_attr", "regularizer", "need_clip", "is_distributed", "do_model_average"):
            object.__setattr__(p, k, copy.deepcopy(getattr(self, k), memo))
        p.stop_gradient = self.stop_gradient
        return p

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


registry._bind_tensor(Tensor)


def _static_to_tensor(data, dtype, stop_gradient):
    """`to_tensor` of a static value (or a nested list holding some) while building a program: a copy."""
    from ..ops.creation import assign
    from ..ops.manipulation import stack
    from ..ops.math import cast
    if isinstance(data, (list, tuple)):
        data = stack([_static_to_tensor(v, dtype, stop_gradient) for v in data])
    elif not hasattr(data, "_static_value_error"):
        data = to_tensor(data, dtype)
    out = assign(data) if dtype is None or D.convert_dtype(dtype) is data.dtype else cast(data, dtype)
    out.stop_gradient = stop_gradient
    return out


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Makes a Tensor from a Python scalar, (nested) list, NumPy array or Tensor, on `place` (a `CPUPlace`,
    `CUDAPlace`, or 'cpu' / 'gpu' / 'gpu:N'; None: the device `oar.set_device` chose).

    Python floats become the default dtype (float32); integers int64; an explicit `dtype` wins.

    Example:
        >>> x = oar.to_tensor([[1, 2], [3, 4]], dtype='float32')
        >>> x.shape, x.dtype == oar.float32, x.stop_gradient
        ([2, 2], True, True)
        >>> oar.to_tensor(1.5).dtype == oar.float32, oar.to_tensor([1, 2]).dtype == oar.int64
        (True, True)
    """
    if mode().static:  # building a program: the value becomes a constant op
        from ..ops.creation import _static_const
        if hasattr(data, "_static_value_error") or isinstance(data, (list, tuple)) and \
                any(hasattr(v, "_static_value_error") for v in _flat(data)):
            return _static_to_tensor(data, dtype, stop_gradient)
        a = np.asarray(data._data if isinstance(data, Tensor) else data)
        if dtype is None and a.dtype == np.float64 and not isinstance(data, (np.ndarray, Tensor)):
            a = a.astype(D.default_float().np)
        out = _static_const(a, D.convert_dtype(dtype) if dtype is not None else D.convert_dtype(a.dtype))
        out.stop_gradient = stop_gradient
        return out
    if isinstance(data, Tensor):
        if OBSERVE is not None:
            OBSERVE(data, "numpy", data._data)
        a = data._data
    elif is_device_array(data):
        a = data
    elif hasattr(data, "_static_value_error"):
        data._static_value_error("to_tensor")
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(data)):
            if OBSERVE is not None:
                for v in _flat(data):
                    if isinstance(v, Tensor):
                        OBSERVE(v, "numpy", v._data)
            data = _unwrap_nested(data)
        a = np.array(data)
        if a.dtype == object:
            raise TypeError(f"to_tensor: cannot make a tensor from {type(data).__name__} with ragged or mixed data")
        if dtype is None:
            if a.dtype == np.float64 and not isinstance(data, np.ndarray):
                a = a.astype(D.default_float().np)
            elif a.dtype.kind == "i" and not isinstance(data, np.ndarray):
                a = a.astype(np.int64)
            elif a.dtype == np.complex128 and not isinstance(data, np.ndarray):
                a = a.astype(np.complex64)
            elif a.dtype.kind in "US":
                raise TypeError("to_tensor: strings are not supported")
            elif a.dtype == np.uint64 and not isinstance(data, np.ndarray):  # Python ints past int64's range
                raise OverflowError(f"to_tensor: integers beyond int64's range ({int(a.max())}); oar's widest "
                                    "integer dtype is int64")
    if dtype is not None:
        a = a.astype(D.np_dtype(dtype), copy=False)
    name = place_name(place)
    if name != device_of(a):
        a = place_array(a, name)  # a copy
    elif isinstance(data, Tensor) or a is data:
        a = a.copy()
    return Tensor(a, stop_gradient=stop_gradient)


def _flat(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _unwrap_nested(x):
    return [(_unwrap_nested(v) if isinstance(v, (list, tuple)) else (v._data if isinstance(v, Tensor) else v))
            for v in x]


def is_tensor(x):
    """True for an eager `Tensor` (and `Parameter`).

    Example:
        >>> oar.is_tensor(oar.ones([1])), oar.is_tensor(np.ones(1))
        (True, False)
    """
    return isinstance(x, Tensor)
