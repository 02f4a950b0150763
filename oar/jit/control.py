"""Runtime control flow for converted code: `convert_ifelse`, `convert_ifexp`, `convert_while`,
`convert_for`, and the logical operators. Each runs plain Python when its operand is a Python value (or an
eager Tensor) and builds a `cond` / `while` op when it is a static Variable, reconciling what the branches
or the loop body leave in the shared variables (Python scalars become constants, a value missing in one
branch gets a zero filler when the other defines it, lists carried by loops become tensor arrays)."""
import numpy as np

from ..graph import control_flow as cf
from ..graph import pytree
from ..graph import builder
from ..core.tensor_methods import TensorMethods
from . import log
from .effects import graph_break_wanted, static_region
from .places import Snapshot
from .static_values import is_array, is_var, no_state  # noqa: F401  (no_state: converted code's, via runtime)
from .undefined import NO_RETURN, MaybeUndefinedVar, UndefinedVar, defined_flag, undefined_info

_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def _site():
    loc = builder.user_location()
    return f"{loc[0].rsplit('/', 1)[-1]}:{loc[1]}" if loc else "?"


# ---- if / else --------------------------------------------------------------------------------------------------

def convert_ifelse(pred, true_fn, false_fn, get, set_, places, in_try=None):
    """`if pred: true_fn() else: false_fn()`; a static `pred` builds a `cond` op whose outputs are the live
    `places` ((text, kind) pairs from the analysis). Objects changed in place are snapshotted, each branch is
    traced from the same state, and the merged values are written back into the objects the user holds."""
    if not is_var(pred):
        if isinstance(pred, UndefinedVar):
            raise pred.error()
        return true_fn() if pred else false_fn()
    if in_try:
        raise try_error("`if`", in_try)
    names = [t for t, _ in places]
    kinds = [k for _, k in places]
    outs = [i for i, k in enumerate(kinds) if k != "dead"]
    log.info(2, f"{_site()}: `if` on a static value -> cond op over {[names[i] for i in outs]}")
    with static_region():
        _static_if(pred, true_fn, false_fn, get, set_, kinds, outs, names)


def _static_if(pred, true_fn, false_fn, get, set_, kinds, outs, names):
    init = list(get())
    snap = Snapshot(init, kinds)

    def branch(fn):
        def run():
            snap.restore()
            set_(tuple(init))
            fn()
            snap.note_changes()
            now = get()
            return [snap.freeze(now[i]) for i in outs]
        return run
    merged = static_branches(_pred(pred), branch(true_fn), branch(false_fn), [names[i] for i in outs])
    snap.restore()
    final = list(init)
    for i, v in zip(outs, merged):
        final[i] = snap.write_back(init[i], v)
    set_(tuple(final))


def convert_ifexp(pred, true_fn, false_fn):
    """`a if pred else b` with lazily evaluated sides."""
    if not is_var(pred):
        return true_fn() if pred else false_fn()
    return static_branches(_pred(pred), lambda: [true_fn()], lambda: [false_fn()], ("<value>",))[0]


def _pred(p):
    from ..ops.math import cast
    from ..ops.logic import all as _all
    if p.dtype.kind != "b":
        p = cast(p, "bool")
    if p.size != 1:
        p = _all(p)
    return p


def static_branches(pred, true_run, false_run, names):
    """Traces both branches into sub-blocks, reconciles their values name by name, builds the cond op."""
    prog = builder.default_main_program()
    parent = prog.current_block()
    tb, tout = cf._trace(prog, true_run)
    fb, fout = cf._trace(prog, false_run)
    tout, fout = list(tout), list(fout)
    partial = []
    for i, name in enumerate(names):
        a, b = _align(tout[i], fout[i])
        tout[i], fout[i] = _reconcile(name, a, b, tb, fb)
        if name.startswith("__"):
            continue
        la, lb, lr = pytree.flatten(a)[0], pytree.flatten(b)[0], pytree.flatten(tout[i])[0]
        if not len(la) == len(lb) == len(lr):
            continue
        for k, (x, y, r) in enumerate(zip(la, lb, lr)):  # a value one path did not assign: a run-time flag
            fx, fy = defined_flag(x), defined_flag(y)
            if is_var(r) and not (fx is True and fy is True):
                ux, uy = undefined_info(x), undefined_info(y)
                lines = (ux or uy)[0] or (uy or ux)[0]
                kind = (ux and ux[1]) or (uy and uy[1]) or "if"
                key = next((u.name for u in (x, y) if isinstance(u, UndefinedVar) and u.name.startswith("[")), "")
                partial.append((i, k, name + key, lines, kind))
                tout.append(fx)  # merged by the same cond
                fout.append(fy)
    _check_ranks(names, tout, fout)
    out = cf.build_cond(pred, parent, tb, tout, fb, fout)
    n = len(names)
    for i in range(n):  # a list carried as a tensor array stays one through the cond
        for side in (tout[i], fout[i]):
            if is_array(side) and is_var(out[i]):
                out[i].attrs.update(side.attrs)
    for j, (i, k, name, lines, kind) in enumerate(partial):
        leaf = pytree.flatten(out[i])[0][k]
        if is_var(leaf):
            MaybeUndefinedVar.mark(leaf, out[n + j], name, lines, kind)
    return out[:n]


