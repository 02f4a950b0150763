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
import ast
import inspect
import linecache
import types

from ..graph.variable import StaticValueError
from . import log
from .analysis.places import block_places, closure_names
from .transformers.base import walk_scope

MAX_BREAKS = 64
_NO_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def break_line(exc, filename, first, last):
    """The line of the user's function (file `filename`, lines first..last) where `exc` was raised, or None."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and first <= tb.tb_lineno <= last:
            found = tb.tb_lineno
        tb = tb.tb_next
    return found


class _Piece:
    def __init__(self, stmts, graph, inputs, outputs, tail):
        self.stmts, self.graph, self.inputs, self.outputs, self.tail = stmts, graph, inputs, outputs, tail
        self.call = None

    @property
    def lines(self):
        return self.stmts[0].lineno, self.stmts[-1].end_lineno


class SegmentedFunction:
    """`fn` run as pieces split at the top-level statements listed in `breaks` (their indices)."""

    def __init__(self, fn, tree, breaks, make_static):
        self.fn, self.breaks, self.make_static = fn, [], make_static
        self.fdef = tree.body[0]
        self.filename = fn.__code__.co_filename
        self.graph_breaks = []
        self._rebuild(breaks)

    def _rebuild(self, breaks):
        fn, fdef, body = self.fn, self.fdef, list(self.fdef.body)
        new = sorted(set(breaks) - set(self.breaks))
        self.breaks = sorted(breaks)
        self.pieces = _split(fdef, body, set(breaks))
        self.graph_breaks = [(body[i].lineno, linecache.getline(self.filename, body[i].lineno).strip())
                             for i in self.breaks]
        for p in self.pieces:
            piece_fn = _compile(fn, fdef, p)
            p.call = self.make_static(piece_fn) if p.graph else piece_fn
        for i in new:
            log.info(1, f"'{fn.__name__}': graph break at {self.filename}:{body[i].lineno} "
                     f"({linecache.getline(self.filename, body[i].lineno).strip()}): it runs as Python between "
                     "programs")

    def _split_piece(self, piece, error):
        """`piece` (a program) raised graph break `error` before changing anything (its trace was undone): the
        function is split there too; returns the index of the piece now starting where `piece` started."""
        body = self.fdef.body
        line = break_line(error, self.filename, piece.lines[0], piece.lines[1])
        index = next((i for i, st in enumerate(body) if st.lineno <= (line or -1) <= st.end_lineno), None)
        if index is None or index in self.breaks or len(self.breaks) >= MAX_BREAKS:
            raise error
        self._rebuild(self.breaks + [index])
        return next(k for k, p in enumerate(self.pieces) if p.stmts[0] is piece.stmts[0])

    def __call__(self, *args, **kwargs):
        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        bound.apply_defaults()
        env = dict(bound.arguments)
        k = 0
        while k < len(self.pieces):
            p = self.pieces[k]
            missing = [n for n in p.inputs if n not in env]
            if missing:
                raise UnboundLocalError(f"local variable '{missing[0]}' is used at {self.filename}:{p.lines[0]} "
                                        "before it is assigned")
            try:
                result = p.call(*[env[n] for n in p.inputs])
            except Exception as e:
                # a break found in a later piece: split there and go on from it (what ran before is not rerun)
                if not p.graph or not is_break(e):
                    raise
                k = self._split_piece(p, e)
                continue
            k += 1
            if p.tail:
                return result
            returned, value, outs = result
            if returned:
                return value
            env.update(zip(p.outputs, outs))
        return None


def _reads(stmts):
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _assigns(stmts):
    return {t for k, t in block_places(stmts) if k == "name"}


def _has_nested_return(stmts):
    return any(isinstance(n, ast.Return) for s in stmts if not isinstance(s, ast.Return) for n in walk_scope(s))


def _split(fdef, body, breaks):
    """Pieces: runs of statements between breaks (programs) and the breaks themselves (Python)."""
    runs, cur = [], []
    for i, s in enumerate(body):
        if i in breaks:
            if cur:
                runs.append((cur, True))
                cur = []
            runs.append(([s], False))
        else:
            cur.append(s)
        if isinstance(s, ast.Return):
            break  # what follows a top-level return never runs
    if cur:
        runs.append((cur, True))
    # a program piece with a `return` inside its statements runs to the end of the function
    for k, (stmts, graph) in enumerate(runs):
        if graph and _has_nested_return(stmts) and k < len(runs) - 1:
            rest = [s for st, _ in runs[k:] for s in st]
            runs[k:] = [(rest, True)]
            break
    a = fdef.args
    defined = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    defined |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    pinned = closure_names(fdef)
    pinned = set() if not isinstance(pinned, set) else pinned
    pieces = []
    # `global` / `nonlocal` names are shared through the module and the cells, never passed between pieces
    shared = {n for s in fdef.body if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
    for k, (stmts, graph) in enumerate(runs):
        later = _reads([s for st, _ in runs[k + 1:] for s in st]) | pinned
        inputs = sorted((_reads(stmts) & defined) - shared)
        assigned = _assigns(stmts) - shared
        outputs = sorted(assigned & later)
        defined |= assigned
        pieces.append(_Piece(stmts, graph, inputs, outputs, tail=k == len(runs) - 1))
    return pieces


class _Returns(ast.NodeTransformer):
    """`return v` -> `return (True, v, None)` in this scope (nested functions keep their own returns)."""

    def visit_Return(self, node):
        value = node.value if node.value is not None else ast.Constant(None)
        return ast.copy_location(ast.Return(ast.Tuple([ast.Constant(True), value, ast.Constant(None)],
                                                      ast.Load())), node)

    def _scope(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _scope


def _compile(fn, fdef, piece):
    """A function of `piece.inputs` running the piece's statements (original lines, original file)."""
    import copy
    stmts = [copy.deepcopy(s) for s in piece.stmts]
    if not piece.tail:
        stmts = [_Returns().visit(s) for s in stmts]
        outs = ast.Tuple([ast.Name(n, ast.Load()) for n in piece.outputs], ast.Load())
        end = ast.Return(ast.Tuple([ast.Constant(False), ast.Constant(None), outs], ast.Load()))
        stmts.append(ast.copy_location(end, piece.stmts[-1]))
    # the function's `global` / `nonlocal` declarations hold in every piece (they bind the same names)
    declared = [s for s in fdef.body if isinstance(s, (ast.Global, ast.Nonlocal))]
    stmts = [copy.deepcopy(s) for s in declared if s not in piece.stmts] + stmts
    args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in piece.inputs], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    new = ast.FunctionDef(name=fdef.name, args=args, body=stmts, decorator_list=[], returns=None, **_NO_TYPE_PARAMS)
    ast.copy_location(new, piece.stmts[0])
    free = list(fn.__code__.co_freevars)
    factory = ast.FunctionDef(name="__oar_piece_factory", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(n) for n in free], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=[new, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[], returns=None,
        **_NO_TYPE_PARAMS)
    ast.copy_location(factory, piece.stmts[0])
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    ns = {}
    exec(compile(module, fn.__code__.co_filename, "exec"), fn.__globals__, ns)
    # the piece shares the function's closure cells (a `nonlocal` write reaches the enclosing function)
    made = ns["__oar_piece_factory"](*([None] * len(free)))
    cells = dict(zip(free, fn.__closure__ or ()))
    piece_fn = types.FunctionType(made.__code__, fn.__globals__, made.__name__, None,
                                  tuple(cells[n] for n in made.__code__.co_freevars))
    piece_fn.__qualname__ = fn.__qualname__
    piece_fn.__module__ = fn.__module__
    piece_fn.__oar_ast__ = ast.Module(body=[copy.deepcopy(new)], type_ignores=[])
    return piece_fn


def is_break(exc):
    """True for an error that a graph break can avoid: a static value used where Python needs its value."""
    return isinstance(exc, StaticValueError)
