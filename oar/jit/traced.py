"""Tracing: `oar.jit.trace` (MegEngine's ``@trace``) and `TracedLayer` (Paddle 2.x's ``paddle.jit.TracedLayer``)
turn eager code into an oar Program by recording the ops one run executes (`recorder.Recorder`), not by reading
the source: lambdas made at run time, functions defined under ``exec`` and callbacks without source trace too.

Python control flow is baked in as the trace took it, so it is guarded: each tensor -> Python conversion the
trace saw (``bool(t)``, ``int(t)``, ``float(t)``, ``t.item()``, ``t.numpy()``, ``t.tolist()``, a data-dependent
shape) is an extra output of the program, checked on every call. A changed decision retraces
(``on_change="retrace"``, the default) or raises naming the user's line (``on_change="raise"``): never a silently
wrong program. The programs are ordinary `ConcreteProgram`s: run by `ProgramRunner` (differentiable), optimized
by the build strategy's passes, saved by `oar.jit.save`, run by the predictor and `oar.lite`, exported to ONNX.
Design and limits: docs/tracing.md.

Example:
    >>> net = oar.nn.Linear(3, 2)
    >>> fast = oar.jit.trace(lambda x: oar.nn.functional.relu(net(x)))
    >>> x = oar.ones([4, 3])
    >>> a = fast(x)                     # traced: runs eagerly, recording
    >>> b = fast(x)                     # runs the recorded program
    >>> bool((a == b).all()), fast.num_traces
    (True, 1)
"""
import numpy as np

from ..core.state import STATE, get_rng_state, mode, no_grad, set_rng_state
from ..eager.tensor import Tensor
from ..graph import pytree
from ..graph.program import Program
from . import log
from .concrete import ConcreteProgram
from .recorder import Recorder, TraceError, active
from .runner import ProgramRunner
from .static_function import CHECK_CALLS, compare_outputs

ON_CHANGE = ("retrace", "raise")


class TraceGuardError(TraceError):
    """A Python decision baked into a traced program no longer holds (``on_change="raise"``, or a TracedLayer).

    Example:
        >>> f = oar.jit.trace(lambda x: x if x.item() > 0 else -x, on_change="raise")
        >>> f(oar.to_tensor(1.0)).item()
        1.0
        >>> try:
        ...     f(oar.to_tensor(-2.0))
        ... except oar.jit.TraceGuardError as e:
        ...     print("item() of a tensor" in str(e), "was 1.0 when traced; now -2.0" in str(e))
        True True
    """


