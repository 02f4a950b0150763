"""Runtime side of `transformers/stores.py` and of calls that change containers: each does what the Python
statement does and, while a program is traced, logs the change when its target outlives the call
(`effects.py`), so the change is replayed after every run of the program.

Example:
    >>> from oar.jit.store_runtime import st_item
    >>> d = {}
    >>> st_item(3, d, 'k'); d      # `d['k'] = 3`
    {'k': 3}
"""
import operator
import re
from collections.abc import Iterator

from .effects import CURRENT, MUTATORS

_CONTAINERS = (list, dict, set)


def _target(obj):
    """The active recorder when `obj` is an external object, else None."""
    rec = CURRENT.recorder
    if rec is not None and id(obj) in rec.external:
        return rec
    return None


def st_item(value, obj, key):
    """`obj[key] = value`."""
    rec = _target(obj) if isinstance(obj, _CONTAINERS) else None
    if rec is not None:
        rec.before(obj)
    obj[key] = value
    if rec is not None:
        rec.record("setitem", obj, key, value)


def del_item(obj, key):
    """`del obj[key]`."""
    rec = _target(obj) if isinstance(obj, _CONTAINERS) else None
    if rec is not None:
        rec.before(obj)
    del obj[key]
    if rec is not None:
        rec.record("delitem", obj, key)


def aug_item(obj, key, op, value):
    """`obj[key] <op>= value`."""
    st_item(getattr(operator, op)(obj[key], value), obj, key)


def set_attr(value, obj, name):
    """`obj.name = value`."""
    rec = _target(obj)
    if rec is not None:
        rec.before(obj, name)
    setattr(obj, name, value)
    if rec is not None:
        rec.record("setattr", obj, name, value)


def aug_attr(obj, name, op, value):
    """`obj.name <op>= value`."""
    set_attr(getattr(operator, op)(getattr(obj, name), value), obj, name)


def del_attr(obj, name):
    rec = _target(obj)
    if rec is not None:
        rec.before(obj, name)
    delattr(obj, name)
    if rec is not None:
        rec.record("delattr", obj, name)


def check_not_advanced(obj, what):
    """Refuses to advance an external iterator (a generator, `iter(xs)`, a file, reached from the arguments,
    `self`, a global or a closure) while tracing: the program would bake in the items read at trace time, and
    later calls would neither see the next items nor advance it. A StaticValueError, so with full_graph=False the
    statement runs as Python on every call (a graph break)."""
    if isinstance(obj, Iterator) and _target(obj) is not None:
        from .errors import unsupported
        raise unsupported(f"{what} the iterator {type(obj).__name__!r} that outlives the call (its state would be "
                          "baked into the program: every call would see the items read while tracing)",
                          "Pass the items as arguments (`f(x, next(it))`), make the iterator inside the function, "
                          "or use full_graph=False (the statement then runs as Python on every call).")


def _checked_next(it, *default):
    check_not_advanced(it, "`next()` on")
    return next(it, *default)


def logged_call(fn):
    """`fn` (a builtin) as converted code calls it while tracing: a mutating method of an external list,
    dict or set, and `setattr`/`delattr` on an external object, are logged; `next()` and a generator's `send`/
    `throw` on an external iterator are refused (`check_not_advanced`); anything else is `fn` itself."""
    owner = getattr(fn, "__self__", None)
    if fn is setattr:
        return lambda obj, name, value: set_attr(value, obj, name)
    if fn is delattr:
        return del_attr
    if fn is next:
        return _checked_next
    if isinstance(owner, Iterator) and fn.__name__ in ("__next__", "send", "throw"):
        check_not_advanced(owner, f"`.{fn.__name__}()` on")
    if not isinstance(owner, _CONTAINERS):
        return fn
    rec = _target(owner)
    kind = next(t for t in _CONTAINERS if isinstance(owner, t))
    if rec is None or fn.__name__ not in MUTATORS[kind]:
        return fn
    name = fn.__name__

    def call(*args, **kwargs):
        if name in ("extend", "update") and args and not isinstance(args[0], (list, tuple, dict, set, str)):
            args = (list(args[0].items()) if hasattr(args[0], "keys") else list(args[0]),) + args[1:]
        rec.before(owner)
        result = fn(*args, **kwargs)
        rec.record("call", owner, name, args, kwargs)
        return result
    return call


_GENERATED = re.compile(r"__(true_fn|false_fn|get|set|cond|body|st|pop|break|continue)_\d+$|__return_(value|flag)$"
                        r"|__oar")


def user_locals(names):
    """`locals()` without the names conversion adds (`_jst`, generated helpers and flags)."""
    return {k: v for k, v in names.items() if k != "_jst" and not _GENERATED.match(k)}
