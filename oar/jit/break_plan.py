"""The plan of a function split at graph breaks (`graph_break.py` runs it): its statement lists (blocks) cut
into pieces, and each piece compiled into a function of its own (original file and lines).

A block is the function's body or the body of a `for`/`while`/`if`/`with` statement that holds a break. Its
pieces are:
- "graph": a run of statements with no break, a program (a cached `StaticFunction`);
- "python": a statement that breaks the graph, run as plain Python;
- "control": a `for`/`while`/`if`/`with` holding a break: its header (loop target and iterable, test, context
  managers) runs as Python, each of its bodies is a block of its own, split again.

Graph and Python pieces are functions of the names they read, returning `(status, value, outputs)`: status
0 = fell through (outputs: the names later code may read), 1 = `return value`, 2 = `break`, 3 = `continue`
(the last two exit the block up to the loop being split). A control piece is a function of the locals (a
dict) and the runners of its blocks: the header reads and writes the locals there, and a block's signal
(`SIGNAL_BREAK`, `SIGNAL_CONTINUE`, `Returned`) leaves the loop or goes up to the enclosing block.
"""
import ast
import copy
import types

from .analysis.places import block_places, closure_names
from .transformers.base import walk_scope

SPLITTABLE = (ast.For, ast.While, ast.If, ast.With)
SIGNAL_BREAK, SIGNAL_CONTINUE = "break", "continue"
ENV, RUN, UNBOUND = "__oar_env", "__oar_run", "__oar_unbound"
_NO_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
_EXITS = (ast.Return, ast.Break, ast.Continue)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


