"""What a statement does to *places*: the names and attribute paths it reads, the ones it rebinds, and the
objects it changes in place. A place is written as text: `x`, `self.v`, `obj.a.b`.

Changes in place are recognised from syntax: item assignment and deletion (`d[k] = v`, `y[:, k] += v`,
`del xs[0]`) the mutating methods of lists, dicts and sets (`xs.append(v)`, `d.update(e)`, `x.pop()`), and Paddle's
in-place tensor ops (`x.add_(y)`, `paddle.increment(i)`: their first argument).

Example:
    >>> import ast
    >>> block_places(ast.parse("y = 1\\nself.v = y\\nd['k'] = 2\\nxs.append(3)").body)
    [('name', 'y'), ('attr', 'self.v'), ('mut', 'd'), ('mut', 'xs')]
"""
import ast

from ..transformers.base import SCOPES, walk_scope

MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault", "popitem", "sort",
            "reverse", "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update"}
INPLACE_FUNCTIONS = {"increment"}  # Paddle's in-place ops whose name has no trailing underscore
ALWAYS_LIVE = frozenset(["<all>"])  # a function calling locals()/vars()/eval()/exec(): every name is live
_INTROSPECT = {"locals", "vars", "eval", "exec"}


def place_text(node):
    """`x` / `a.b.c` for a Name or an attribute chain over a Name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _mutated_base(node):
    """The place changed in place by the store target / call `node`, or None."""
    if isinstance(node, ast.Subscript):
        while isinstance(node, ast.Subscript):  # d["a"][0] = v changes d (and what d holds)
            node = node.value
        return place_text(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in MUTATORS or _inplace_name(node.func.attr):  # xs.append(v), x.add_(y), d[k].append(v)
            base = node.func.value
            while isinstance(base, ast.Subscript):
                base = base.value
            return place_text(base)
    if isinstance(node, ast.Call) and node.args:  # paddle.increment(i), paddle.add_(x, y): the first argument
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in INPLACE_FUNCTIONS or _inplace_name(name):
            return place_text(node.args[0])
    return None


def _inplace_name(name):
    """Paddle's in-place ops end with one underscore: `add_`, `scale_` (not `__init__`, not `_private`)."""
    return len(name) > 1 and name.endswith("_") and not name.endswith("__") and not name.startswith("_")


def uses_defs(node):
    """(uses, defs) of names in one CFG node: a simple statement, or the header part of a compound one
    (the test of an `if`/`while`, the iterable and target of a `for`)."""
    uses, defs = set(), set()
    if isinstance(node, (ast.If, ast.While)):
        parts = [node.test]
    elif isinstance(node, ast.For):
        parts = [node.iter]
        if getattr(node, "_oar_break_flag", None):  # a lowered `break`: its flag is read before each iteration
            uses.add(node._oar_break_flag)
        for n in ast.walk(node.target):
            if isinstance(n, ast.Name):
                defs.add(n.id)
            elif isinstance(n, ast.expr) and not isinstance(n, (ast.Tuple, ast.List, ast.Starred)):
                uses.update(_loads(n))
    else:
        parts = [node]
    for part in parts:
        for n in walk_scope(part):
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Load):
                    uses.add(n.id)
                else:
                    defs.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defs.add(n.name)
                uses.update(_free_loads(n))
            elif isinstance(n, SCOPES):  # lambda / comprehension: the names it reads are read here
                uses.update(_free_loads(n))
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                defs.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                defs.add(n.name)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                uses.add(n.target.id)  # x += 1 reads x first
    return uses, defs


def _loads(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _free_loads(scope):
    """Names a nested scope reads (an over-approximation of its free variables)."""
    out = set()
    for n in ast.walk(scope):
        if n is scope:
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        for d in scope.args.defaults + [d for d in scope.args.kw_defaults if d is not None]:
            out.update(_loads(d))
    return out


def closure_names(fn):
    """Names read by the nested functions and lambdas of `fn` (they may run at any later point, so such names
    are live everywhere), or ALWAYS_LIVE when `fn` introspects its locals."""
    out = set()
    for n in walk_scope(fn.body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _INTROSPECT:
            return ALWAYS_LIVE
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and not \
                getattr(n, "_oar_helper", False):
            out.update(_free_loads(n))
    return out


def block_places(stmts):
    """The places `stmts` change, in first-seen order: ('name', x) rebound, ('attr', 'a.b') attribute
    written, ('mut', p) object changed in place (p a name or attribute path)."""
    out = {}

    def add(kind, text):
        if text is not None and not text.startswith("_jst"):
            pos = (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
            out[(kind, text)] = min(out.get((kind, text), pos), pos)

    for n in walk_scope(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            add("name", n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add("name", n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                add("name", (a.asname or a.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            add("name", n.name)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
            add("attr", place_text(n))
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            add("mut", _mutated_base(n))
        elif isinstance(n, ast.Call):
            add("mut", _mutated_base(n))
    return sorted(out, key=out.get)  # source order
