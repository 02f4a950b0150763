"""Scopes: where persistable variables (parameters, optimizer state) live between Executor runs."""
import contextlib
import threading

import numpy as np

from ..core.devices import is_device_array, place_array, to_host
from ..core.state import place_name


class _TensorView:
    """Paddle's ``scope.find_var(name).get_tensor()`` handle: read with ``np.array(t)``, write with ``t.set(a)``."""

    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def __array__(self, dtype=None, copy=None):
        a = value_of(self._scope.vars[self._name])
        a = to_host(a) if is_device_array(a) else a  # a host copy of a value on a GPU
        return a if dtype is None else a.astype(dtype)

    def set(self, value, place=None):
        """Stores a copy of `value` (an array or Tensor) on `place` (default: the host)."""
        a = getattr(value, "_data", value)
        a = to_host(a) if is_device_array(a) else np.array(a)
        self._scope.set(self._name, a if place is None else place_array(a, place_name(place)))

    def shape(self):
        return list(value_of(self._scope.vars[self._name]).shape)

    def _dtype(self):
        return value_of(self._scope.vars[self._name]).dtype


class _ScopeVar:
    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return _TensorView(self._scope, self._name)


def value_of(v):
    """The array a scope entry holds now: an ndarray as it is, a live eager Tensor's current ``_data``."""
    d = getattr(v, "_data", None)
    return v if d is None else d


class Scope:
    """The values of a program's persistable variables (parameters, buffers, optimizer state), by name: the one
    place they live. Programs hold none; whoever runs a compiled plan passes the scope it reads and writes
    (`Executor.run(scope=...)`, a converted function's or loaded model's own scope, a predictor's).

    A value is an ndarray, or a live eager Tensor: a converted layer's parameters stay the Layer's own
    Tensors, so eager optimizers and schedulers that replace ``t._data`` are seen by the next run, and the
    plan's writes (batch-norm statistics, optimizer updates) land in ``t._data``.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([2, 2], 'float32', name='w_scope',
        ...                                     default_initializer=oar.nn.initializer.Constant(0.5))
        >>> oar.disable_static()
        >>> exe = oar.static.Executor()
        >>> scope = oar.static.Scope()
        >>> with oar.static.scope_guard(scope):
        ...     _ = exe.run(startup)
        >>> np.array(scope.find_var('w_scope').get_tensor()).tolist()
        [[0.5, 0.5], [0.5, 0.5]]
    """

    def __init__(self, values=None):
        self.vars = dict(values or {})

    def set(self, name, value):
        """Stores `value` under `name`; a live Tensor held there keeps its identity and takes the new array."""
        held = self.vars.get(name)
        if held is not None and getattr(held, "_data", None) is not None and getattr(value, "_data", None) is None:
            held._data = value
            held._version += 1
        else:
            self.vars[name] = value

    def array(self, name):
        """The current ndarray of `name` (None when the scope has no value for it)."""
        v = self.vars.get(name)
        return None if v is None else value_of(v)

    def find_var(self, name):
        return _ScopeVar(self, name) if name in self.vars else None

    def var(self, name):
        self.vars.setdefault(name, np.zeros((0,), np.float32))
        return _ScopeVar(self, name)

    def get(self, name, default=None):
        return self.vars.get(name, default)

    def __contains__(self, name):
        return name in self.vars

    def local_var_names(self):
        return list(self.vars)

    def drop_kids(self):
        pass


_GLOBAL = [Scope()]  # the process-wide scope


class _Guards(threading.local):
    def __init__(self):
        self.stack = []  # this thread's scope_guard scopes, innermost last


_GUARDS = _Guards()


def global_scope():
    """The scope `Executor.run` uses when none is given.

    Example:
        >>> scope = oar.static.global_scope()
        >>> isinstance(scope, oar.static.Scope)
        True
    """
    stack = _GUARDS.stack
    return stack[-1] if stack else _GLOBAL[-1]


@contextlib.contextmanager
def scope_guard(scope):
    """Makes `scope` the global scope inside the block, for the calling thread only.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([2], 'float32', name='w_sg')
        >>> oar.disable_static()
        >>> scope = oar.static.Scope()
        >>> with oar.static.scope_guard(scope):
        ...     _ = oar.static.Executor().run(startup)
        >>> scope.find_var('w_sg') is not None, oar.static.global_scope() is scope
        (True, False)
    """
    stack = _GUARDS.stack  # per thread: another thread's guard never changes this thread's scope
    stack.append(scope)
    try:
        yield
    finally:
        stack.pop()
