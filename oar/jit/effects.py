"""The side-effect log of a trace: what a converted function does to Python objects that outlive the call
(containers and objects reachable from its arguments, globals and closure cells; global and nonlocal
bindings), recorded while the program is traced and replayed after every run of the program, in program
order, with the tensors taken from the program's outputs.

While tracing, the mutations really happen (the rest of the trace reads them); at the end of the trace they
are undone, so the first call and every later one apply the same replay. A static Variable never reaches a
user object: every value the replay writes is rebuilt from a template whose Variables are program outputs,
and `check_no_variables` asserts it after the first run of each program.

    l = [1, 2, 3]
    def f(l, x):
        l.append(x + 1)      # logged: ('call', l, 'append', [<slot 0>])
        return l[0]          # the program fetches x + 1 as an extra output; each call appends its value

Example:
    >>> def f(l, x):
    ...     l.append(x * 2)
    ...     return x
    >>> sf = oar.jit.to_static(f)
    >>> a = []
    >>> _ = sf(a, oar.ones([1])); _ = sf(a, oar.ones([1]))
    >>> [type(v).__name__ for v in a]
    ['Tensor', 'Tensor']
"""
import threading
import types

from ..graph.variable import Variable
from ..core.tensor_methods import TensorMethods

MISSING = object()
MAX_WALK = 20000  # objects visited to find what is reachable from the roots of a trace
_ATOMIC = (int, float, complex, str, bytes, bool, type(None), range, slice)
_OPAQUE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           types.CodeType, TensorMethods)
MUTATORS = {list: {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "__setitem__",
                   "__delitem__", "__iadd__"},
            dict: {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__"},
            set: {"add", "discard", "remove", "pop", "update", "clear", "difference_update",
                  "intersection_update", "symmetric_difference_update"}}


class _Current(threading.local):
    def __init__(self):
        self.recorder = None


CURRENT = _Current()


def active():
    """The Recorder of the trace running on this thread, or None."""
    return CURRENT.recorder


class recording:
    """`with recording(rec):` makes `rec` the active Recorder of this thread (nested traces stack)."""

    def __init__(self, rec):
        self.rec = rec

    def __enter__(self):
        self.prev, CURRENT.recorder = CURRENT.recorder, self.rec
        return self.rec

    def __exit__(self, *exc):
        CURRENT.recorder = self.prev


def static_region():
    """Context for a tensor `if`/loop being traced: changes inside are logged as the merged contents after."""
    rec = CURRENT.recorder
    return _Region(rec) if rec is not None else _NO_REGION


class _Region:
    def __init__(self, rec):
        self.rec = rec

    def __enter__(self):
        self.rec.enter_static()

    def __exit__(self, *exc):
        self.rec.exit_static()


class _NoRegion:
    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass


_NO_REGION = _NoRegion()


def graph_break_wanted():
    """True while tracing with `full_graph=False`: a value Python code needs becomes a graph break."""
    rec = CURRENT.recorder
    return rec is not None and not rec.full_graph


class EscapeError(RuntimeError):
    """A static Variable would reach a user object, a global or a returned value."""


class Recorder:
    """The objects reachable from a trace's roots, and what the trace did to them.

    Args:
        full_graph: the StaticFunction's switch (runtime operators consult it: a graph break or an error).
    """

    def __init__(self, full_graph=True):
        self.full_graph = full_graph
        self.external = {}   # id -> object reachable from the roots before the trace changed anything
        self.ops = []        # raw log: (kind, target, *args) with trace-time values
        self._undo = {}      # (id, slot) -> (restore function); first touch wins
        self.bindings = {}   # (id(holder), name) -> (kind, holder, name, value before the trace)
        self.depth = 0       # > 0 inside a tensor `if`/loop: changes are noted, then logged as contents
        self._touched = {}   # id -> object changed inside the current static control flow
        self._touched_attrs = {}
        self.arg_undo = []   # (container, key, old leaf): arguments' containers with Variables substituted
        self.arg_paths = {}  # id -> how the object is reached from the call's arguments
        from .guards import GuardSet
        self.guards = GuardSet()
        self._globals = []   # the globals dicts of the converted functions run
        self._functions = set()

    def enter_function(self, fn):
        """A converted function is about to run in this trace (once per function object)."""
        key = id(fn)
        if key in self._functions:
            return
        self._functions.add(key)
        self.guards.add_function(fn)
        self.adopt_function(fn)

    # ---- what is external -------------------------------------------------------------------------------
    def adopt(self, *roots):
        """Marks everything reachable from `roots` (through containers and object attributes) as external."""
        stack, seen = list(roots), self.external
        budget = MAX_WALK
        while stack and budget:
            o = stack.pop()
            if isinstance(o, _ATOMIC) or isinstance(o, Variable) or id(o) in seen:
                continue
            budget -= 1
            seen[id(o)] = o
            if isinstance(o, _OPAQUE):
                continue
            if isinstance(o, (list, tuple, set, frozenset)):
                stack.extend(o)
            elif isinstance(o, dict):
                stack.extend(o.values())
            else:
                d = getattr(o, "__dict__", None)
                if type(d) is dict:
                    stack.extend(d.values())

    def adopt_args(self, args, kwargs):
        """Marks what is reachable from the call's arguments as external, remembering how each object is
        reached (`(('arg', 0), ('item', 2))`): the replay of a later call finds that call's objects."""
        stack = [(a, (("arg", i),)) for i, a in enumerate(args)]
        stack += [(v, (("kw", k),)) for k, v in kwargs.items()]
        budget = MAX_WALK
        while stack and budget:
            o, path = stack.pop()
            if isinstance(o, _ATOMIC) or isinstance(o, Variable) or id(o) in self.arg_paths:
                continue
            budget -= 1
            self.external[id(o)] = o
            self.arg_paths[id(o)] = path
            if isinstance(o, _OPAQUE) or len(path) > 6:
                continue
            if isinstance(o, (list, tuple)):
                stack.extend((e, path + (("item", i),)) for i, e in enumerate(o))
            elif isinstance(o, dict):
                stack.extend((e, path + (("item", k),)) for k, e in o.items())
            elif type(getattr(o, "__dict__", None)) is dict:
                stack.extend((e, path + (("attr", k),)) for k, e in o.__dict__.items())

    def is_external(self, obj):
        return id(obj) in self.external

    def adopt_function(self, fn):
        """A converted function about to run in this trace: its globals' and closure cells' objects are
        external, and its `global`/`nonlocal` names are bindings whose final values are replayed."""
        from .guards import global_reads
        g = fn.__globals__
        if not any(d is g for d in self._globals):
            self._globals.append(g)
        reads = global_reads(fn.__code__)
        self.adopt(*[g[n] for n in reads if n in g])
        cells = fn.__closure__ or ()
        self.adopt(*[_cell_value(c) for c in cells])
        conv = getattr(fn, "__oar_ctx__", None)
        if conv is None:
            return
        for name in conv.global_writes:
            key = (id(g), name)
            if key not in self.bindings:
                self.bindings[key] = ("global", g, name, g.get(name, MISSING))
        orig = getattr(fn, "__wrapped_original__", fn)
        free = orig.__code__.co_freevars
        for name in conv.nonlocal_writes:
            if name in free:
                cell = orig.__closure__[free.index(name)]
                key = (id(cell), name)
                if key not in self.bindings:
                    self.bindings[key] = ("cell", cell, name, _cell_value(cell))

    # ---- recording --------------------------------------------------------------------------------------
    def before(self, target, slot=None):
        """Called before `target` (external) changes: saves what undoing needs (once per object/attribute)."""
        key = (id(target), slot)
        if key in self._undo:
            return
        if slot is not None:
            old = getattr(target, slot, MISSING)
            self._undo[key] = lambda: _set_attr(target, slot, old)
        elif isinstance(target, list):
            saved = list(target)
            self._undo[key] = lambda: target.__setitem__(slice(None), saved)
        elif isinstance(target, (dict, set)):
            saved = target.copy()
            self._undo[key] = lambda: (target.clear(), target.update(saved))

    def record(self, kind, target, *args):
        if self.depth:
            if kind in ("setattr", "delattr"):
                self._touched_attrs[(id(target), args[0])] = (target, args[0])
            else:
                self._touched[id(target)] = target
            return
        self.ops.append((kind, target) + args)

    def enter_static(self):
        self.depth += 1

    def exit_static(self):
        """Leaving a tensor `if`/loop: each external object it changed is logged with its merged contents."""
        self.depth -= 1
        if self.depth:
            return
        for obj in self._touched.values():
            self.ops.append(("contents", obj, _contents(obj)))
        for obj, name in self._touched_attrs.values():
            value = getattr(obj, name, MISSING)
            self.ops.append(("setattr", obj, name, value) if value is not MISSING else ("delattr", obj, name))
        self._touched, self._touched_attrs = {}, {}

    # ---- the end of the trace ----------------------------------------------------------------------------
    def finish(self):
        """The replay (templates built from the trace-time values) and the Variables it needs fetched."""
        ops = list(self.ops)
        for kind, holder, name, old in self.bindings.values():
            new = holder.get(name, MISSING) if kind == "global" else _cell_value(holder)
            if new is not old:
                ops.append((kind, holder, name, new))
        from .replay import Replay
        return Replay(ops, self)

    def check_untracked(self, function_name, program):
        """After `undo()`: raises EscapeError if an object reachable from the roots, or a global of a converted
        function, still holds a static Variable (put there by code whose changes are not logged)."""
        module_level = [v for g in self._globals for v in g.values() if type(v) in (list, dict, set)]
        # what functions the trace could reach keep in their closures (a not_to_static helper's list)
        cells = [_cell_value(c) for f in self.external.values() if isinstance(f, types.FunctionType)
                 for c in f.__closure__ or ()]
        cells = [v for v in cells if type(v) in (list, dict, set)]
        for o in list(self.external.values()) + self._globals + module_level + cells:
            if isinstance(o, (list, tuple, set, frozenset)):
                items = o
            elif isinstance(o, dict):
                items = o.values()
            elif type(getattr(o, "__dict__", None)) is dict and not isinstance(o, _OPAQUE):
                items = o.__dict__.values()
            else:
                continue
            for v in items:
                if isinstance(v, Variable) and not v.persistable and getattr(v.block, "program", None) is program:
                    raise EscapeError(
                        f"to_static('{function_name}'): the static value '{v.name}' was left in a "
                        f"{type(o).__name__} that outlives the call, by code whose changes oar does not track (a "
                        "helper marked not_to_static, a C extension, ...). Static values exist only while the "
                        "program is built: return the value instead, or let converted code store it")

    def undo(self):
        """Puts every external object back as it was before the trace (the replay applies the changes)."""
        for restore in reversed(list(self._undo.values())):
            restore()
        for kind, holder, name, old in self.bindings.values():
            if kind == "global":
                if old is MISSING:
                    holder.pop(name, None)
                else:
                    holder[name] = old
            elif old is not MISSING:
                holder.cell_contents = old
        for container, key, old in reversed(self.arg_undo):
            container[key] = old
        self._undo.clear()
        self.arg_undo = []


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return MISSING


def _set_attr(obj, name, value):
    if value is not MISSING:
        setattr(obj, name, value)
    elif hasattr(obj, name):
        delattr(obj, name)


def _contents(obj):
    if isinstance(obj, list):
        return list(obj)
    return obj.copy()


# ---- arguments ------------------------------------------------------------------------------------------------

def bind_args(rec, args, kwargs, leaves):
    """The call's arguments with their flattened leaves replaced by `leaves` (placeholders for tensors),
    keeping the identity of the caller's lists and dicts (changed in place, undone by `rec.undo()`), so the
    function's changes to them are logged against the caller's objects."""
    it = iter(leaves)

    def rec_(o):
        if isinstance(o, list):
            for i, e in enumerate(o):
                n = rec_(e)
                if n is not e:
                    rec.arg_undo.append((o, i, e))
                    o[i] = n
            return o
        if isinstance(o, tuple):
            items = [rec_(e) for e in o]
            if all(a is b for a, b in zip(items, o)):
                return o
            t = type(o)
            return tuple(items) if t is tuple else (t._make(items) if hasattr(t, "_make") else t(items))
        if isinstance(o, dict):
            for k in list(o):
                e = o[k]
                n = rec_(e)
                if n is not e:
                    rec.arg_undo.append((o, k, e))
                    o[k] = n
            return o
        return next(it)
    new_args = [rec_(a) for a in args]
    new_kwargs = {k: rec_(v) for k, v in kwargs.items()}
    return new_args, new_kwargs
