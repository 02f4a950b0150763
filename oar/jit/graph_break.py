"""Graph breaks (`to_static(fn, full_graph=False)`): where a statement of the function cannot become part of a
program (it needs a tensor's value in Python: `try` around tensor control flow, `.tolist()`, NumPy on a
tensor, a call into code that cannot be converted), the function is split at its top-level statements: the
runs of statements before and after become programs (each its own `StaticFunction`, cached per signature) and
the breaking statement runs as plain Python between them. Values flow between the pieces as eager tensors.

    def f(x):                 piece 1 (program):   y = x * 2
        y = x * 2             piece 2 (Python):    try: ... y.tolist() ...
        try:                  piece 3 (program):   return y + 1
            n = len(y.tolist())
        except ValueError:
            n = 0
        return y + n

A piece takes the names it reads that earlier statements (or the arguments) define, and gives back the names
it assigns that later statements read. A `return` nested in a program piece makes that piece run to the end of
the function.

Example:
    >>> def f(x):
    ...     y = x * 2
    ...     k = len(y.tolist())       # needs the value: a graph break
    ...     return y + k
    >>> sf = oar.jit.to_static(f, full_graph=False)
    >>> sf(oar.to_tensor([1.0, 2.0])).numpy().tolist()
    [4.0, 6.0]
    >>> [line for line, _ in sf.graph_breaks]
    [3]
"""
import linecache

from ..graph import pytree
from ..graph.variable import StaticValueError
from . import log
from .break_plan import (SIGNAL_BREAK, SIGNAL_CONTINUE, UNBOUND_VALUE, Block, Plan, Returned, body_of, in_header,
                         splittable)
from .undefined import UndefinedVar

MAX_BREAKS = 64


def break_line(exc, filename, first, last):
    """The line of the user's function (file `filename`, lines first..last) where `exc` was raised, or None."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and first <= tb.tb_lineno <= last:
            found = tb.tb_lineno
        tb = tb.tb_next
    return found


class _Env(dict):
    """The function's locals while it runs as pieces: a name with no value yet reads as Python's error."""

    def __missing__(self, name):
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")


class SegmentedFunction:
    """`fn` run as pieces split at graph breaks (`break_plan.py`): `breaks` are statement paths, (i,) for
    statement i of the body, (i, 'body', j) for statement j of its body, and so on."""

    def __init__(self, fn, tree, make_static):
        self.fn = fn
        self.filename = fn.__code__.co_filename
        self.plan = Plan(fn, tree.body[0], make_static)
        self.breaks, self.found = set(), []  # every split statement; the statements that raised a break
        self.root = self.plan.fill(Block(self.plan.fdef.body, (), set(), False), self.breaks)
        self._undefined = {}

    @property
    def graph_breaks(self):
        """[(line, source)] of the statements that raised a graph break, in the order found."""
        return [(line, linecache.getline(self.filename, line).strip()) for line in
                (self.plan.statement(p).lineno for p in self.found)]

    def add_break(self, error, block=None):
        """Splits `block` (the function's body by default) at the statement that raised `error` -- inside the
        bodies of `for`/`while`/`if`/`with` statements holding it, whose headers run as Python --, or raises
        `error` when it was split there already."""
        block = block or self.root
        fdef = self.plan.fdef
        line = break_line(error, self.filename, fdef.lineno, fdef.end_lineno)
        stmts, prefix, new = block.stmts, block.path, []
        while line is not None:
            index = next((i for i, st in enumerate(stmts) if st.lineno <= line <= st.end_lineno), None)
            if index is None:
                break
            path, stmt = prefix + (index,), stmts[index]
            if path not in self.breaks:
                new.append(path)
            inner = body_of(stmt, line) if splittable(stmt) and not in_header(stmt, line) else None
            if inner is None:
                break
            prefix, stmts = path + (inner[0],), getattr(stmt, inner[0])
        if not new or len(self.breaks) + len(new) > MAX_BREAKS:
            raise error
        self.breaks.update(new)
        self.found.append(new[-1])
        self.plan.fill(block, self.breaks)
        log.info(1, f"'{self.fn.__name__}': graph break at {self.filename}:{line} "
                 f"({linecache.getline(self.filename, line).strip()}): it runs as Python between programs")

    def __call__(self, *args, **kwargs):
        import inspect
        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        bound.apply_defaults()
        signal = self.run(self.root, _Env(bound.arguments))
        return signal.value if isinstance(signal, Returned) else signal

    def run(self, block, env):
        """Runs `block`'s pieces on the locals `env`; returns None (fell through), or the signal that left it."""
        k = 0
        while k < len(block.pieces):
            p = block.pieces[k]
            if p.kind == "control":
                signal = p.call(env, [lambda e, b=b: self.run(b, e) for b in p.blocks])
                if signal is not None:
                    return signal
                k += 1
                continue
            args = [env[n] if n in env else self._unbound(n, p) for n in p.inputs]
            try:
                result = p.call(*args)
            except Exception as e:
                # a break found in a program piece (its trace was undone): split there, go on from it
                if not p.graph or not is_break(e):
                    raise
                first = p.stmts[0]
                self.add_break(e, block)
                k = next(j for j, q in enumerate(block.pieces) if q.stmts[0] is first)
                continue
            k += 1
            if p.tail:
                return _returned(result)
            status, value, outs = result
            status = int(status)
            if status == 1:
                return _returned(value)
            for n, v in zip(p.outputs, outs):
                if isinstance(v, UndefinedVar):
                    env.pop(n, None)
                else:
                    env[n] = v
            if status:
                return SIGNAL_BREAK if status == 2 else SIGNAL_CONTINUE
        return None

    def _unbound(self, name, piece):
        """The value passed for a local with no value yet: Python pieces unbind it, programs get an
        UndefinedVar (any use raises UnboundLocalError, as Python would)."""
        if piece.kind == "python":
            return UNBOUND_VALUE
        u = self._undefined.get(name)
        if u is None:
            u = self._undefined[name] = UndefinedVar(name)
        return u


def _returned(value):
    """The function's result; a local returned without a value raises (a piece's outputs may be unbound)."""
    for v in pytree.flatten(value)[0]:
        if isinstance(v, UndefinedVar):
            raise v.error()
    return Returned(value)


def is_break(exc):
    """True for an error that a graph break can avoid: a static value used where Python needs its value."""
    return isinstance(exc, StaticValueError)