def _check_ranks(names, tout, fout):
    """A program value has one rank: tensors of different rank on the two paths of a tensor `if` cannot merge.
    The error is a graph break (with full_graph=False the `if` then runs in Python, as Paddle's SOT does)."""
    for name, a, b in zip(names, tout, fout):
        la, lb = pytree.flatten(a)[0], pytree.flatten(b)[0]
        for k, (x, y) in enumerate(zip(la, lb)):
            if is_var(x) and is_var(y) and x.ndim != y.ndim and not is_array(x) and not is_array(y):
                from .errors import unsupported
                where = name + (f" (leaf {k})" if len(la) > 1 else "")
                raise unsupported(f"a tensor-dependent `if` leaving a rank-{x.ndim} tensor {x.shape} in '{where}' "
                                  f"on one path and a rank-{y.ndim} tensor {y.shape} on the other",
                                  "A program value has one rank: give both paths the same rank (reshape), or "
                                  "pass full_graph=False so this `if` runs in Python between programs.")


def _align(a, b):
    """`a` and `b` with the dict keys one path added and the other did not filled with UndefinedVar, so a
    dict written in one branch only (`d['w'] = x`) merges key by key."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() != b.keys():
        a2, b2 = {}, {}
        for k in list(a) + [k for k in b if k not in a]:
            a2[k], b2[k] = _align(a.get(k, UndefinedVar(f"[{k!r}]")), b.get(k, UndefinedVar(f"[{k!r}]")))
        return a2, b2
    if isinstance(a, dict) and isinstance(b, dict):
        pairs = {k: _align(a[k], b[k]) for k in a}
        return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b) and len(a) == len(b):
        pairs = [_align(x, y) for x, y in zip(a, b)]
        return _like(a, [p[0] for p in pairs]), _like(b, [p[1] for p in pairs])
    return a, b


def _reconcile(name, a, b, tb, fb):
    if name.startswith(RETURN_VALUE) and (a is NO_RETURN) != (b is NO_RETURN):
        # one path has returned, the other not yet (its flag says so): the latter holds a filler of the same
        # structure; a Python value returned (None, a number) is kept, and a later `return` of anything else on
        # the other path is then an error
        done, block = (a, fb) if b is NO_RETURN else (b, tb)
        if not any(is_var(v) for v in pytree.flatten(done)[0]):
            return done, done
        return (a, _fill_like(b, a, fb)) if b is NO_RETURN else (_fill_like(a, b, tb), b)
    la, ta = pytree.flatten(a)
    lb, tb_ = pytree.flatten(b)
    if ta != tb_:
        if isinstance(a, UndefinedVar) or isinstance(b, UndefinedVar):
            return _one_sided(name, a, b, tb, fb)
        what = "the function returns" if name.startswith(RETURN_VALUE) else f"'{name}' has"
        raise ValueError(f"{what} a different structure on the two paths of the tensor-dependent `if` at {_site()}: "
                         f"{cf._describe(a)}{_origin(a, tb)} vs {cf._describe(b)}{_origin(b, fb)}; give both "
                         "paths the same structure")
    ra, rb = [], []
    for x, y in zip(la, lb):
        x, y = _leaf_pair(name, x, y, tb, fb)
        ra.append(x)
        rb.append(y)
    return pytree.unflatten(ta, ra), pytree.unflatten(ta, rb)


RETURN_VALUE = "__return_value"


def _origin(value, block):
    """` (line N: source)` of the op in `block` that made the first static leaf of `value`, or ''."""
    names = {v.name for v in pytree.flatten(value)[0] if is_var(v)}
    for op in reversed(block.ops):
        if names & set(op.output_names()) and op.loc:
            return f" (line {op.loc[1]}: {op.loc[2]})"
    return ""


def _fill_like(missing, like, block):
    """A value of `like`'s structure for a path where the function has not returned yet."""
    leaves, tree = pytree.flatten(like)
    return pytree.unflatten(tree, [_filler(RETURN_VALUE, v, block, missing) if is_var(v) else v for v in leaves])


def _missing(v):
    return v is None or isinstance(v, UndefinedVar)


def _one_sided(name, a, b, tb, fb):
    if is_var(a) and _missing(b):
        return a, _filler(name, a, fb, b)
    if is_var(b) and _missing(a):
        return _filler(name, b, tb, a), b
    if _missing(a) or _missing(b):  # undefined on one side, a Python value on the other: stays undefined
        u = a if isinstance(a, UndefinedVar) else b
        return u, u
    raise ValueError(f"'{name}' differs between the branches of a tensor-dependent `if`")


