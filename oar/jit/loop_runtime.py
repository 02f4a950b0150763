"""Runtime loops for converted code: `convert_while`, `convert_for` and the loop sources `convert_range`,
`convert_enumerate`, `convert_zip`. A loop runs as plain Python while its condition / iterable is Python;
once it depends on a static Variable it becomes one `while` op carrying the variables the body assigns."""
import numpy as np

from ..graph import builder
from ..graph import control_flow as cf
from ..graph import pytree
from ..core.tensor_methods import TensorMethods
from . import log
from .control import _SCALARS, _site, convert_ifelse, convert_logical_not
from .effects import static_region
from .places import Snapshot
from .static_values import is_array, is_var, weak
from .store_runtime import check_not_advanced
from .undefined import NO_RETURN, MaybeUndefinedVar, UndefinedVar, defined_flag, undefined_info


# ---- loop sources ----------------------------------------------------------------------------------------------

class TensorRange:
    """`range(start, stop, step)` with a static bound: iterated by a `while` op (its length is a run-time
    value, so a comprehension over it cannot be unrolled)."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def length(self):
        """max(0, ceil((stop - start) / step)) for any sign of `step` (Python's range), as -((start - stop) // step)."""
        from ..ops.math import maximum, zeros_like
        start, stop, step = self.start, self.stop, self.step
        if isinstance(step, int) and step == 0 or isinstance(step, np.integer) and step == 0:
            raise ValueError("range() arg 3 must not be zero")
        if is_var(step):
            from ..graph.debug_ops import Assert
            Assert(step != 0, name="range() arg 3 must not be zero")
        if isinstance(start, int) and start == 0 and isinstance(step, int) and step == 1:
            n = stop
        elif isinstance(step, int) and step == 1:
            n = stop - start
        else:
            n = -((_int64(start) - _int64(stop)) // _int64(step))
        n = _int64(n)
        return maximum(n, zeros_like(n)) if is_var(n) else max(n, 0)

    def item(self, k):
        if isinstance(self.start, int) and self.start == 0 and isinstance(self.step, int) and self.step == 1:
            return weak(k)
        return weak(self.start + k * self.step)


class _Rows:
    def __init__(self, x):
        self.x = x

    def length(self):
        from ..ops.manipulation import shape
        d = self.x.shape[0] if self.x.ndim else -1
        if is_array(self.x):
            from ..graph.tensor_array import array_length
            return array_length(self.x)
        return d if d >= 0 else shape(self.x)[0]

    def item(self, k):
        if is_array(self.x):
            from ..graph.tensor_array import array_read
            return array_read(self.x, k)
        row = self.x[k]
        return weak(row) if self.x.attrs.get("numpy") and self.x.ndim == 1 else row


class _PyList:
    def __init__(self, xs):
        self.xs = list(xs)

    def length(self):
        return len(self.xs)

    def item(self, k):
        from ..eager.tensor import to_tensor
        return to_tensor(self.xs)[k]


class _Unrolled:
    """Iterating a static loop source in Python (a comprehension, `list(...)`, unpacking) unrolls it when its
    length is known when the program is built."""

    def __iter__(self):
        n = self.length()
        if is_var(n):
            from .errors import unsupported
            raise unsupported("iterating in Python (a comprehension, list(), unpacking) over a tensor whose "
                              "length is known only when the program runs",
                              "Write a `for` statement (it becomes a while op), or give the dim a size in the "
                              "InputSpec.")
        return (self.item(k) for k in range(int(n)))


class Enumerate(_Unrolled):
    def __init__(self, src, start=0):
        self.src, self.start = _source(src), start

    def length(self):
        return self.src.length()

    def item(self, k):
        return weak(k + self.start if self.start else k), self.src.item(k)


class Zip(_Unrolled):
    def __init__(self, *srcs):
        self.srcs = [_source(s) for s in srcs]

    def length(self):
        from ..ops.math import minimum
        n = None
        for s in self.srcs:
            m = s.length()
            n = m if n is None else (minimum(_int64(n), _int64(m)) if is_var(n) or is_var(m) else min(n, m))
        return n

    def item(self, k):
        return tuple(s.item(k) for s in self.srcs)


def _source(x):
    if isinstance(x, (TensorRange, Enumerate, Zip)):
        return x
    if is_var(x):
        return _Rows(x)
    if isinstance(x, range):
        return TensorRange(x.start, x.stop, x.step)
    return _PyList(x)


def _static_iterable(x):
    return is_var(x) or isinstance(x, (TensorRange, Enumerate, Zip))


def _int64(v):
    from ..ops.math import cast
    if is_var(v):
        return v if v.dtype.name == "int64" else cast(v, "int64")
    return v


def convert_range(*args):
    """`range(...)`; a static bound gives a `TensorRange` that `convert_for` turns into a `while` op."""
    if any(is_var(a) for a in args):
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
        return TensorRange(start, stop, step)
    return range(*[a if not isinstance(a, TensorMethods) else int(a) for a in args])


def convert_enumerate(x, start=0):
    return Enumerate(x, start) if _static_iterable(x) else enumerate(x, start)


def convert_zip(*xs):
    return Zip(*xs) if any(_static_iterable(x) for x in xs) else zip(*xs)


# ---- while ------------------------------------------------------------------------------------------------------

def convert_while(cond, body, get, set_, places, in_try=None, read_first=()):
    """`while cond(): body()`: Python iterations until the condition is a static Variable, then a `while` op
    carrying `places` ((text, kind) pairs from the analysis: what the body changes and is read again)."""
    while True:
        c = cond()
        if is_var(c):
            if in_try:
                from .control import try_error
                raise try_error("`while`", in_try)
            log.info(2, f"{_site()}: `while` on a static value -> while op over {[t for t, _ in places]}")
            return _static_loop(get, set_, places, lambda extra: cond(), lambda extra: (body(), [])[1], [],
                                read_first)
        if isinstance(c, UndefinedVar):
            raise c.error()
        if not c:
            return
        body()


def convert_for(iterable, body, get, set_, places, target, brk, in_try=None, read_first=()):
    """`for item in iterable: body(item)`; a static iterable (a tensor, a range with a static bound) becomes
    a `while` op; a static `break` inside a Python loop guards the remaining iterations with `cond`."""
    if _static_iterable(iterable):
        if in_try:
            from .control import try_error
            raise try_error("`for`", in_try)
        log.info(2, f"{_site()}: `for` over a static value -> while op over {[t for t, _ in places]}")
        src = _source(iterable)
        n = src.length()
        from ..ops.creation import full

        def cond(extra):
            k = extra[0]
            c = k < n
            if brk is not None:
                b = brk()
                if is_var(b) or b:
                    from .control import convert_logical_and
                    return convert_logical_and(lambda: convert_logical_not(b), lambda: c)
            return c

        def step(extra):
            k = extra[0]
            body(src.item(k))
            return [k + 1]
        return _static_loop(get, set_, places, cond, step, [full([], 0, "int64")], read_first)
    check_not_advanced(iterable, "a `for` loop over")
    for item in iterable:
        if brk is not None:
            b = brk()
            if is_var(b):
                convert_ifelse(convert_logical_not(b), lambda: body(item), lambda: None, get, set_, places, in_try)
                continue
            if b:
                break
        body(item)


# ---- the static loop --------------------------------------------------------------------------------------------

def _carried(v):
    """Values a `while` op can carry: Variables, eager Tensors, Python scalars, and nests of them (a container
    with no leaves only when it holds a list the body may fill)."""
    leaves, _ = pytree.flatten(v)
    return all(is_var(x) or isinstance(x, TensorMethods) or isinstance(x, _SCALARS) for x in leaves) and \
        not (isinstance(v, (list, tuple, dict)) and not leaves and not _holds_list(v))


def _holds_list(v):
    if isinstance(v, list):
        return True
    items = v.values() if isinstance(v, dict) else v if isinstance(v, tuple) else ()
    return any(_holds_list(x) for x in items)


def _to_array(v, dtype=None):
    """A tensor array holding the list `v`; an empty list with no `dtype` takes the type of its first append."""
    from ..graph.tensor_array import create_array
    untyped = not v and dtype is None
    arr = create_array(dtype or (v[0].dtype if v else "float32"), v)
    arr.attrs["empty_dtype"] = untyped
    return arr


def _static_loop(get, set_, places, cond_fn, body_fn, extra, read_first=()):
    with static_region():
        return _static_loop_traced(get, set_, places, cond_fn, body_fn, extra, read_first)


def _static_loop_traced(get, set_, places, cond_fn, body_fn, extra, read_first=()):
    """One `while` op over the places. A place with no value yet at the loop (first assigned in the body, or
    None) is typed by tracing the body once beforehand; it is then carried from zeros with a run-time
    "defined" flag, so a use after a loop that never assigned it raises UnboundLocalError as in Python."""
    names = [t for t, _ in places]
    kinds = [k for _, k in places]
    init = list(get())
    snap = Snapshot(init, kinds)
    snap.changed = set(snap.saved)  # loop values go into the objects changed in place
    untyped = [i for i, v in enumerate(init) if isinstance(v, UndefinedVar) or v is None or v is NO_RETURN]
    for i in untyped:
        if names[i] in read_first and isinstance(init[i], UndefinedVar):
            raise UnboundLocalError(
                f"'{names[i]}' is read in a tensor-dependent loop (at {_site()}) before the line that first assigns "
                f"it (line(s) {', '.join(map(str, init[i].lines))}), so its type is unknown when the loop is "
                f"built; assign it before the loop (e.g. {names[i]} = oar.zeros_like(...))")
    fills = {}
    pending = untyped
    prog = builder.default_main_program()
    parent = prog.current_block()
    for _ in range(4):  # the loop's types settle: values with no type yet and values the body widens
        retype = {}
        nb, nops = len(prog.blocks), len(parent.ops)
        seen = _build_loop(get, set_, places, snap, init, fills, cond_fn, body_fn, extra, retype)
        if not pending and not retype:
            return
        _undo(prog, parent, nb, nops, snap, set_, init)  # built only to learn types
        for i in pending:
            _type_from_body(i, seen[i], names, init, fills)
        for i, leaves in retype.items():
            _widen(i, leaves, init, fills)
        pending = []
    raise RuntimeError(f"{_site()}: the types of the loop variables {names} do not settle")


def _undo(prog, parent, nb, nops, snap, set_, init):
    """Removes a loop built only to learn types, and puts the places back."""
    del prog.blocks[nb:]
    del parent.ops[nops:]
    builder.BUILDER.set_block(prog, parent.idx)
    snap.restore()
    set_(tuple(init))


def _type_from_body(i, v, names, init, fills):
    """A place with no value before the loop is carried from zeros of the type the body gives it, with a
    run-time "defined" flag."""
    from ..ops.creation import full, zeros
    leaves, tree = pytree.flatten(v)
    if not any(is_var(x) for x in leaves):
        return
    log.info(1, f"{_site()}: '{names[i]}' is first assigned inside a tensor-dependent loop; it is carried from "
             "zeros, with a run-time 'defined' flag checked where it is used")
    fills[i] = pytree.unflatten(tree, [zeros([d if d >= 0 else 1 for d in x.shape], x.dtype) if is_var(x) else x
                                   for x in leaves])
    if is_var(v):
        lines = init[i].lines if isinstance(init[i], UndefinedVar) else ()
        fills[i] = MaybeUndefinedVar.mark(fills[i], full([], False, "bool"), names[i], lines, "loop")


def _widen(i, changes, init, fills):
    """The start value of place `i` with its leaves retyped as the body leaves them: the promoted dtype (Python
    would promote on the first iteration), the body's shape for a Python number, the element type of a tensor
    array made from an empty list."""
    from ..ops.creation import full
    from ..core import dtype as D
    from ..ops.math import cast
    if "array" in changes:
        fills[i] = _to_array([], changes["array"])
        return
    if "nested" in changes:
        fills[i] = _with_arrays(fills.get(i, init[i]), changes["nested"])
        return
    leaves, tree = pytree.flatten(fills.get(i, init[i]))
    leaves = list(leaves)
    for k, body_leaf in changes.items():
        x = leaves[k]
        if isinstance(x, _SCALARS):
            leaves[k] = full(body_leaf.shape, x.item() if isinstance(x, np.generic) else x, body_leaf.dtype)
        else:
            x = x if is_var(x) else _scalar_var(x)
            leaves[k] = cast(x, D.promote(x.dtype, body_leaf.dtype))
    fills[i] = pytree.unflatten(tree, leaves)


def _build_loop(get, set_, places, snap, init, fills, cond_fn, body_fn, extra, retype):
    """Builds the `while` op; returns the values the body left in the places (as traced). Carried leaves whose
    dtype the body changes, or Python numbers that become tensors of another shape, go to `retype`
    ({place index: {leaf index: body value}}); the op is then built with casts, for the caller to rebuild."""
    names = [t for t, _ in places]
    vals = [fills.get(i, v) for i, v in enumerate(init)]
    carried, const = [], {}
    for i, v in enumerate(vals):
        if isinstance(v, list) and all(is_var(x) or isinstance(x, TensorMethods) for x in v) and \
                places[i][1].startswith("name"):  # a list the body may grow: a tensor array
            vals[i] = _to_array(v)
            carried.append(i)
        elif not isinstance(v, UndefinedVar) and v is not None and v is not NO_RETURN and _carried(v):
            carried.append(i)
        else:
            const[i] = v
    arrays = {i for i in carried if is_array(vals[i])}
    scalars = {}
    for i in carried:  # Python scalars carried by a static loop become tensors
        leaves, tree = pytree.flatten(vals[i])
        scalars[i] = {k for k, x in enumerate(leaves) if isinstance(x, _SCALARS)}
        if any(isinstance(x, _SCALARS) for x in leaves):
            vals[i] = pytree.unflatten(tree, [_scalar_var(x) if isinstance(x, _SCALARS) else x for x in leaves])
    # a value Python may not have assigned (first assigned in this loop, or in one branch of an `if`)
    # carries its run-time "defined" flag through the loop
    flagged = [(i, defined_flag(vals[i]), undefined_info(vals[i])) for i in carried]
    flagged = [(i, f, info) for i, f, info in flagged if is_var(f)]
    start = [snap.freeze(vals[i]) for i in carried] + [f for _, f, _ in flagged] + list(extra)
    nc, nf = len(carried), len(flagged)
    nested = [{k for k, leaf in enumerate(pytree.flatten(start[j])[0]) if is_array(leaf)} if i not in arrays else set()
              for j, i in enumerate(carried)]
    last = {}

    def restore(lv, state):
        """Writes the loop values `lv` (carried, then flags) back into the places."""
        for j, i in enumerate(carried):
            x = lv[j]
            if i in arrays and is_var(x):
                x.attrs["kind"] = "tensor_array"
                if vals[i].attrs.get("empty_dtype"):  # made from an empty list: the first append types it
                    x.attrs["empty_dtype"] = True
            elif nested[j]:  # tensor arrays inside a carried container
                for k, leaf in enumerate(pytree.flatten(x)[0]):
                    if k in nested[j] and is_var(leaf):
                        leaf.attrs["kind"] = "tensor_array"
            state[i] = x if i in arrays else snap.write_back(init[i], x)
        for j, (i, _, info) in enumerate(flagged):
            if is_var(state[i]):
                MaybeUndefinedVar.mark(state[i], lv[nc + j], names[i], info[0], info[1] or "loop")
        set_(tuple(state))

    def load(lv):
        restore(lv, list(vals))
        return list(lv[nc + nf:])

    def cond(*lv):
        return cond_fn(load(lv))

    def body(*lv):
        ex = body_fn(load(lv))
        now = list(get())
        last.update((i, snap.freeze(now[i])) for i in range(len(now)))
        out = []
        for j, i in enumerate(carried):
            v = snap.freeze(now[i])
            grown = _grown_lists(start[j], v) if i not in arrays else {}
            if grown:  # lists inside a carried container that the body appends to: rebuilt as tensor arrays
                retype[i] = {"nested": grown}
                v = start[j]
            elif i not in arrays:
                v = _note_retype(i, v, start[j], scalars.get(i, ()), retype)
            elif is_var(v) and v.dtype is not start[j].dtype:  # an empty list: the element type is learnt now
                retype[i] = {"array": v.dtype}
                v = start[j]
            out.append(_match(names[i], v, start[j], i in arrays))
        out += [defined_flag(now[i]) for i, _, _ in flagged]
        return out + list(ex)
    res = cf.while_loop(cond, body, start)
    seen = dict(last)
    state = list(vals)
    for i in const:
        if i in last:
            state[i] = last[i]
    restore(res, state)
    return seen


def _note_retype(i, v, start, scalar_leaves, retype):
    """Records leaves of the body value `v` whose type differs from the loop variable's; returns `v` with a
    rank change replaced by zeros of the loop variable's shape (the op built is then thrown away)."""
    from ..ops.creation import zeros
    lv, tv = pytree.flatten(v)
    ls, ts = pytree.flatten(start)
    if tv != ts:
        return v
    out = list(lv)
    for k, (x, y) in enumerate(zip(lv, ls)):
        if not (is_var(x) and is_var(y)):
            continue
        if x.ndim != y.ndim and k in scalar_leaves and all(d >= 0 for d in x.shape):
            retype.setdefault(i, {})[k] = x
            out[k] = zeros([d if d >= 0 else 1 for d in y.shape], y.dtype)
        elif x.dtype is not y.dtype and (k in scalar_leaves or x.dtype.kind == y.dtype.kind):
            from ..core import dtype as D
            if D.promote(x.dtype, y.dtype) is not y.dtype:
                retype.setdefault(i, {})[k] = x
    return pytree.unflatten(tv, out)


def _grown_lists(before, after, path=()):
    """{path: element dtype} of the lists of tensors inside the carried container `before` that the body made
    longer (`feats['k'].append(v)`): they are carried as tensor arrays."""
    def tensors(xs):
        return all(is_var(x) or isinstance(x, TensorMethods) for x in xs)
    if isinstance(before, list) and isinstance(after, list):
        if path and len(after) > len(before) and tensors(before) and tensors(after):
            return {path: after[0].dtype}
        if len(before) != len(after):
            return {}
    out = {}
    if isinstance(before, dict) and isinstance(after, dict):
        for k in before:
            if k in after:
                out.update(_grown_lists(before[k], after[k], path + (k,)))
    elif isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)) and len(before) == len(after):
        for k, (a, b) in enumerate(zip(before, after)):
            out.update(_grown_lists(a, b, path + (k,)))
    return out


