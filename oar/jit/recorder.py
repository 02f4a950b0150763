"""The recorder behind `oar.jit.trace` and `TracedLayer.trace`: while one is active in a thread, every eager op
that `oar.ops.registry.apply` runs in that thread (through the thread's `Mode.hook`) is also appended, as an
`Operator`, to a recording Program.

Each input Tensor is mapped, by identity, to the Variable that produced it (an earlier recorded op), to a feed
(the traced inputs) or, for a Tensor made outside the trace (a Parameter, a buffer, a constant), to a
persistable variable whose value is that live Tensor, kept in the recording's `Scope` as converted functions
keep theirs. Every conversion of a tensor's value to Python during the recording (`bool(t)`, `int(t)`,
`float(t)`, `t.item()`, `t.numpy()`, `t.tolist()`, `np.asarray(t)`, `to_tensor(t)`) is a `Guard`: the value it
gave and the user's line; the tensor becomes an extra output of the program so every later run can check that
the Python decision made on it still holds.

Example:
    >>> from oar.jit.recorder import Recorder
    >>> x = oar.to_tensor([1.0, -2.0])
    >>> with Recorder() as rec:
    ...     feed = rec.feed(x)
    ...     y = oar.nn.functional.relu(x) * 2.0
    ...     positive = bool(y.sum() > 0)
    >>> [op.type for op in rec.program.global_block().ops]
    ['relu', 'multiply', 'sum', 'greater_than']
    >>> [(g.kind, g.value) for g in rec.guards]
    [('bool', True)]
"""
import threading

import numpy as np

from ..core.state import mode, own_mode
from ..eager import tensor as eager_tensor
from ..graph.builder import as_var, program_guard, static_mode, user_location
from ..graph.cursor import BUILDER
from ..graph.program import Program
from ..graph.scope import Scope
from ..ops import registry

_ACTIVE = {}           # thread id -> stack of the Recorders active in that thread (the innermost records)
_LOCK = threading.Lock()


class TraceError(RuntimeError):
    """The traced code does something a recorded program cannot replay (it would be silently wrong)."""


class Guard:
    """One Python decision made on a tensor's value while tracing: `kind` ("bool", "int", "float", "index",
    "item", "numpy", "shape"), the `value` it gave, the program variable holding the tensor (`name`) and the
    user's (file, line, text) `loc`."""

    __slots__ = ("name", "kind", "value", "loc")

    def __init__(self, name, kind, value, loc):
        self.name, self.kind, self.value, self.loc = name, kind, value, loc

    def holds(self, array):
        """Whether the same decision follows from `array`, the tensor's value in a later run."""
        a, k, v = np.asarray(array), self.kind, self.value
        if k in ("numpy", "shape"):
            return a.shape == v.shape and bool(np.array_equal(a, v, equal_nan=a.dtype.kind in "fc"))
        if a.size != 1:
            return False
        x = a.reshape(()).item()
        if k == "bool":
            return bool(x) == v
        if k in ("int", "index"):
            return int(x) == v
        return x == v or (x != x and v != v)  # float / item: the same number (NaN counts as equal)

    def where(self):
        if self.loc is None:
            return "an unknown line"
        return f"{self.loc[0]}:{self.loc[1]} ({self.loc[2]})"

    def describe(self, array=None):
        what = {"numpy": "the values read by numpy()/tolist()", "shape": "the data-dependent shape"}.get(
            self.kind, f"{self.kind}() of a tensor")
        got = "" if array is None else f"; now {_short(array, self.kind)}"
        return f"{what} at {self.where()} was {_short(self.value, self.kind)} when traced{got}"


def _short(value, kind):
    if kind in ("numpy", "shape"):
        a = np.asarray(value)
        return f"array{list(a.shape)} {np.array2string(a.reshape(-1)[:6], separator=', ')}" \
            f"{'...' if a.size > 6 else ''}"
    if kind not in ("bool", "int", "float", "index", "item"):
        return repr(value)
    a = np.asarray(value)
    return repr(a.reshape(()).item()) if a.size == 1 else repr(value)


