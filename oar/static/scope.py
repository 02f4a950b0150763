"""Scopes: where persistable variables (parameters, optimizer state) live between Executor runs."""
import contextlib
import threading

import numpy as np


class _TensorView:
    """Paddle's ``scope.find_var(name).get_tensor()`` handle: read with ``np.array(t)``, write with ``t.set(a)``."""

    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def __array__(self, dtype=None, copy=None):
        a = self._scope.vars[self._name]
        return a if dtype is None else a.astype(dtype)

    def set(self, value, place=None):
        self._scope.vars[self._name] = np.array(getattr(value, "_data", value))

    def shape(self):
        return list(self._scope.vars[self._name].shape)

    def _dtype(self):
        return self._scope.vars[self._name].dtype


class _ScopeVar:
    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return _TensorView(self._scope, self._name)


class Scope:
    """A name -> ndarray table.

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

    def __init__(self):
        self.vars = {}

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
