"""The pending graph of `oar.lazy()` and its plan cache: a trie of recorded op sequences.

Recording an op costs one dict lookup when the same sequence was recorded before. Each op is a compact record
``(op, input refs, attrs)``; values are numbered (`refs`) in the order they appear (feeds and op outputs share one
numbering), so the same Python step makes the same records. The cache key is built while recording: a pointer
walks a trie whose edges are ``(op, input refs, attrs key, metas of the feeds this op introduces, the user's
file and line, taped)``. A trie node remembers the metas of the op's outputs (a known op skips its infer rule) and
the user's source line, and holds the compiled plans of the graph that ends there, one per set of fetched values.
Nothing is hashed or walked at flush time, and no Program is built unless a plan must be compiled (a miss).

A miss (an op not seen at this position) runs the op's infer rule (shape errors name the user's line, found
then) and adds the trie node; a flush that finds no plan builds the Program from the records, runs the lazy passes
and compiles it. A graph with an attribute that has no structural key (an object: a callable) is recorded off the
trie and compiled without caching.

Example:
    >>> from oar.jit import lazy_graph
    >>> x = oar.to_tensor([1.0, 2.0])
    >>> for _ in range(2):
    ...     with oar.lazy():
    ...         y = (x * 2.0).sum()
    >>> y.item(), lazy_graph.STATS.hits >= 1
    (6.0, True)
"""
import linecache
import operator
import sys
import threading
import weakref

import numpy as np

from ..core import dtype as D
from ..core.devices import is_device_array, to_host
from ..graph.builder import _OAR_DIR
from ..graph.backward import building, gradients
from ..graph.executor import compile_program
from ..graph.program import Program
from ..ops.registry import infer_meta
from .lazy_tensor import SLOT, LazyTensor, new_lazy
from .static_function import CHECK_CALLS

LAZY_PASSES = ("fuse_elewise_add_act", "dead_code_elimination")
MAX_OPS = 4096
_MAX_PLANS = 256      # compiled plans kept in the trie; past that the trie is dropped and grows again
_LOCK = threading.Lock()
_BY_NP = D._BY_NP
_new, _weakref, _set_slot, _getframe = object.__new__, weakref.ref, SLOT.__set__, sys._getframe


class Stats:
    """Plan cache counters of this process: `hits`, `misses` (compilations), `flushes`."""

    def __init__(self):
        self.hits = self.misses = self.flushes = 0

    @property
    def hit_rate(self):
        n = self.hits + self.misses
        return self.hits / n if n else 0.0


STATS = Stats()


class _Node:
    """A position in the trie: the output metas and first user line of the op that leads here, the ops that
    followed it before (`children`), and the compiled plans of a graph ending here (`plans`, by fetched refs)."""

    __slots__ = ("metas", "loc", "children", "plans")

    def __init__(self, metas=None, loc=None):
        self.metas, self.loc = metas, loc
        self.children, self.plans = {}, {}


_EAGER = _Node()      # a child marking an op whose output shape depends on values: it runs eagerly


class _Trie:
    def __init__(self):
        self.root, self.n_plans = _Node(), 0


TRIE = _Trie()


class Record(tuple):
    """One recorded op: `refs` of its inputs, its attrs, the user's `loc`; its outputs are refs `out0` to
    ``out0 + n_out - 1``; `taped`: on the autograd tape (its outputs may carry gradients; else they are constants).
    A tuple (made by one C call while recording), read by name when a Program is built."""

    __slots__ = ()
    op, refs, attrs, loc, out0, n_out, taped = (property(operator.itemgetter(i)) for i in range(7))

    def __new__(cls, op, refs, attrs, loc, out0, n_out, taped):
        return _tuple_new(cls, (op, refs, attrs, loc, out0, n_out, taped))


_tuple_new = tuple.__new__