class Recorder:
    """Records this thread's eager ops into `program` while active (a context manager). See the module doc."""

    def __init__(self):
        self.program = Program()
        self.scope = Scope()
        self.guards = []
        self.feeds = []           # feed Variables, in order
        self._thread = None
        self._vars = {}           # id(tensor) -> (tensor, array, version, Variable)
        self._arrays = {}         # id(array) -> (array, version counter, version, Variable): outputs by array
        self._bound = []          # [tensor, version, grad, array, Variable] of the tensors read from outside
        self._feed_tensors = []   # (tensor, version, grad)
        self.host_values = []     # (tensor or None, fn): host work per run, in order: ``tensor._data = fn()``
        self.grad_effects = []    # GradEffect: how a run leaves the .grad of a tensor read from outside
        self.written = []         # tensors read from outside that the program writes (replayed writes)

    # ---- activation -------------------------------------------------------------------------------------------
    def __enter__(self):
        self._thread = threading.get_ident()
        push_active(self)
        m = own_mode()
        self._prev_hook, m.hook = m.hook, _on_op
        return self

    def __exit__(self, *exc):
        own_mode().hook = self._prev_hook
        pop_active(self)
        if exc[0] is None:
            self._replay_writes()
            self._replay_grads()
            self._check_untouched()
        return False

    def host_value(self, t, fn):
        """Tensor `t` (read by the recorded ops) holds host state (an optimizer's learning rate): before every run
        of the program, ``t._data = fn()``, in order with the host steps."""
        self.var_of(t)
        self.host_values.append((t, fn))

    def host_step(self, fn):
        """Host work the traced code did (an LR scheduler's step): ``fn()`` runs before every run of the program,
        in order with the host values (a learning rate read before the scheduler stepped keeps its old value)."""
        self.host_values.append((None, fn))

    # ---- building ---------------------------------------------------------------------------------------------
    def feed(self, t, name=None):
        """Makes Tensor `t` an input of the program: a feed Variable of its shape and dtype."""
        gb = self.program.global_block()
        name = name or self.program.unique_name("x")
        v = gb.create_var(name, list(t.shape), t.dtype, stop_gradient=t.stop_gradient, is_data=True)
        self.feeds.append(v)
        self._bind(t, v)
        self._feed_tensors.append((t, t._version, _grad_state(t)))
        return v

    def _bind(self, t, v):
        self._vars[id(t)] = (t, t._data, t._vc[0], v)
        self._arrays[id(t._data)] = (t._data, t._vc, t._vc[0], v)

    def var_of(self, t):
        """The Variable holding Tensor `t`'s value in the program (outside ones become persistable)."""
        e = self._vars.get(id(t))
        if e is not None and e[0] is t and e[1] is t._data and e[2] == t._vc[0]:
            return e[3]
        a = self._arrays.get(id(t._data))
        if a is not None and a[0] is t._data and a[2] == a[1][0]:  # a detached alias or an in-place result
            self._vars[id(t)] = (t, t._data, t._vc[0], a[3])
            return a[3]
        if e is not None and e[0] is t or a is not None and a[0] is t._data:
            raise TraceError(f"a tensor of shape {t.shape} was changed in place in a way the trace cannot follow "
                             f"(written through a view, or cast in place) at {_where()}; write it out of place "
                             "(y = op(x)) in traced code")
        with self._building():
            v = as_var(self.program.global_block(), t)
        self._vars[id(t)] = (t, t._data, t._vc[0], v)
        self._bound.append([t, t._vc[0], _grad_state(t), t._data, v])
        return v

    def _building(self):
        return _Building(self.program, self.scope)

    def record(self, op, inputs, attrs, result):
        in_vars = [self.var_of(t) for t in inputs]
        with self._building():
            outs = registry.STATIC.append_op(op, in_vars, attrs)
        res = result if op.multi_out else (result,)
        out_vars = outs if op.multi_out else (outs,)
        for t, v in zip(res, out_vars):
            self._bind(t, v)
            if any(d < 0 for d in v.shape):  # a data-dependent shape: Python may read it, so it is guarded
                self._guard_shape(t, v)

    def _guard_shape(self, t, v):
        with self._building():
            s = registry.STATIC.append_op(registry.get_op("shape"), [v], {})
        self.guards.append(Guard(s.name, "shape", np.asarray(t.shape, np.int64), user_location()))

    def observe(self, t, kind, array):
        v = self.var_of(t)
        if kind == "write":  # `t.set_value(...)`: bound now, so the end of the trace replays or refuses it
            return
        value = np.array(array, copy=True) if kind == "numpy" else \
            (bool(array) if kind == "bool" else int(array.reshape(()).item()) if kind in ("int", "index")
             else array.reshape(()).item())
        self.guards.append(Guard(v.name, kind, value, user_location()))

    def _replay_writes(self):
        """A tensor read from outside whose array was replaced by the result of a recorded op (BatchNorm's running
        statistics in train mode): the program writes that result into its persistable variable, at the end."""
        for b in self._bound:
            t, ver, _, data, v = b
            if t._data is data:
                continue
            a = self._arrays.get(id(t._data))
            if a is None or a[0] is not t._data or a[2] != a[1][0] or a[3] is v:
                continue
            with self._building():
                registry.STATIC.assign_into(a[3], t)
            b[1], b[3] = t._vc[0], t._data
            self.written.append(t)

    def _replay_grads(self):
        """`loss.backward()`, `clear_grad()` inside the trace: the `.grad` of each tensor read from outside ends as
        the trace left it on every run. A gradient kept (the same tensor) gets its value by a replayed write (an
        accumulation, a zeroing); a new one is an extra output of the program; a cleared one is set to None. Each
        run first checks that the `.grad` is the one the trace started from (None, or that tensor)."""
        for b in self._bound:
            t, before = b[0], b[2]
            if not _grad_changed(t, before):
                continue
            g, name = t._grad, None
            if g is not None and g is before[0]:  # its new value: a replayed write (`_check_untouched` checks)
                if not any(x[0] is g for x in self._bound) and (g._vc[0] != before[1] or g._data is not before[2]):
                    raise TraceError(f"the traced code changes the .grad of '{t.name}' (shape {t.shape}) in a way "
                                     f"the trace cannot follow (written outside the op dispatch) at {_where()}")
            elif g is not None:
                name = self._produced(g, f"the new .grad of '{t.name}' (shape {t.shape})").name
            self.grad_effects.append(GradEffect(t, before[0], g is not None, name))
            b[2] = _grad_state(t)

    def _produced(self, t, what):
        """The Variable of Tensor `t`, which must be the result of a recorded op."""
        e = self._vars.get(id(t))
        if e is not None and e[0] is t and e[1] is t._data and e[2] == t._vc[0] and not e[3].persistable:
            return e[3]
        a = self._arrays.get(id(t._data))
        if a is not None and a[0] is t._data and a[2] == a[1][0]:
            return a[3]
        raise TraceError(f"{what} was not computed by ops the trace recorded, so a replay cannot reproduce it")

    def _check_untouched(self):
        """Inputs and outside tensors must not change except through recorded ops: a program cannot replay an
        optimizer step, an in-place write into an argument, or a gradient written to `.grad`."""
        for t, ver, grad in self._feed_tensors:
            if t._vc[0] != ver:
                raise TraceError(f"the traced code changes its input of shape {t.shape} in place; the program "
                                 "cannot replay writes into its arguments: compute a new tensor instead")
            if _grad_changed(t, grad):
                raise TraceError(f"the traced code changes the .grad of its input of shape {t.shape} "
                                 "(backward() inside the trace reaches an argument); a traced program replays "
                                 "gradients into the tensors it reads from outside (parameters), not into its "
                                 "arguments: mark the argument stop_gradient=True, or return its gradient")
        for t, ver, grad, data, _ in self._bound:
            if t._vc[0] != ver or _grad_changed(t, grad) or t._data is not data:
                what = "its .grad (loss.backward() inside the trace)" if _grad_changed(t, grad) else "its value"
                raise TraceError(
                    f"the traced code changes {what} of the tensor '{t.name}' (shape {t.shape}) that it reads from "
                    "outside; a traced program replays only the ops that compute its outputs. Trace the forward "
                    "(and call backward()/optimizer.step() on the traced outputs), or capture the whole training "
                    "step with oar.jit.to_static")