def _with_arrays(v, paths, path=()):
    """A copy of the container `v` with the lists at `paths` made tensor arrays of the given element dtypes."""
    if path in paths:
        return v if is_array(v) else _to_array(list(v), paths[path])
    if isinstance(v, dict):
        return {k: _with_arrays(x, paths, path + (k,)) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        items = [_with_arrays(x, paths, path + (k,)) for k, x in enumerate(v)]
        return items if isinstance(v, list) else v._make(items) if hasattr(v, "_make") else tuple(items)
    return v


def _scalar_var(x):
    from ..ops.creation import full
    dt = "bool" if isinstance(x, (bool, np.bool_)) else ("int64" if isinstance(x, (int, np.integer)) else "float32")
    return full([], x.item() if isinstance(x, np.generic) else x, dt)


def _match(name, v, init, array):
    """The body's value for a carried variable, in the loop var's dtype (Python scalars become constants)."""
    from ..ops.math import cast
    lv, tv = pytree.flatten(v)
    li, ti = pytree.flatten(init)
    if tv != ti:
        raise ValueError(f"loop variable '{name}' changes structure inside a tensor-dependent loop "
                         f"({cf._describe(init)} before, {cf._describe(v)} after the body)")
    out = []
    for x, y in zip(lv, li):
        if isinstance(x, UndefinedVar):
            raise x.error()
        if isinstance(x, TensorMethods) and not is_var(x):
            from ..ops.creation import assign
            x = assign(x)
        if is_var(x) and is_var(y) and x.dtype is not y.dtype and not array:
            x = cast(x, y.dtype)
        elif not is_var(x) and is_var(y):
            from ..ops.creation import full
            x = full([d if d >= 0 else 1 for d in y.shape] if y.ndim else [], x, y.dtype.name)
        out.append(x)
    return pytree.unflatten(tv, out)