class _Backward:
    """The op of a `loss.backward()` record: inputs (loss, *leaves), outputs the leaves' gradients (None where
    the loss does not reach a leaf), differentiated by `oar.static.gradients` when the graph is compiled."""

    name, view = "backward", False


BACKWARD = _Backward()


class _Write:
    """The op of a write-back record: refs are (target, value) pairs; the compiled plan writes each value into its
    target's own array, a persistable variable of the Program (`LazyGraph.write_back`)."""

    name, view = "write", False


WRITE = _Write()


class _Vars:
    """The scope `Compiled.run_trusted` reads the written targets from: ``vars``, name -> live Tensor."""

    __slots__ = ("vars",)

    def __init__(self, vars):
        self.vars = vars


class LazyGraph:
    """The pending graph of one thread's `lazy()` context."""

    def __init__(self, max_ops=MAX_OPS, check=False):
        self.max_ops, self.check = max_ops, check
        self.checks_left = CHECK_CALLS if check else 0
        self._reset()

    def _reset(self):
        self.records = []
        self.metas = []          # per ref: (shape, DType)
        self.feeds = []          # (ref, array) of the values made outside the graph
        self.arrays = []         # their arrays, in the same order (the plan's arguments)
        self._bound = {}         # id(array) -> (array, ref)
        self.outs, self.views = [], []
        self.node = TRIE.root    # None once off the trie (an attribute without a key)
        self.n_ops = 0
        self.tape = {}           # id -> tape Node of the ops recorded here (a symbolic backward walks only them)
        self.writes = {}         # feed ref -> the Tensor whose array the plan updates in place (`write_back`)

    # ---- recording ----------------------------------------------------------------------------------------------
    def _ref(self, t, new):
        """The ref of input `t`: its pending value here, or a feed (a new one's meta goes to `new`)."""
        if type(t) is LazyTensor:
            p = t._pending
            if p is not None:
                if p[0] is self:
                    return p[1]
                if p[0] is not None:
                    p[0].flush()
        a = t._data
        e = self._bound.get(id(a))
        if e is not None and e[0] is a:
            return e[1]
        ref = len(self.metas)
        meta = (a.shape, a.dtype)
        dt = _BY_NP.get(a.dtype)
        self.metas.append((a.shape, dt if dt is not None else D.convert_dtype(a.dtype)))
        self.feeds.append((ref, a))
        self.arrays.append(a)
        self._bound[id(a)] = (a, ref)
        new.append(meta)
        return ref

    def record(self, op, inputs, attrs, taped):
        """Records `op` (`taped`: its outputs go on the autograd tape); returns its pending outputs, or None when
        it must run eagerly (a value-shaped output)."""
        new = []
        refs = []
        for t in inputs:  # (`_ref`, its common case inline: a value pending here)
            if type(t) is LazyTensor and (p := t._pending) is not None and p[0] is self:
                refs.append(p[1])
            else:
                refs.append(self._ref(t, new))
        refs = tuple(refs)
        f = _getframe(3)  # the user's frame (outside oar): its line is part of the key, so errors name it
        fname = f.f_code.co_filename
        while _OAR_FILES[fname]:
            f = f.f_back
            fname = f.f_code.co_filename
        line = f.f_lineno
        node = self.node
        if node is not None:
            try:
                key = (op, refs, _attrs_key(attrs) if attrs else (), tuple(new) if new else None, fname, line, taped)
            except _NoKey:
                child = None
                self.node = None
            else:
                child = node.children.get(key)
                if child is _EAGER:
                    return None
        else:
            child = None
        if child is None:
            loc = (fname, line, linecache.getline(fname, line).strip())
            metas = _infer(op, [self.metas[r] for r in refs], attrs, loc)
            if any(d < 0 for s, _ in metas for d in s):  # a value-dependent shape: run it now
                if self.node is not None:
                    node.children[key] = _EAGER
                return None
            if self.node is not None:
                child = node.children[key] = _Node(metas, loc)
            out_metas = metas
        else:
            out_metas, loc = child.metas, child.loc
        self.node = child
        metas_l, outs = self.metas, self.outs
        out0 = len(metas_l)
        self.records.append(_tuple_new(Record, (op, refs, attrs, loc, out0, len(out_metas), taped)))
        res = []
        ref = out0
        for m in out_metas:
            metas_l.append(m)
            t = _new(LazyTensor)
            t.stop_gradient = True
            t._grad = t._node = t._name = t._hooks = t._check = t._zeroed = t._view_of = None
            t._vc = [0, False]
            t.persistable = False
            t._pending = (self, ref, m[0], m[1])
            outs.append((_weakref(t), ref, False))
            res.append(t)
            ref += 1
        if op.view and inputs:  # shares the input's version (as eager); made a real NumPy view when computed
            base = inputs[0]
            base._vc[1] = True
            res[0]._vc = base._vc
            res[0]._view_of = tuple(inputs)  # (held by the view: an input no one else holds is not handed out)
            self.views.append((_weakref(res[0]), op, attrs))
        if self.checks_left > 0:
            _eager_check(op, inputs, attrs, res)
        self.n_ops += 1
        return res

    def record_backward(self, loss, leaves):
        """Records ``loss.backward()`` as one op; returns the pending gradient of each leaf (None where the loss
        does not reach it), or None when it must run as the eager walk (the gradient program cannot be built)."""
        new = []
        refs = tuple([self._ref(t, new) for t in [loss] + leaves])
        node, child, key = self.node, None, None
        f = sys._getframe(2)
        while _OAR_FILES[f.f_code.co_filename]:
            f = f.f_back
        if node is not None:
            key = (BACKWARD, refs, tuple(new) if new else None, f.f_code.co_filename, f.f_lineno)
            child = node.children.get(key)
        if child is _EAGER:
            return None
        out0 = len(self.metas)
        if child is None:
            loc = (f.f_code.co_filename, f.f_lineno, linecache.getline(f.f_code.co_filename, f.f_lineno).strip())
            metas = self._backward_metas(Record(BACKWARD, refs, {}, loc, out0, len(leaves), False))
            if metas is None:
                if node is not None:
                    node.children[key] = _EAGER
                return None
            if node is not None:
                child = node.children[key] = _Node(metas, loc)
        else:
            metas, loc = child.metas, child.loc
        self.node = child
        self.records.append(Record(BACKWARD, refs, {}, loc, out0, len(leaves), False))
        res = []
        for i, m in enumerate(metas):
            self.metas.append(m if m is not None else self.metas[refs[1 + i]])
            if m is None:
                res.append(None)
                continue
            t = new_lazy(self, out0 + i, m[0], m[1])
            self.outs.append((weakref.ref(t), out0 + i, False))
            res.append(t)
        self.n_ops += 1
        return res

    def _backward_metas(self, rec):
        """Each leaf's gradient meta (None: not reached), from the gradient program built now; None when it
        cannot be built or does not give the leaves' own shapes and dtypes (the eager walk then runs)."""
        try:
            prog, names = build_program(self.feeds, self.records + [rec], self.metas + [None] * rec.n_out)
        except Exception:
            return None
        gb, metas = prog.global_block(), []
        if any(v.dtype.kind == "c" for v in gb.vars.values()):  # complex gradients: the eager walk's rules
            return None
        for i, r in enumerate(rec.refs[1:]):
            n = names.get(rec.out0 + i)
            if n is None:
                metas.append(None)
                continue
            v, (shape, dt) = gb.var(n), self.metas[r]
            if tuple(v.shape) != tuple(shape) or v.dtype is not dt:
                return None
            metas.append((tuple(shape), dt))
        return metas

    def alias(self, t, share):
        """A new pending tensor of `t`'s value here: computed into the same array as `t` (`share`: the tape's
        stand-in for an output its gradient rule reads) or into a copy (a gradient delivered to ``.grad``)."""
        p = t._pending
        a = new_lazy(self, p[1], p[2], p[3])
        self.outs.append((weakref.ref(a), p[1], share))
        return a

    def adopt(self, t, src, move=True):
        """Tensor `t` takes the pending value of `src` (an accumulation into ``.grad``); `move`: `src` gives it up
        (else both hold it, and each gets its own array)."""
        p = src._pending
        t._pending = p
        if move:
            src._pending = None
        self.outs.append((weakref.ref(t), p[1], False))

    def write_back(self, done):
        """The optimizer's updates under `oar.lazy()`: `done` lists ``(targets, values)`` (a parameter and its
        accumulators, their new values). Each target whose value is pending here and whose array no other tensor
        shares (no view or detached tensor: eager gives the target a new array and those keep the old values) and
        is writable gets a write of the value into that array, recorded as one record; then the graph runs. The
        plan's passes (`oar.jit.train_step`'s, as a captured step's) fold each write into the op computing it and
        fuse the updates into in-place multi-tensor ones; the written values are not handed out (their tensors
        are used up). Returns ``(targets, values)`` of the rest, which the caller writes back as eager does."""
        rest_t, rest_v, pairs, arrays, new = [], [], [], set(), []
        for targets, values in done:
            for t, v in zip(targets, values):
                p = v._pending if type(v) is LazyTensor else None
                if p is None or p[0] is not self or t._vc[1] or type(t) is LazyTensor and t._pending is not None:
                    rest_t.append(t)
                    rest_v.append(v)
                    continue
                a = t._data
                if id(a) in arrays or not (a.flags.writeable if type(a) is np.ndarray else is_device_array(a)):
                    rest_t.append(t)
                    rest_v.append(v)
                    continue
                arrays.add(id(a))
                pairs.append((self._ref(t, new), p[1]))
                self.writes[pairs[-1][0]] = t
                v._pending = None
        if pairs:
            pairs = tuple(pairs)
            node = self.node
            if node is not None:
                key = (WRITE, pairs, tuple(new) if new else None)
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = _Node((), None)
                self.node = child
            self.records.append(Record(WRITE, pairs, {}, None, len(self.metas), 0, False))
            self.flush()
        return tuple(rest_t), tuple(rest_v)

    # ---- running ------------------------------------------------------------------------------------------------
    def flush(self):
        live = [(t, ref, share) for r, ref, share in self.outs  # (one pass; most are dead intermediates)
                if (t := r()) is not None and (p := t._pending) is not None and p[0] is self and p[1] == ref]
        if not live and not self.writes:  # (writes run even when no value is handed out)
            self._reset()
            return
        fetch = tuple(dict.fromkeys([ref for _, ref, _ in live]))
        node = self.node
        entry = node.plans.get(fetch) if node is not None else None
        STATS.flushes += 1
        if entry is None:
            STATS.misses += 1
            entry = self._compile(fetch)
            if node is not None:
                with _LOCK:
                    if TRIE.n_plans >= _MAX_PLANS:
                        TRIE.root, TRIE.n_plans = _Node(), 0
                    node.plans[fetch] = entry
                    TRIE.n_plans += 1
        else:
            STATS.hits += 1
        plan, at = entry
        arrays, views, records, checking = self.arrays, self.views, self.records, self.checks_left > 0
        writes, scope = self.writes, None
        if writes:  # the written targets are the plan's persistables, read (and updated) through a scope
            arrays = [a for ref, a in self.feeds if ref not in writes]
            scope = _Vars({f"in{ref}": t for ref, t in writes.items()})
        self._reset()
        try:
            values = plan.run_trusted(arrays, scope)
        except Exception as e:
            why = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            for t, _, _ in live:
                p = t._pending
                t._pending = (None, why, p[2], p[3])
            raise
        used = set([id(a) for a in arrays])  # (with the written targets' arrays, which `run_trusted` appended)
        given = {}  # ref -> the array its first tensor got (a stand-in, `share`, gets the same one)
        for t, ref, share in live:
            a = given.get(ref)
            if a is None:
                a = values[at[ref]]
                if type(a) is not np.ndarray and not is_device_array(a):
                    a = np.asarray(a)
                if id(a) in used or a.base is not None:  # never alias another value or a feed
                    a = a.copy()
                used.add(id(a))
                given[ref] = a
            elif not share:
                a = a.copy()
            if checking:
                self.checks_left -= 1 if t is live[0][0] else 0
                _compare(t, a, records)
            _set_slot(t, a)
            t._pending = None
        for r, op, attrs in views:  # a view op's result shares its input's memory, as in eager mode
            t = r()
            if t is None:
                continue
            ins, t._view_of = t._view_of, None
            base = ins[0]._data
            va = op.impl(*[base] + [i._data for i in ins[1:]], **attrs)
            if isinstance(va, np.ndarray) and np.may_share_memory(va, base) and va.shape == tuple(t.shape):
                _set_slot(t, va)

    def _compile(self, fetch):
        """(plan, index in the plan's results of each fetched ref)."""
        from ..passes import apply_passes
        from .train_step import train_passes
        prog, names = build_program(self.feeds, self.records, self.metas)
        fetch_names = list(dict.fromkeys([names[r] for r in fetch]))  # two leaves' gradients may be one value
        # a training step (written-back updates) goes through the captured step's pipeline first, as a traced one
        passes = (*train_passes(), *LAZY_PASSES) if self.writes else LAZY_PASSES
        prog = apply_passes(prog, passes, keep=fetch_names + [names[r] for r in self.writes])
        plan = compile_program(prog, [names[r] for r, _ in self.feeds if r not in self.writes], fetch_names)
        return plan, {r: fetch_names.index(names[r]) for r in fetch}

    def observe(self, t, kind, array):
        if kind == "write":  # an in-place write: what the pending graph reads must be computed before it
            self.flush()