class GradEffect:
    """How a run of a traced program leaves ``tensor.grad``: it must be `before` (None or that Tensor) when the run
    starts; afterwards it is None (`kept` False), the same tensor with a replayed value (`name` None), or a new
    tensor holding the program's output `name`."""

    __slots__ = ("tensor", "before", "kept", "name")

    def __init__(self, tensor, before, kept, name):
        self.tensor, self.before, self.kept, self.name = tensor, before, kept, name

    def holds(self):
        return self.tensor._grad is self.before

    def describe(self, now=None):
        """`now`: the tensor's `.grad` at the call that found it changed."""
        was = "None" if self.before is None else "the gradient tensor it had then"
        got = "None" if now is None else "another tensor"
        return f"the .grad of '{self.tensor.name}' was {was} when traced; now {got}"

    def apply(self, value):
        """After a run: `value` is the program's output `name` (when it has one)."""
        if not self.kept:
            self.tensor._grad = None
        elif self.name is not None:
            g = eager_tensor.Tensor._wrap(value._data)
            g.stop_gradient = False
            self.tensor._grad = g


def _grad_state(t):
    """What tells whether `t.grad` changed: the gradient tensor, its version and its array (backward accumulates
    into an existing gradient in place)."""
    g = t._grad
    return (None, None, None) if g is None else (g, g._vc[0], g._data)


