"""Lazy mode (`oar.lazy()`, ``oar.set_flags({'FLAGS_lazy': True})``): eager ops are recorded into a pending
graph instead of running; observing a value compiles the graph with the executor (after the fusion and dead-code
passes) and runs it. Identical pending graphs hit a plan cache keyed by their structure, so a loop of
fixed-shape steps compiles once.

A pending result is a `LazyTensor`: its shape, dtype and gradient bookkeeping are known at once; its ``_data``
(the array) is a property that runs the pending graph first, so every read of the value (``numpy()``,
``item()``, ``print``, ``bool()``, a kernel of an op that runs eagerly, the optimizer's update) sees exactly what
eager mode computes. Leaving the context, `max_ops` recorded ops, and an in-place write (`x.add_(y)`,
``set_value``) also run it. Autograd works through lazy values: the tape records `Node`s on them, and the
gradient rules' ops are recorded lazily too. Design and limits: docs/tracing.md ("Lazy mode").

Example:
    >>> x = oar.to_tensor([1.0, -2.0])
    >>> with oar.lazy():
    ...     y = oar.nn.functional.relu(x) * 3.0
    ...     pending = y.is_pending()
    ...     print(y.numpy().tolist())       # observing the value runs the graph
    [3.0, 0.0]
    >>> pending, y.is_pending()
    (True, False)
"""
import contextlib
import threading
import weakref

import numpy as np

from ..core import dtype as D
from ..core.state import mode, own_mode
from ..eager.tensor import Tensor
from ..graph.executor import compile_program
from ..graph.program import Program
from ..ops import registry
from .recorder import pop_active, push_active, _Building
from .static_function import CHECK_CALLS

_SLOT = Tensor.__dict__["_data"]   # the `_data` slot of Tensor: where a LazyTensor keeps its array once computed
LAZY_PASSES = ("fuse_elewise_add_act", "dead_code_elimination")
MAX_OPS = 512
_DIFFERENTIABLE = registry._DIFFERENTIABLE


class LazyTensor(Tensor):
    """A Tensor whose value a pending lazy graph computes. Reading ``_data`` runs that graph first."""

    __slots__ = ("_pending", "_check")  # (graph, var name, shape, DType) while pending, else None; check value

    def _get_data(self):
        p = self._pending
        if p is not None:
            if p[0] is None:  # its graph raised when it ran: say so on every later read
                raise RuntimeError(f"this lazy value was not computed: its graph failed ({p[1]})")
            p[0].flush()
        return _SLOT.__get__(self, LazyTensor)

    def _set_data(self, a):
        _SLOT.__set__(self, a)
        self._pending = None

    _data = property(_get_data, _set_data)

    def is_pending(self):
        """True while the value has not been computed yet.

        Example:
            >>> with oar.lazy():
            ...     y = oar.ones([2]) + 1.0
            ...     before = y.is_pending()
            >>> before, y.is_pending()
            (True, False)
        """
        return self._pending is not None

    @property
    def shape(self):
        p = self._pending
        return list(p[2]) if p is not None else list(_SLOT.__get__(self, LazyTensor).shape)

    @property
    def ndim(self):
        p = self._pending
        return len(p[2]) if p is not None else _SLOT.__get__(self, LazyTensor).ndim

    def dim(self):
        return self.ndim

    @property
    def size(self):
        p = self._pending
        return int(np.prod(p[2], dtype=np.int64)) if p is not None else int(_SLOT.__get__(self, LazyTensor).size)

    @property
    def dtype(self):
        p = self._pending
        return p[3] if p is not None else D.convert_dtype(_SLOT.__get__(self, LazyTensor).dtype)


def _new(graph, var):
    t = object.__new__(LazyTensor)
    t.stop_gradient = True
    t._grad = t._node = t._name = t._hooks = t._check = None
    t._vc = [0, False]
    t.persistable = False
    t._pending = (graph, var.name, list(var.shape), var.dtype)
    return t


class Stats:
    """Plan cache counters of this process: `hits`, `misses` (compilations), `flushes`."""

    def __init__(self):
        self.hits = self.misses = self.flushes = 0

    @property
    def hit_rate(self):
        n = self.hits + self.misses
        return self.hits / n if n else 0.0


STATS = Stats()
_PLANS = {}            # structural key -> compiled plan (bounded: cleared when it grows past _MAX_PLANS)
_MAX_PLANS = 256
_LOCK = threading.Lock()