def _filler(name, v, block, missing):
    """A zero of `v`'s type where the other branch does not define it (the return value, or a variable
    defined in one branch only: Python semantics would raise only if it were used on that path)."""
    from ..ops.creation import zeros
    if not name.startswith("__"):
        log.info(1, f"{_site()}: '{name}' is assigned in one branch only of a tensor-dependent `if`; the other "
                 "branch gives zeros")
    with cf.in_block(block):
        return zeros([d if d >= 0 else 1 for d in v.shape], v.dtype)


def _leaf_pair(name, x, y, tb, fb):
    if x is y:
        return x, y
    if _missing(x) or _missing(y):
        return _one_sided(name, x, y, tb, fb)
    x = _as_block_value(x, tb)
    y = _as_block_value(y, fb)
    return x, y


def _as_block_value(v, block):
    """Eager Tensors (constants, parameters) become Variables inside the branch block."""
    if isinstance(v, TensorMethods) and not is_var(v):
        from ..ops.creation import assign
        with cf.in_block(block):
            return assign(v)
    return v


def try_error(what, line):
    from .errors import unsupported
    return unsupported(f"a tensor-dependent {what} inside `try` (the `try` at line {line})",
                       "Errors inside a static program are raised when the program runs, where this `try` cannot "
                       "catch them. Move the `try` out of the converted function, make the condition a Python "
                       "value, or mark the function with @oar.jit.not_to_static.")


# ---- logical operators ------------------------------------------------------------------------------------------

def _bool_var(v):
    from ..ops.math import cast
    from ..ops.manipulation import reshape
    if is_var(v):
        if v.dtype.kind != "b":
            v = cast(v, "bool")
        if v.ndim == 0:
            v = reshape(v, [1])
        return v
    if isinstance(v, TensorMethods):
        return _bool_var(_as_block_value(v, builder.default_main_program().current_block()))
    from ..ops.creation import full
    return full([1], bool(v), "bool")


def _value_break(a, op, value):
    """`op` on the static value `a` whose result Python code sees as a value: with full_graph=False a graph
    break (the statement runs as Python, as eager code), with full_graph=True Paddle's convention (a bool
    tensor)."""
    if value and graph_break_wanted():
        from .errors import unsupported
        raise unsupported(f"`{op}` on the static value '{a.name}' used as a value (Python code sees "
                          f"{'a Python bool' if op == 'not' else 'one of the operands'})",
                          "With full_graph=False it runs as Python (a graph break).")


def convert_logical_and(lhs, rhs, value=False):
    """`lhs() and rhs()`; on a static lhs the right side is traced inside a cond, so it runs only if needed.
    `value`: the result is used as a value, not only as a condition (`_value_break`)."""
    a = lhs()
    if not is_var(a):
        return rhs() if a else a
    _value_break(a, "and", value)
    a = _bool_var(a)
    return static_branches(_pred(a), lambda: [_bool_var(rhs())], lambda: [a], ("<and>",))[0]


def convert_logical_or(lhs, rhs, value=False):
    """`lhs() or rhs()`, lazily."""
    a = lhs()
    if not is_var(a):
        return a if a else rhs()
    _value_break(a, "or", value)
    a = _bool_var(a)
    return static_branches(_pred(a), lambda: [a], lambda: [_bool_var(rhs())], ("<or>",))[0]


def convert_logical_not(x, value=False):
    if not is_var(x):
        if isinstance(x, UndefinedVar):
            raise x.error()
        return not x
    _value_break(x, "not", value)
    from ..ops.logic import logical_not
    from ..ops.math import cast
    return logical_not(x if x.dtype.kind == "b" else cast(x, "bool"))


_CMP = {"Eq": lambda a, b: a == b, "NotEq": lambda a, b: a != b, "Lt": lambda a, b: a < b,
        "LtE": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "GtE": lambda a, b: a >= b,
        "Is": lambda a, b: a is b, "IsNot": lambda a, b: a is not b, "In": lambda a, b: a in b,
        "NotIn": lambda a, b: a not in b}


def convert_compare_chain(ops, thunks):
    """`a < b < c`: each operand evaluated once, stopping at the first false link (Python semantics)."""
    left = thunks[0]()
    result = None
    for op, th in zip(ops, thunks[1:]):
        right = th()
        r = _CMP[op](left, right)
        if result is None:
            result = r
        elif is_var(result) or is_var(r):
            from ..ops.logic import logical_and
            result = logical_and(_bool_var(result), _bool_var(r))
        else:
            result = result and r
        if not is_var(result) and not result:
            return result
        left = right
    return result


def _like(seq, items):
    """A list/tuple of `items` of the type of `seq` (a namedtuple is built from its fields)."""
    return seq._make(items) if hasattr(seq, "_make") else type(seq)(items)