def build_program(feeds, records, metas):
    """The Program of recorded ops (feeds ``in<ref>``, values ``v<ref>``) and the name of each ref."""
    prog = Program()
    b = prog.global_block()
    names = {}
    leaves = set([r for rec in records if rec.op is BACKWARD for r in rec.refs[1:]])
    written = set([t for rec in records if rec.op is WRITE for t, _ in rec.refs])
    for ref, a in feeds:  # gradient rules read stop_gradient: only the leaves of a backward want one
        v = b.create_var(f"in{ref}", list(a.shape), D.convert_dtype(a.dtype), stop_gradient=ref not in leaves,
                         is_data=ref not in written)
        if ref in written:  # a write-back target: a persistable variable the plan updates
            v.persistable = True
        names[ref] = v.name
    no_grad = []  # outputs of ops recorded off the tape (under no_grad, or of inputs that need no gradient)
    for rec in records:
        op = rec.op
        if op is WRITE:  # refs: (target, value) pairs
            for target, value in rec.refs:
                b.append_op("assign", {"x": [names[value]]}, {"out": [names[target]]}, {}, rec.loc)
            continue
        if op is BACKWARD:
            n_ops = len(b.ops)
            with building(b):
                grads = gradients([b.var(names[rec.refs[0]])], [b.var(names[r]) for r in rec.refs[1:]], None,
                                  no_grad)
            for o in b.ops[n_ops:]:
                o.loc = rec.loc
            for i, g in enumerate(grads):
                names[rec.out0 + i] = None if g is None else g.name
            continue
        ins = [names[r] for r in rec.refs]
        outs = []
        for i in range(rec.n_out):
            shape, dt = metas[rec.out0 + i]
            sg = not rec.taped or i in op.nondiff_out or dt.kind not in "fc"
            names[rec.out0 + i] = b.create_var(f"v{rec.out0 + i}", list(shape), dt,
                                               stop_gradient=sg and rec.out0 + i not in leaves).name
            outs.append(names[rec.out0 + i])
        ind = {op.inputs[0]: ins} if op.variadic else {slot: [n] for slot, n in zip(op.inputs, ins)}
        outd = {op.outputs[0][:-1]: outs} if op.outputs[0].endswith("*") else \
            {slot: [n] for slot, n in zip(op.outputs, outs)}
        b.append_op(op.name, ind, outd, dict(rec.attrs), rec.loc)
        if not rec.taped:
            no_grad.extend(outs)
    return prog, names