class Trace:
    """One recorded program of a function: `concrete` (a ConcreteProgram with the function's outputs, what
    `jit.save` and ONNX export take), `guards` (the Python decisions it assumes) and the runner that runs it
    with the guarded values as extra outputs."""

    def __init__(self, rec, out_leaves, out_tree, name, training, build_strategy=None):
        self.guards = rec.guards
        self.grad_effects, self.host_values, self.written = rec.grad_effects, rec.host_values, rec.written
        outs = [v for v in out_leaves if _is_var(v)]
        self.n_out = len(outs)
        startup = Program()
        self.concrete = ConcreteProgram(rec.program, startup, list(rec.feeds), outs, out_tree, out_leaves, name,
                                        training, rec.scope)
        gb = rec.program.global_block()
        gvars = [gb.var(g.name) for g in self.guards]
        self._grads = [e for e in self.grad_effects if e.name is not None]
        evars = [gb.var(e.name) for e in self._grads]
        # the program actually run: the outputs, each guarded value, then each new .grad (kept by the passes)
        extra = outs + gvars + evars
        # a training step (backward ran inside) gets the build strategy's training passes: none that bakes
        # parameter values in (constant folding), which its own updates change on every run
        self._run = ConcreteProgram(rec.program, startup, list(rec.feeds), extra, "*", extra, name,
                                    training or bool(self.grad_effects), rec.scope)
        self._feed_names, self._fetch = [v.name for v in rec.feeds], [v.name for v in extra]
        if build_strategy is not None:
            self._run.apply_build_strategy(build_strategy)
        self._make_runner()

    def set_build_strategy(self, build_strategy):
        """Runs the passes `build_strategy` selects on the program that later calls run (in place of earlier ones)."""
        self._run.run_program, self._run.passes = self._run.main_program, []
        self._run.apply_build_strategy(build_strategy)
        self._make_runner()

    def _make_runner(self):
        self._plan = self.runner = None
        if self.grad_effects:
            # a training step (backward ran inside): the captured step's pass pipeline and one compiled plan, run
            # without the differentiable eager op (its outputs need no gradient: as the captured step's)
            from ..graph.executor import compile_program
            from ..passes import apply_passes
            from .train_step import train_passes
            self._run.run_program = apply_passes(self._run.run_program, train_passes(), keep=self._fetch,
                                                 scope=self._run.run_scope)
            self._run.passes = list(self._run.passes) + list(train_passes())
            self._plan = compile_program(self._run.run_program, self._feed_names, self._fetch)
        else:
            self.runner = ProgramRunner(self._run.run_program, self._feed_names, self._fetch,
                                        scope=self._run.run_scope)

    @property
    def program(self):
        return self.concrete.main_program

    def run(self, tensors):
        """(outputs, None, None) or (None, broken guard, its new value). A `.grad` that is not the one the trace
        started from breaks before the run (nothing is written); a guarded value, after it (the caller undoes
        the run's random draws and traces again, or raises)."""
        for e in self.grad_effects:
            if not e.holds():
                return None, e, e.tensor._grad
        for t, fn in self.host_values:
            v = fn()
            if t is not None:
                t._data = v
        # a broken guard drops the run: what it wrote into outside tensors (a training step's parameters) is undone
        saved = [(t, t._data.copy(), t._vc[0]) for t in self.written] if self.guards else ()
        if self._plan is not None:
            vals = [Tensor(a) for a in self._plan.run_trusted([t._data for t in tensors], self._run.run_scope)]
        else:
            vals = self.runner(*tensors)
        n_guard = self.n_out + len(self.guards)
        for g, v in zip(self.guards, vals[self.n_out:n_guard]):
            if not g.holds(v._data):
                for t, a, ver in saved:
                    t._data, t._vc[0] = a, ver
                return None, g, v._data
        for e in self.grad_effects:
            if e.name is None:
                e.apply(None)
        for e, v in zip(self._grads, vals[n_guard:]):
            e.apply(v)
        return self.concrete.pack(vals[:self.n_out]), None, None


def _is_var(v):
    from ..graph.variable import Variable
    return isinstance(v, Variable)


def record(fn, args, kwargs, name, training=False, build_strategy=None):
    """Runs ``fn(*args, **kwargs)`` eagerly while recording it; returns (its outputs, the `Trace`)."""
    leaves, _ = pytree.flatten((list(args), dict(kwargs)))
    rec = Recorder()
    with rec:
        for i, t in enumerate(leaves):
            if isinstance(t, Tensor):
                rec.feed(t, f"x{i}" if len(leaves) > 1 else "x")
        out = fn(*args, **kwargs)
        out_leaves, out_tree = pytree.flatten(out)
        if out_tree == "*" and not isinstance(out, Tensor):
            raise TraceError(f"trace: '{name}' returns {type(out).__name__}, not tensors; a traced function must "
                             "return a Tensor or (nested lists/tuples/dicts of) Tensors")
        mapped = [rec.var_of(v) if isinstance(v, Tensor) else v for v in out_leaves]
    return out, Trace(rec, mapped, out_tree, name, training, build_strategy)