class Returned:
    """A block's signal: the function returned `value`."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Unbound:
    """Passed to a Python piece for a local that has no value yet: the piece deletes it (Python's unbound)."""

    def __repr__(self):
        return "<unbound>"


UNBOUND_VALUE = Unbound()


class Piece:
    """A run of statements of a block. kind: "graph" | "python" | "control"; inputs/outputs: the names it reads
    from and gives back to the locals (graph and Python pieces); blocks: a control piece's bodies; tail: the
    last piece of the function's body (it returns the function's result itself)."""

    def __init__(self, stmts, kind, inputs=(), outputs=(), tail=False, blocks=()):
        self.stmts, self.kind, self.inputs, self.outputs = stmts, kind, list(inputs), list(outputs)
        self.tail, self.blocks = tail, list(blocks)
        self.call = None

    @property
    def graph(self):
        return self.kind == "graph"

    @property
    def lines(self):
        return self.stmts[0].lineno, self.stmts[-1].end_lineno


class Block:
    """A statement list and its pieces. path: where it is ((), or the path of its statement and the field);
    later: names read after the block; in_loop: `break`/`continue` here leave a loop being split."""

    def __init__(self, stmts, path, later, in_loop):
        self.stmts, self.path, self.later, self.in_loop = stmts, path, later, in_loop
        self.pieces = []

    @property
    def top(self):
        return self.path == ()


class Plan:
    """What splitting `fn` (definition `fdef`) needs: its locals, its shared (`global`/`nonlocal`) names,
    the names its closures read, and `make_static` (a program piece from a function)."""

    def __init__(self, fn, fdef, make_static):
        self.fn, self.fdef, self.make_static = fn, fdef, make_static
        a = fdef.args
        self.params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        self.params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        self.declared = [s for s in walk_scope(fdef.body) if isinstance(s, (ast.Global, ast.Nonlocal))]
        self.shared = {n for s in self.declared for n in s.names}
        self.locals = (self.params | _assigns(fdef.body)) - self.shared
        pinned = closure_names(fdef)
        self.pinned = pinned if isinstance(pinned, set) else set(self.locals)

    def statement(self, path):
        """The statement at `path` ((i,) or (i, field, j, ...))."""
        body, node = self.fdef.body, None
        for k in range(0, len(path), 2):
            node = body[path[k]]
            if k + 1 < len(path):
                body = getattr(node, path[k + 1])
        return node

    def fill(self, block, breaks):
        """Cuts `block` into pieces at `breaks` (paths), compiling each piece; control pieces' blocks too."""
        runs, cur = [], []
        for i, s in enumerate(block.stmts):
            path = block.path + (i,)
            # below the top, a statement that returns, or breaks the loop being split, from inside its own
            # control flow is split too: a program piece exits only from its last statement
            if path in breaks or _makes_function(s) or (not block.top and _exits_inside(s, block.in_loop)):
                if cur:
                    runs.append((cur, "graph", None))
                    cur = []
                runs.append(([s], "control" if splittable(s) else "python", path))
            else:
                cur.append(s)
            if isinstance(s, _EXITS):
                break  # what follows never runs
        if cur:
            runs.append((cur, "graph", None))
        if block.top:  # a program piece with a `return` inside its statements runs to the end of the function
            for k, (stmts, kind, _) in enumerate(runs):
                if kind == "graph" and _has_nested_return(stmts) and k < len(runs) - 1:
                    runs[k:] = [([s for st, _, _ in runs[k:] for s in st], "graph", None)]
                    break
        defined = set(self.params)
        block.pieces = []
        for k, (stmts, kind, path) in enumerate(runs):
            later = _reads([s for st, _, _ in runs[k + 1:] for s in st]) | block.later | self.pinned
            tail = block.top and k == len(runs) - 1
            if kind == "control":
                piece = Piece(stmts, kind, blocks=self._blocks(stmts[0], path, later, block.in_loop, breaks))
                piece.call = self._control(piece)
            else:
                scope = defined if block.top else self.locals
                inputs = sorted((_reads(stmts) & scope) - self.shared)
                assigned = _assigns(stmts) - self.shared
                piece = Piece(stmts, kind, inputs, sorted(assigned & later), tail)
                fn = self._piece_fn(piece, block.in_loop)
                piece.call = self.make_static(fn) if kind == "graph" else fn
            defined |= _assigns(stmts) - self.shared
            block.pieces.append(piece)
        return block

    def _blocks(self, stmt, path, later, in_loop, breaks):
        loop = isinstance(stmt, (ast.For, ast.While))
        out = []
        for field in ("body", "orelse"):
            stmts = getattr(stmt, field, None)
            if not stmts:
                continue
            # a loop's body runs again: what it (and its header) reads is read later too
            body_later = later | _reads([stmt]) if loop else later
            out.append(self.fill(Block(stmts, path + (field,), body_later,
                                       in_loop or (loop and field == "body")), breaks))
        return out

    # ---- compiling ---------------------------------------------------------------------------------------
    def _piece_fn(self, piece, in_loop):
        """A function of `piece.inputs` running the piece's statements."""
        stmts = [copy.deepcopy(s) for s in piece.stmts]
        if not piece.tail:
            outs = ast.Tuple([ast.Name(n, ast.Load()) for n in piece.outputs], ast.Load())
            stmts = [_Exits(outs, in_loop).visit(s) for s in stmts]
            if not isinstance(piece.stmts[-1], _EXITS):
                stmts.append(ast.copy_location(_status(0, None, outs), piece.stmts[-1]))
        args = [ast.arg(n) for n in piece.inputs]
        kwonly, defaults = [], []
        if piece.kind == "python":  # a local with no value yet is unbound here, as in the function
            kwonly, defaults = [ast.arg(UNBOUND)], [ast.Name(UNBOUND, ast.Load())]
            stmts = [ast.parse(f"if {n} is {UNBOUND}:\n    del {n}").body[0] for n in piece.inputs] + stmts
        fn = self._function(stmts, args, kwonly, defaults, piece.stmts[0], {UNBOUND: UNBOUND_VALUE})
        fn.__oar_ast__ = ast.Module(body=[copy.deepcopy(fn.__oar_def__)], type_ignores=[])
        return fn

    def _control(self, piece):
        """`f(locals, runners)` running the control statement with each body replaced by its block's runner."""
        stmt = piece.stmts[0]
        new = copy.copy(stmt)
        renamer = _Locals(self.locals)
        if isinstance(stmt, ast.For):
            new.target, new.iter = renamer.visit(copy.deepcopy(stmt.target)), renamer.visit(copy.deepcopy(stmt.iter))
        elif isinstance(stmt, (ast.While, ast.If)):
            new.test = renamer.visit(copy.deepcopy(stmt.test))
        else:
            new.items = [renamer.visit(copy.deepcopy(item)) for item in stmt.items]
        loop = isinstance(stmt, (ast.For, ast.While))
        k = 0
        for field in ("body", "orelse"):
            if getattr(stmt, field, None):
                setattr(new, field, _dispatch(k, loop and field == "body", stmt))
                k += 1
        end = ast.copy_location(ast.Return(ast.Constant(None)), stmt)
        return self._function([new, end], [ast.arg(ENV), ast.arg(RUN)], [], [], stmt, {})

    def _function(self, stmts, args, kwonly, defaults, where, consts):
        """A function (named as `fn`, in its module, sharing its closure cells) with body `stmts`."""
        fn, fdef = self.fn, self.fdef
        # the function's `global` / `nonlocal` declarations hold here too (they bind the same names)
        stmts = [copy.deepcopy(s) for s in self.declared] + stmts
        new = ast.FunctionDef(name=fdef.name, args=ast.arguments(
            posonlyargs=[], args=args, vararg=None, kwonlyargs=kwonly, kw_defaults=defaults, kwarg=None,
            defaults=[]), body=stmts, decorator_list=[], returns=None, **_NO_TYPE_PARAMS)
        ast.copy_location(new, where)
        free = list(fn.__code__.co_freevars)
        factory = ast.FunctionDef(name="__oar_piece_factory", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(n) for n in free + list(consts)], vararg=None, kwonlyargs=[],
            kw_defaults=[], kwarg=None, defaults=[]), body=[new, ast.Return(ast.Name(fdef.name, ast.Load()))],
            decorator_list=[], returns=None, **_NO_TYPE_PARAMS)
        ast.copy_location(factory, where)
        module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
        ns = {}
        exec(compile(module, fn.__code__.co_filename, "exec"), fn.__globals__, ns)
        made = ns["__oar_piece_factory"](*([None] * len(free)), *consts.values())
        # the piece shares the function's closure cells (a `nonlocal` write reaches the enclosing function)
        cells = dict(zip(free, fn.__closure__ or ()))
        cells.update({n: types.CellType(v) for n, v in consts.items()})
        out = types.FunctionType(made.__code__, fn.__globals__, made.__name__, None,
                                 tuple(cells[n] for n in made.__code__.co_freevars))
        out.__kwdefaults__ = made.__kwdefaults__
        out.__qualname__, out.__module__ = fn.__qualname__, fn.__module__
        out.__oar_def__ = new
        return out