def _infer(op, metas, attrs, loc):
    try:
        return [(tuple(s), D.convert_dtype(t)) for s, t in infer_meta(op, [(list(s), t) for s, t in metas], attrs)]
    except Exception as e:
        shapes = ", ".join(f"{D.convert_dtype(t).name}{list(s)}" for s, t in metas)
        where = f"\n  at {loc[0]}:{loc[1]}\n    {loc[2]}" if loc else ""
        kind = type(e) if isinstance(e, (ValueError, TypeError, IndexError)) else ValueError
        raise kind(f"{op.name}({shapes}) failed while recording the lazy graph: {e}{where}") from None


def _freeze(v):
    tv = type(v)
    if tv is list or tv is tuple:
        types = tuple(map(type, v))
        if _SCALARS.issuperset(types):  # plain values: their types and the values, as they are (hashable)
            return (types, tuple(v))
        return tuple([_freeze(x) for x in v])
    if tv in _SCALARS or isinstance(v, (np.generic, D.DType)):
        return (tv.__name__, v)
    if isinstance(v, (list, tuple)):
        return tuple([_freeze(x) for x in v])
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, np.ndarray):
        return ("nd", v.shape, v.dtype.str, v.tobytes())
    raise _NoKey  # an object attribute (a callable, a runner): identity is no structure; the graph is not cached