def _grad_changed(t, state):
    g, ver, data = state
    return t._grad is not g or g is not None and (g._vc[0] != ver or g._data is not data)


class _Building:
    """Static building into `program` (ops go there, outside tensors to `scope`)."""

    def __init__(self, program, scope=None):
        self.program, self.scope = program, scope
        self._ctx = []

    def __enter__(self):
        p = self.program
        self._ctx = [program_guard(p), static_mode(True)]
        if self.scope is not None:
            self._ctx.append(BUILDER.binding(p, self.scope))
        for c in self._ctx:
            c.__enter__()

    def __exit__(self, *exc):
        for c in reversed(self._ctx):
            c.__exit__(*exc)
        return False


def active():
    """The recorder of this thread (the innermost), or None."""
    st = _ACTIVE.get(threading.get_ident())
    return st[-1] if st and isinstance(st[-1], Recorder) else None


def push_active(obj):
    """Makes `obj` (a Recorder or a lazy graph) this thread's innermost observer of tensor conversions and
    in-place writes (``obj.observe(tensor, kind, array)``)."""
    with _LOCK:
        _ACTIVE.setdefault(threading.get_ident(), []).append(obj)
        eager_tensor.set_observer(_on_observe)


def pop_active(obj):
    with _LOCK:
        tid = threading.get_ident()
        stack = _ACTIVE[tid]
        stack.remove(obj)
        if not stack:
            del _ACTIVE[tid]
        if not _ACTIVE:
            eager_tensor.set_observer(None)


def _where():
    loc = user_location()
    return "an unknown line" if loc is None else f"{loc[0]}:{loc[1]} ({loc[2]})"


def _on_op(op, inputs, attrs):
    """The thread's `Mode.hook` while it records: runs the op eagerly (the hook off), then records it."""
    m = mode()
    if m.owner != threading.get_ident():  # modes copied into another thread (copy_context): not this trace's
        own_mode()                          # that thread's own modes, without the hook
        return registry.apply(op, inputs, attrs)
    hook, m.hook = m.hook, None
    try:
        result = registry.apply(op, inputs, attrs)
    finally:
        m.hook = hook
    rec = active()
    if rec is not None:
        rec.record(op, inputs, attrs, result)
    return result


def _on_observe(t, kind, array):
    st = _ACTIVE.get(threading.get_ident())
    if st:
        st[-1].observe(t, kind, array)