def splittable(stmt):
    """A statement whose header can run as Python while its bodies are split (no `:=` in the header)."""
    if not isinstance(stmt, SPLITTABLE):
        return False
    header = [stmt.target, stmt.iter] if isinstance(stmt, ast.For) else \
        stmt.items if isinstance(stmt, ast.With) else [stmt.test]
    return not any(isinstance(n, ast.NamedExpr) for h in header for n in ast.walk(h))


def in_header(stmt, line):
    """True when `line` is in the header of the splittable `stmt` (before its body)."""
    return line < stmt.body[0].lineno


def body_of(stmt, line):
    """(field, index) of the statement of `stmt`'s bodies holding `line`, or None."""
    for field in ("body", "orelse"):
        for i, s in enumerate(getattr(stmt, field, None) or ()):
            if s.lineno <= line <= s.end_lineno:
                return field, i
    return None


def _reads(stmts):
    """Names `stmts` read (`n += 1` reads `n` too)."""
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} | {
        n.target.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.AugAssign)
        and isinstance(n.target, ast.Name)}


def _assigns(stmts):
    return {t for k, t in block_places(stmts) if k == "name"}


def _has_nested_return(stmts):
    return any(isinstance(n, ast.Return) for s in stmts if not isinstance(s, ast.Return) for n in walk_scope(s))