_SCALARS = frozenset((int, float, bool, str, type(None)))


class _NoKey(Exception):
    pass


class _OarFiles(dict):
    """file name -> whether it is oar's own (the frames skipped to reach the user's line): ``_OAR_FILES[name]``."""

    def __missing__(self, fname):
        if len(self) > 65536:  # file names made at run time (exec) would grow it without bound
            self.clear()
        r = self[fname] = fname.startswith(_OAR_DIR)
        return r


_OAR_FILES = _OarFiles()


def _attrs_key(attrs):
    """A hashable form of an op's attributes (plain values with their types; lists, dicts, arrays frozen)."""
    if not attrs:
        return ()
    return tuple([(k, type(v), v) if type(v) in _SCALARS else (k, _freeze(v)) for k, v in attrs.items()])


def _eager_check(op, inputs, attrs, res):
    arrays = [t._check if getattr(t, "_check", None) is not None else t._data for t in inputs]
    with np.errstate(all="ignore"):
        out = op.impl(*arrays, **attrs)
    for t, a in zip(res, out if op.multi_out else (out,)):
        t._check = np.asarray(a)


def _compare(t, a, records):
    want = t._check
    t._check = None
    if want is None:
        return
    a, want = (to_host(v) if is_device_array(v) else v for v in (a, want))  # compared on the host
    if want.shape != a.shape or not np.allclose(a, want, rtol=1e-5, atol=1e-6, equal_nan=True):
        ref = t._pending[1]
        rec = next((r for r in reversed(records) if r.out0 <= ref), None)
        loc = rec.loc if rec is not None else None
        where = f" at {loc[0]}:{loc[1]} ({loc[2]})" if loc else ""
        raise AssertionError(f"lazy check: the value of '{rec.op.name if rec else '?'}'{where} differs between the "
                             f"compiled graph and eager execution (shape {list(a.shape)} vs {list(want.shape)})")