class LazyGraph:
    """The pending graph of one thread's `lazy()` context."""

    def __init__(self, max_ops=MAX_OPS, check=False):
        self.max_ops, self.check = max_ops, check
        self.checks_left = CHECK_CALLS if check else 0
        self._reset()

    def _reset(self):
        self.program = Program()
        self.block = self.program.global_block()
        self.feeds, self.arrays, self._bound = [], [], {}
        self.outs, self.views = [], []
        self.cacheable = True
        self.sig = []      # per op: (type, input names, attrs): with the feeds' metas and the fetch, the cache key
        self.n_ops = 0

    # ---- recording ----------------------------------------------------------------------------------------------
    def var_of(self, t):
        p = getattr(t, "_pending", None)
        if p is not None:
            if p[0] is self:
                return self.block.var(p[1])
            if p[0] is not None:
                p[0].flush()
        a = t._data
        e = self._bound.get(id(a))
        if e is not None and e[0] is a:
            return e[1]
        v = self.block.create_var(f"in{len(self.feeds)}", list(a.shape), D.convert_dtype(a.dtype),
                                  stop_gradient=True, is_data=True)
        self.feeds.append(v.name)
        self.arrays.append(a)
        self._bound[id(a)] = (a, v)
        return v

    def record(self, op, inputs, attrs):
        in_vars = [self.var_of(t) for t in inputs]
        n = len(self.block.ops)
        with _Building(self.program):
            outs = registry.STATIC.append_op(op, in_vars, attrs)
        out_vars = outs if op.multi_out else (outs,)
        if any(d < 0 for v in out_vars for d in v.shape):  # a value-dependent shape: run it now
            del self.block.ops[n:]
            return None
        try:
            self.sig.append((op.name, tuple([v.name for v in in_vars]), _attrs_key(attrs)))
        except _NoKey:
            self.sig.append(None)
            self.cacheable = False
        res = [_new(self, v) for v in out_vars]
        for t, v in zip(res, out_vars):
            self.outs.append((weakref.ref(t), v.name))
        if op.view and inputs:  # shares the input's version (as eager); made a real NumPy view when computed
            base = inputs[0]
            base._vc[1] = True
            res[0]._vc = base._vc
            self.views.append((weakref.ref(res[0]), tuple(inputs), op, attrs))
        if self.checks_left > 0:
            _eager_check(op, inputs, attrs, res)
        self.n_ops += 1
        return res

    # ---- running ------------------------------------------------------------------------------------------------
    def flush(self):
        live = []
        for r, name in self.outs:
            t = r()
            if t is not None and t._pending is not None and t._pending[0] is self:
                live.append((t, name))
        if not live:
            self._reset()
            return
        fetch = [name for _, name in live]
        key = (tuple(self.sig), tuple([(a.shape, a.dtype.str) for a in self.arrays]), tuple(fetch)) \
            if self.cacheable else None
        plan = _PLANS.get(key) if key is not None else None
        STATS.flushes += 1
        if plan is None:
            STATS.misses += 1
            from ..passes import apply_passes
            prog = apply_passes(self.program, LAZY_PASSES, keep=fetch)
            plan = compile_program(prog, self.feeds, fetch)
            if key is not None:
                with _LOCK:
                    if len(_PLANS) >= _MAX_PLANS:
                        _PLANS.clear()
                    _PLANS[key] = plan
        else:
            STATS.hits += 1
        arrays, feeds, views, block = list(self.arrays), self.arrays, self.views, self.block
        checking = self.checks_left > 0
        self._reset()
        try:
            values = plan.run_trusted(arrays)
        except Exception as e:
            for t, _ in live:
                t._pending = (None, f"{type(e).__name__}: {str(e).splitlines()[0]}", t._pending[2], t._pending[3])
            raise
        seen = set()
        for (t, _), a in zip(live, values):
            if type(a) is not np.ndarray:
                a = np.asarray(a)
            if id(a) in seen or a.base is not None or any(a is f for f in feeds):  # never alias another value
                a = a.copy()
            seen.add(id(a))
            if checking:
                self.checks_left -= 1 if t is live[0][0] else 0
                _compare(t, a, block)
            _SLOT.__set__(t, a)
            t._pending = None
        for r, ins, op, attrs in views:  # a view op's result shares its input's memory, as in eager mode
            t = r()
            if t is None:
                continue
            base = ins[0]._data
            va = op.impl(*[base] + [i._data for i in ins[1:]], **attrs)
            if isinstance(va, np.ndarray) and np.may_share_memory(va, base) and va.shape == tuple(t.shape):
                _SLOT.__set__(t, va)

    def observe(self, t, kind, array):
        if kind == "write":  # an in-place write: what the pending graph reads must be computed before it
            self.flush()


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, np.ndarray):
        return ("nd", v.shape, v.dtype.str, v.tobytes())
    if type(v) in _SCALARS or isinstance(v, (np.generic, D.DType)):
        return (type(v).__name__, v)
    raise _NoKey  # an object attribute (a callable, a runner): identity is no structure; the graph is not cached


_SCALARS = (int, float, bool, str, type(None))


class _NoKey(Exception):
    pass


def _attrs_key(attrs):
    """A hashable form of an op's attributes (plain values as they are; lists, dicts, arrays frozen)."""
    if not attrs:
        return ()
    return tuple([(k, type(v), v) if type(v) in _SCALARS else (k, _freeze(v)) for k, v in attrs.items()])