def _makes_function(stmt):
    """A `def`/`class`/`f = lambda ...`: run as Python, so later pieces get a real function closing over the
    function's objects (one made in a trace would close over the trace's, not each run's)."""
    return isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or (
        isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda))


def _exits_inside(stmt, in_loop):
    """True when compound `stmt` holds a `return`, or (in a loop being split) a `break`/`continue` of it."""
    if isinstance(stmt, _EXITS):
        return False
    todo = [stmt]
    while todo:
        n = todo.pop()
        for c in ast.iter_child_nodes(n):
            if isinstance(c, ast.Return) or (in_loop and isinstance(c, (ast.Break, ast.Continue))):
                return True
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(c, _LOOPS):  # its own break/continue stay inside; a return still leaves
                if any(isinstance(r, ast.Return) for r in walk_scope(c)):
                    return True
                continue
            todo.append(c)
    return False


def _status(code, value, outs):
    return ast.Return(ast.Tuple([ast.Constant(code), value if value is not None else ast.Constant(None),
                                 outs if code != 1 else ast.Constant(None)], ast.Load()))


class _Exits(ast.NodeTransformer):
    """`return v` -> `return (1, v, None)`; in a loop being split, its `break`/`continue` -> `return (2|3, None,
    outputs)` (nested functions and loops keep theirs)."""

    def __init__(self, outs, in_loop):
        self.outs, self.in_loop = outs, in_loop

    def visit_Return(self, node):
        return ast.copy_location(_status(1, node.value or ast.Constant(None), None), node)

    def visit_Break(self, node):
        return ast.copy_location(_status(2, None, copy.deepcopy(self.outs)), node) if self.in_loop else node

    def visit_Continue(self, node):
        return ast.copy_location(_status(3, None, copy.deepcopy(self.outs)), node) if self.in_loop else node

    def _loop(self, node):
        inner = _Exits(self.outs, False)
        for field in ("body", "orelse"):
            setattr(node, field, [inner.visit(s) for s in getattr(node, field)])
        return node

    def _scope(self, node):
        return node

    visit_For = visit_While = visit_AsyncFor = _loop
    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _scope


class _Locals(ast.NodeTransformer):
    """Names of the function's locals -> `__oar_env['name']` (comprehension and lambda variables stay)."""

    def __init__(self, names, bound=frozenset()):
        self.names, self.bound = names, bound

    def visit_Name(self, node):
        if node.id not in self.names or node.id in self.bound:
            return node
        key = ast.Subscript(ast.Name(ENV, ast.Load()), ast.Constant(node.id), node.ctx)
        return ast.copy_location(key, node)

    def visit_Lambda(self, node):
        a = node.args
        inner = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {
            p.arg for p in (a.vararg, a.kwarg) if p is not None}
        node.args = self.generic_visit(node.args)  # defaults: the enclosing scope
        node.body = _Locals(self.names, self.bound | inner).visit(node.body)
        return node

    def _comprehension(self, node):
        bound = set(self.bound)
        for k, gen in enumerate(node.generators):
            # the first iterable is evaluated in the enclosing scope; the rest see the comprehension's names
            gen.iter = (self if k == 0 else _Locals(self.names, bound)).visit(gen.iter)
            bound |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            inner = _Locals(self.names, frozenset(bound))
            gen.ifs = [inner.visit(c) for c in gen.ifs]
        inner = _Locals(self.names, frozenset(bound))
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                setattr(node, field, inner.visit(getattr(node, field)))
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


def _dispatch(k, loop, where):
    """The body of a control statement: run block k; its signal leaves the loop or goes up."""
    text = f"__oar_signal = {RUN}[{k}]({ENV})\nif __oar_signal is not None:\n"
    if loop:
        text += f"    if __oar_signal == {SIGNAL_BREAK!r}:\n        break\n"
        text += f"    if __oar_signal == {SIGNAL_CONTINUE!r}:\n        continue\n"
    text += "    return __oar_signal\n"
    body = ast.parse(text).body
    for n in body:
        for c in ast.walk(n):
            if hasattr(c, "lineno"):
                ast.copy_location(c, where)
                c.end_lineno = where.lineno
    return body