def signature(args, kwargs, training=None):
    """The cache key of a call: tensor shapes, dtypes and stop_gradient, Python values, structure, modes."""
    leaves, tree = pytree.flatten((list(args), dict(kwargs)))
    key = []
    for v in leaves:
        if isinstance(v, Tensor):
            key.append(("t", tuple(v.shape), v.dtype.name, v.stop_gradient))
        else:
            try:
                hash(v)
                key.append(("py", type(v).__name__, v))
            except TypeError:
                key.append(("py-id", id(v)))
    return tuple(key) + (repr(tree), training, STATE.amp is not None)


def _fast_signature(args, training):
    """The cache key of a call whose arguments are all plain Tensors (the hot path of a training loop), else None.
    Its keys never equal `signature`'s (a different first element), so each call shape has one key."""
    key = ["tensors", training, STATE.amp is not None]
    for a in args:
        if type(a) is not Tensor:
            return None
        key.append((a._data.shape, a.dtype, a.stop_gradient))
    return tuple(key)


def _tensors(args, kwargs):
    leaves, _ = pytree.flatten((list(args), dict(kwargs)))
    return [v for v in leaves if isinstance(v, Tensor)]


class TracedFunction:
    """What `oar.jit.trace` returns: call it like the function. The first call with a new signature runs the
    function eagerly and records it; later calls run the recorded program and check its guards.

    Attributes:
        num_traces: how many times the function was traced (a signature seen for the first time, or a guard
            that no longer held); retrace_reasons: why each retrace happened. concrete_program: the latest
            program's ConcreteProgram; program: its Program; guards: its guards.

    Example:
        >>> f = oar.jit.trace(lambda x: x * 2 if x.sum() > 0 else -x)
        >>> f(oar.ones([2])).numpy().tolist(), f(-oar.ones([2])).numpy().tolist()
        ([2.0, 2.0], [1.0, 1.0])
        >>> f.num_traces, [g.kind for g in f.guards]
        (2, ['bool'])
    """

    def __init__(self, fn, on_change="retrace", check=False, build_strategy=None, layer=None):
        if on_change not in ON_CHANGE:
            raise ValueError(f"trace: on_change must be one of {ON_CHANGE}, got {on_change!r}")
        self._fn, self._layer = fn, layer
        self.on_change, self._check, self._build_strategy = on_change, bool(check), build_strategy
        self._checks_left = CHECK_CALLS
        self._traces = {}
        self._last = None
        self.num_traces = 0
        self.retrace_reasons = []
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def __repr__(self):
        return f"<oar.jit.trace of {self.__name__}: {self.num_traces} trace(s)>"

    @property
    def concrete_program(self):
        if self._last is None:
            raise ValueError(f"trace: '{self.__name__}' was never called, so nothing was traced yet")
        return self._last.concrete

    @property
    def program(self):
        return self.concrete_program.main_program

    @property
    def guards(self):
        return [] if self._last is None else list(self._last.guards)

    def __call__(self, *args, **kwargs):
        if mode().static or active() is not None:  # inside a program being built, or another trace: inline
            return self._fn(*args, **kwargs)
        training = self._layer.training if self._layer is not None else None
        key = _fast_signature(args, training) if not kwargs else None
        if key is None:
            key = signature(args, kwargs, training)
            tensors = None
        else:
            tensors = args
        tr = self._traces.get(key)
        if tr is None:
            return self._trace(key, args, kwargs, training)
        self._last = tr
        if tensors is None:
            tensors = _tensors(args, kwargs)
        expected = None
        if self._check and self._checks_left > 0:
            self._checks_left -= 1
            expected = _eager_beside(self._fn, tr, args, kwargs)
        state = get_rng_state()
        out, broken, now = tr.run(tensors)
        if broken is not None:
            msg = f"trace of '{self.__name__}': {broken.describe(now)}"
            if self.on_change == "raise":
                raise TraceGuardError(msg + "; the traced program took the other way there. Pass "
                                      "on_change='retrace' to trace again, or make the decision with tensor ops")
            set_rng_state(state)  # the program's random draws are undone: the eager retrace draws them
            self.retrace_reasons.append(msg)
            log.info(1, msg + ": tracing again")
            return self._trace(key, args, kwargs, training)
        if expected is not None:
            compare_outputs("trace", self.__name__, expected[0], out, "traced")
            targets = [(t, True) for t in tr.written] + [(e.tensor, False) for e in tr.grad_effects]
            for (t, value), want in zip(targets, expected[1]):
                got = t._data if value else (None if t._grad is None else t._grad._data)
                if (got is None) != (want is None) or want is not None and not np.allclose(
                        got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
                    what = "value" if value else ".grad"
                    raise AssertionError(f"trace check: after a call of '{self.__name__}', the {what} of '{t.name}' "
                                         "differs between the eager and traced runs")
        return out

    def _trace(self, key, args, kwargs, training):
        out, tr = record(self._fn, args, kwargs, self.__name__, bool(training), self._build_strategy)
        self._traces[key] = self._last = tr
        self.num_traces += 1
        return out


def _eager_beside(fn, tr, args, kwargs):
    """Check mode: ``fn`` run eagerly with the random state the program will use; returns (its outputs, the values
    it leaves in the tensors the program writes and the .grads it sets). A training step's eager run is undone
    (parameters, accumulators, gradients restored) so that only the program's run counts."""
    state = get_rng_state()
    if not tr.written and not tr.grad_effects:
        with no_grad():
            out = fn(*args, **kwargs)
        set_rng_state(state)
        return out, []
    saved = [(t, t._data.copy(), t._vc[0]) for t in tr.written]
    grads = [(e.tensor, e.tensor._grad, None if e.tensor._grad is None else e.tensor._grad._data.copy())
             for e in tr.grad_effects]
    out = fn(*args, **kwargs)
    after = [t._data.copy() for t in tr.written] + [None if t._grad is None else t._grad._data.copy()
                                                    for t, _, _ in grads]
    for t, a, ver in saved:
        t._data, t._vc[0] = a, ver
    for t, g, a in grads:
        t._grad = g
        if g is not None:
            g._data = a
    set_rng_state(state)
    return out, after


def trace(fn=None, on_change="retrace", check=False, build_strategy=None):
    """Traces eager code into a program by recording the ops one call runs (MegEngine's ``@trace``); usable as
    ``@trace``, ``@trace(on_change="raise")`` or ``trace(fn)``.

    Args:
        fn: a function or an `oar.nn.Layer` (its source is never read).
        on_change: what a call does when a Python decision baked into the trace (a ``bool(t)``, ``t.item()``,
            ``t.numpy()``, ... made during the trace) comes out differently: ``"retrace"`` runs the function
            eagerly again and records a new program; ``"raise"`` raises `TraceGuardError` naming the line.
        check: for the first calls that run the program, also run the function eagerly and raise
            AssertionError on a difference (as ``to_static(check=True)``).
        build_strategy: an `oar.static.BuildStrategy` whose passes the traced program goes through.

    Example:
        >>> @oar.jit.trace(on_change="raise")
        ... def f(x):
        ...     return x * 2 if x.sum() > 0 else -x
        >>> f(oar.ones([2])).numpy().tolist()
        [2.0, 2.0]
        >>> f(oar.full([2], 3.0)).numpy().tolist()
        [6.0, 6.0]
    """
    if fn is None:
        return lambda f: trace(f, on_change, check, build_strategy)
    from ..nn.layer import Layer
    if isinstance(fn, Layer):
        return TracedFunction(fn, on_change, check, build_strategy, layer=fn)
    return TracedFunction(fn, on_change, check, build_strategy)


def traced_concrete(obj):
    """(ConcreteProgram, Layer or None) of a traced function or TracedLayer, else None (for jit.save, ONNX)."""
    if isinstance(obj, TracedFunction):
        return obj.concrete_program, obj._layer
    from .traced_layer import TracedLayer
    if isinstance(obj, TracedLayer):
        return obj._trace.concrete, obj._layer
    return None