def _eager_check(op, inputs, attrs, res):
    arrays = [t._check if getattr(t, "_check", None) is not None else t._data for t in inputs]
    with np.errstate(all="ignore"):
        out = op.impl(*arrays, **attrs)
    for t, a in zip(res, out if op.multi_out else (out,)):
        t._check = np.asarray(a)


def _compare(t, a, block):
    want = t._check
    t._check = None
    if want is None:
        return
    if want.shape != a.shape or not np.allclose(a, want, rtol=1e-5, atol=1e-6, equal_nan=True):
        op = next((o for o in block.ops if t._pending[1] in o.output_names()), None)
        where = f" at {op.loc[0]}:{op.loc[1]} ({op.loc[2]})" if op is not None and op.loc else ""
        raise AssertionError(f"lazy check: the value of '{op.type if op else '?'}'{where} differs between the "
                             f"compiled graph and eager execution (shape {list(a.shape)} vs {list(want.shape)})")


# ---- the thread's lazy state ------------------------------------------------------------------------------------
class _State(threading.local):
    def __init__(self):
        self.graphs = []   # stack of (LazyGraph, previous Mode.hook)


_STATE = _State()
_EAGER_ALWAYS = frozenset(("run_program", "run_program_grad"))


def _on_op(op, inputs, attrs):
    """The thread's `Mode.hook` in lazy mode."""
    m = mode()
    if m.owner != threading.get_ident():  # modes copied into another thread: eager there
        own_mode()
        return registry.apply(op, inputs, attrs)
    g = _STATE.graphs[-1][0]
    if not (op.random or op.side_effect or op.lower is not None or op.name in _EAGER_ALWAYS):
        if op.check is not None:
            op.check(*inputs, **attrs)
        res = g.record(op, inputs, attrs)
        if res is not None:
            if m.grad_enabled and op.grad is not None:
                for t in inputs:
                    if not t.stop_gradient:
                        _tape(op, inputs, res, attrs)
                        break
            if g.n_ops >= g.max_ops:
                g.flush()
            return tuple(res) if op.multi_out else res[0]
    g.flush()  # random, side-effecting, control-flow and value-shaped ops run eagerly, in order
    hook, m.hook = m.hook, None
    try:
        return registry.apply(op, inputs, attrs)
    finally:
        m.hook = hook


def _tape(op, inputs, outs, attrs):
    # which outputs are differentiable is read from the pending dtypes first: recording the node may read an
    # output's array (the tape keeps outputs whose gradient rule reads them), which runs the pending graph
    nd = op.nondiff_out
    diff = [i not in nd and t._pending[3].np in _DIFFERENTIABLE for i, t in enumerate(outs)]
    node = registry.Node(op, inputs, tuple(outs), attrs)
    for t, d in zip(outs, diff):
        if d:
            t.stop_gradient = False
            t._node = node


def _enter(max_ops, check):
    m = own_mode()
    if m.static:
        raise RuntimeError("oar.lazy() is an eager-mode switch; it cannot be used while a static Program is built")
    from .recorder import active
    if active() is not None:
        raise RuntimeError("oar.lazy() inside oar.jit.trace: a trace records eager ops as they run; leave one of "
                           "them")
    g = LazyGraph(max_ops, check)
    _STATE.graphs.append((g, m.hook))
    m.hook = _on_op
    push_active(g)
    return g


def _exit():
    g, prev = _STATE.graphs.pop()
    try:
        g.flush()
    finally:
        own_mode().hook = prev
        pop_active(g)


@contextlib.contextmanager
def lazy(max_ops=MAX_OPS, check=False):
    """Within the block, this thread's eager ops are recorded and run as compiled graphs when a value is needed.

    Args:
        max_ops: the pending graph runs when it holds this many ops.
        check: for the first graphs, also compute every op eagerly and raise AssertionError naming the op's
            line when the compiled value differs (as ``to_static(check=True)``).

    Example:
        >>> w = oar.to_tensor([[2.0]], stop_gradient=False)
        >>> with oar.lazy():
        ...     loss = (oar.ones([3, 1]) @ w).sum()
        ...     loss.backward()                   # gradient ops are recorded lazily too
        >>> loss.item(), w.grad.numpy().tolist()
        (6.0, [[3.0]])
    """
    _enter(max_ops, check)
    try:
        yield
    finally:
        _exit()


def set_lazy_flag(on):
    """``FLAGS_lazy``: switches lazy mode on (or off) for the calling thread, until switched back."""
    on = bool(on)
    active = bool(_STATE.graphs) and _STATE.graphs[-1][0].max_ops == MAX_OPS and getattr(
        _STATE.graphs[-1][0], "from_flag", False)
    if on and not active:
        _enter(MAX_OPS, False).from_flag = True
    elif not on and active:
        _exit()
