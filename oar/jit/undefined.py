"""`UndefinedVar`: the value of a name before Python would have assigned it. Converted blocks share names
through `nonlocal`, so such names must exist; any use of one raises UnboundLocalError naming the variable,
the line that used it and the lines that assign it -- exactly when Python would have raised."""
import linecache
import weakref

import numpy as np

from ..ops.onnx_rules import passthrough
from ..ops.registry import apply, defop
from ..graph.variable import Variable


def _where():
    from ..graph.builder import user_location
    return user_location()


def _unbound_message(name, lines, file, why, returned_by=None):
    """UnboundLocalError's text: the variable, where it is used (the user's line now), the lines assigning it."""
    loc = _where()
    if returned_by is not None:
        msg = f"local variable '{name}' is returned by '{returned_by}' before it is assigned"
    else:
        used = f" at {loc[0]}:{loc[1]} ({loc[2]})" if loc else ""
        msg = f"local variable '{name}' is used{used} before it is assigned"
    file = file or (loc[0] if loc else None)
    if lines and file:
        msg += "; it is assigned only at " + "; ".join(
            f"line {l}: {linecache.getline(file, l).strip()}" for l in lines) + ", " + why
    return msg


class UndefinedVar:
    __slots__ = ("name", "lines")

    def __init__(self, name, *lines):
        self.name, self.lines = name, lines

    def error(self):
        return UnboundLocalError(_unbound_message(self.name, self.lines, None, "on a path that did not run"))

    def _raise(self, *args, **kwargs):
        raise self.error()

    def __getattr__(self, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        raise self.error()

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __setitem__ = __float__ = __int__ = __index__ = _raise
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _raise
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _raise
    __neg__ = __pos__ = __abs__ = __invert__ = __lt__ = __le__ = __gt__ = __ge__ = _raise
    __and__ = __or__ = __xor__ = __rand__ = __ror__ = __rxor__ = _raise

    def __repr__(self):
        return f"<undefined {self.name}>"


class _NoReturn:
    """The value of `__return_value` before any `return` ran (a returned None is a real value)."""

    def __repr__(self):
        return "<no return yet>"


NO_RETURN = _NoReturn()


def returned(value):
    """What the converted function returns: None when no `return` statement ran."""
    return None if value is NO_RETURN else value


def check_defined(value):
    """Raises when `value` is an UndefinedVar (used where Python reads a name: returns, call arguments)."""
    if isinstance(value, UndefinedVar):
        raise value.error()
    return value


# ---- a value defined in one branch of a tensor-dependent `if` -------------------------------------------------

def _assert_defined(flag, message):
    if not bool(np.asarray(flag).reshape(-1)[0]):
        raise UnboundLocalError(message)
    return np.asarray(flag)


ASSERT_DEFINED = defop("assert_defined", _assert_defined, inputs=("defined",), infer=lambda m, message: [m[0]])
ASSERT_DEFINED.set(side_effect=True, amp="skip", differentiable=False, onnx=passthrough)


_INFO = {}  # id(MaybeUndefinedVar) -> (weakref, defined flag, name, lines, blocks checked, kind); Variables define ==

_WHY = {"if": "in the branch of a tensor-dependent `if` that did not run",
        "loop": "inside a tensor-dependent loop, which ran no iteration that assigned it"}


class MaybeUndefinedVar(Variable):
    """The value of a name that Python may not have assigned: assigned in one branch only of a tensor-dependent
    `if`, or first assigned inside a tensor-dependent loop. It computes like the Variable it is, and carries a
    run-time "defined" flag; the first time an op of a block uses it, an `assert_defined` op is added there,
    which raises UnboundLocalError (naming the variable, the line using it and the lines assigning it) when
    the program runs down a path that did not assign it -- Python's rule."""

    __slots__ = ()

    @classmethod
    def mark(cls, var, flag, name, lines, kind="if"):
        var.__class__ = cls
        loc = _where()
        # the flag is held weakly (the Program holds it as long as `var`): a strong reference here would keep
        # the Program, and so `var` and this entry, alive forever (every such trace leaked its program)
        held = weakref.ref(flag) if isinstance(flag, Variable) else (lambda f=flag: f)
        _INFO[id(var)] = (weakref.ref(var), held, name, lines, set(), kind, loc[0] if loc else None)
        weakref.finalize(var, _INFO.pop, id(var), None)  # the entry dies with var
        return var

    def _info(self):
        info = _INFO.get(id(self))
        return None if info is None or info[0]() is not self else info

    def _on_use(self, block, returned_by=None):
        info = self._info()
        if info is None:
            return
        _, held, name, lines, done, kind, file = info
        flag = held()
        if block.idx in done:
            return
        done.add(block.idx)
        msg = _unbound_message(name, lines, file, _WHY[kind], returned_by)
        apply(ASSERT_DEFINED, (flag,), {"message": msg})

    def check_output(self, returned_by=None):
        self._on_use(self.block.program.current_block(), returned_by)


def defined_flag(v):
    """True for an ordinary value, False for an UndefinedVar, the run-time flag of a MaybeUndefinedVar."""
    if isinstance(v, UndefinedVar):
        return False
    if isinstance(v, MaybeUndefinedVar):
        info = v._info()
        if info is not None:
            return info[1]()
    return True


def undefined_info(v):
    """(lines, kind) of an UndefinedVar / MaybeUndefinedVar, else None."""
    if isinstance(v, UndefinedVar):
        return v.lines, None
    if isinstance(v, MaybeUndefinedVar):
        info = v._info()
        if info is not None:
            return info[3], info[5]
    return None
