"""The AST toolkit shared by the converters. It imports nothing of the framework: converters only rewrite
syntax into calls of runtime `_jst.convert_*` functions (oar/jit/runtime.py), which decide at run time.

Example:
    >>> stmts = template("_jst.convert_print({args})", args="x, y")
"""
import ast
import copy
import re

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)
LOOPS = (ast.For, ast.While)
HELPER_RE = re.compile(r"__(true_fn|false_fn|get|set|cond|body)_\d+$")
# nodes no converter rewrites (contexts, operators): about a third of a function's nodes, never visited
_LEAVES = frozenset(c for base in (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
                    for c in base.__subclasses__())


class Transformer(ast.NodeTransformer):
    """`ast.NodeTransformer` that never visits the leaf nodes in `_LEAVES`: the conversion steps walk every
    function a dozen times, and the generic walk was most of their time."""

    def visit(self, node):
        fn = getattr(self, "visit_" + node.__class__.__name__, None)
        return fn(node) if fn is not None else self.generic_visit(node)

    def generic_visit(self, node):
        for field in node._fields:
            old = getattr(node, field, None)
            if type(old) is list:
                new, changed = [], False
                for v in old:
                    if isinstance(v, ast.AST) and v.__class__ not in _LEAVES:
                        r = self.visit(v)
                        if r is not v:
                            changed = True
                            if r is None:
                                continue
                            if not isinstance(r, ast.AST):
                                new.extend(r)
                                continue
                            v = r
                    new.append(v)
                if changed:
                    old[:] = new
            elif isinstance(old, ast.AST) and old.__class__ not in _LEAVES:
                r = self.visit(old)
                if r is None:
                    delattr(node, field)
                elif r is not old:
                    setattr(node, field, r)
        return node


class Context:
    """Per-function conversion state: fresh names, and what the steps learn about the function."""

    def __init__(self, filename="<unknown>", func_name="f"):
        self.filename, self.func_name = filename, func_name
        self._n = 0
        self.eager_reason = None  # set when the function must run eagerly (breakpoint(), pdb.set_trace())
        self.uses_class_cell = False  # zero-argument super() was made explicit: the code needs `__class__`
        self.attr_writes = []  # attribute paths the function assigns (`self.h`)
        self.global_writes = []  # names the function declares `global` / `nonlocal` (their final values are
        self.nonlocal_writes = []  # replayed after each run of a program)

    def fresh(self, stem):
        self._n += 1
        return f"__{stem}_{self._n}"


def template(src, **subs):
    """Parses `src` with `{key}` placeholders: strings are formatted in; AST nodes replace the placeholder
    name `{key}` where it appears as a bare name. Returns a list of statements."""
    nodes = {k: v for k, v in subs.items() if isinstance(v, ast.AST)}
    text = src.format(**{k: (f"__PH_{k}" if k in nodes else v) for k, v in subs.items()})
    tree = ast.parse(text)
    mark_generated(tree.body)
    return _Fill(nodes).visit(tree).body if nodes else tree.body


class _Fill(Transformer):
    """`template`'s placeholders `__PH_key` -> copies of the given nodes."""

    def __init__(self, nodes):
        self.nodes = nodes

    def visit_Name(self, node):
        if node.id.startswith("__PH_"):
            return copy.deepcopy(self.nodes[node.id[5:]])
        return node


def expr(src, **subs):
    """Like `template` for one expression."""
    return template(src, **subs)[0].value


def children(node):
    """The child nodes of `node` that can hold code (`ast.iter_child_nodes` without contexts and operators)."""
    out = []
    for name in node._fields:
        v = getattr(node, name, None)
        if type(v) is list:
            out.extend([c for c in v if isinstance(c, ast.AST) and c.__class__ not in _LEAVES])
        elif isinstance(v, ast.AST) and v.__class__ not in _LEAVES:
            out.append(v)
    return out


def walk(node):
    """`ast.walk` without contexts and operators (depth first)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(children(n))


def located(nodes, like):
    """Gives every node in `nodes` (one node or a list) without a location the location of `like`, so errors
    and the static builder's source lines point at the user's original line."""
    items = nodes if isinstance(nodes, list) else [nodes]
    for n in items:
        for sub in walk(n):
            if "lineno" in sub._attributes:
                if getattr(sub, "lineno", None) is None or getattr(sub, "_oar_gen", False):
                    sub.lineno, sub.col_offset = like.lineno, getattr(like, "col_offset", 0)
                    sub.end_lineno, sub.end_col_offset = like.lineno, getattr(like, "col_offset", 0)
                    sub.__dict__.pop("_oar_gen", None)
    return nodes


def walk_scope(node):
    """`ast.walk` that does not enter nested function, lambda, class or comprehension scopes."""
    todo = [node] if not isinstance(node, list) else list(node)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, SCOPES):  # its name (if any) is bound here, its body is another scope
            continue
        todo.extend(children(n))


def assigned_names(stmts):
    """Names (re)bound by `stmts` in their own scope, in first-seen order, with the lines binding them.

    `x.append(...)`/`x.pop()` statements rewritten to `x = _jst.convert_append(x, ...)` count as bindings;
    `x[i] = v` counts as a change of `x`."""
    out = {}

    def add(name, node):
        out.setdefault(name, []).append(getattr(node, "lineno", 0))

    for n in walk_scope(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and not HELPER_RE.match(n.id):
            add(n.id, n)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if getattr(n, "_oar_helper", False):  # a converted block: the names it declares nonlocal change here
                for d in n.body:
                    if isinstance(d, ast.Nonlocal):
                        for name in d.names:
                            add(name, d)
            else:
                add(n.name, n)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) \
                and not getattr(n, "_oar_outer", False):  # not `G[k] = v` on a global / closure container
            add(n.value.id, n)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                add((a.asname or a.name).split(".")[0], n)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            add(n.name, n)
    return dict(sorted(out.items(), key=lambda kv: (min(kv[1]), kv[0])))  # source order, deterministic


def declared(stmts, kind):
    """Names declared `global` (kind=ast.Global) or `nonlocal` in `stmts`' own scope."""
    names = set()
    for n in walk_scope(stmts):
        if isinstance(n, kind):
            names.update(n.names)
    return names


def contains(stmts, types, stop_at_loops=False):
    """True when `stmts` hold a node of `types` in their own scope (optionally not inside nested loops)."""
    todo = list(stmts) if isinstance(stmts, list) else [stmts]
    while todo:
        n = todo.pop()
        if isinstance(n, types):
            return True
        for child in ast.iter_child_nodes(n):
            if isinstance(child, SCOPES) or (stop_at_loops and isinstance(child, LOOPS)):
                continue
            todo.append(child)
    return False


def sets_flag(stmt, flags):
    """True when `stmt` may assign one of the `flags` names."""
    for n in walk_scope(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in flags:
            return True
    return False


def not_any(flags):
    """The expression `not (f1 or f2 ...)` through the runtime's lazy logical operators."""
    if len(flags) == 1:
        return expr("_jst.convert_logical_not({f})", f=flags[0])
    return expr("_jst.convert_logical_not(_jst.convert_logical_or(lambda: {a}, lambda: {b}))",
                a=flags[0], b=flags[1])


def guard(stmts, flags):
    """Wraps the statements that follow a possible assignment of a flag in `if not flag:` (recursively in
    the bodies of `if`, `with` and `try`), so `break`/`continue`/`return` lowered to flags skip the rest."""
    out = []
    for k, s in enumerate(stmts):
        if isinstance(s, ast.If):
            s.body, s.orelse = guard(s.body, flags), guard(s.orelse, flags)
        elif isinstance(s, (ast.With, ast.Try)):
            s.body = guard(s.body, flags)
        out.append(s)
        if getattr(s, "_oar_jump", False):  # an unconditional flag assignment: the rest is unreachable
            return out
        if k + 1 < len(stmts) and sets_flag(s, flags):
            rest = guard(stmts[k + 1:], flags)
            out.append(located(ast.If(test=not_any(flags), body=rest, orelse=[]), stmts[k + 1]))
            return out
    return out


class BlockTransformer(Transformer):
    """Base of the converters that turn blocks into nested functions: tracks the names each user function
    declares `global` (its blocks then declare them `global` too, not `nonlocal`)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.globals = [set()]

    def visit_FunctionDef(self, node):
        if getattr(node, "_oar_helper", False):
            self.generic_visit(node)
            return node
        self.globals.append(declared(node.body, ast.Global))
        self.generic_visit(node)
        self.globals.pop()
        return node


def mark_generated(nodes):
    for n in (nodes if isinstance(nodes, list) else [nodes]):
        for sub in walk(n):
            sub._oar_gen = True
    return nodes


def set_jump(stmts):
    """Marks statements that replaced an unconditional `break`/`continue`/`return`."""
    if stmts:
        stmts[-1]._oar_jump = True
    return stmts


def args_tuple(names):
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def state_functions(places, ctx, global_names=()):
    """`get`/`set` helpers that read and write the enclosing function's places, given as (kind, text) pairs
    (kinds in oar/jit/places.py): names are rebound through `nonlocal`, attribute paths written through
    `_jst.st_attr`, objects changed in place ('mut') only read (the runtime restores them in place):

        def __get_3(): return (a, _jst.ld_attr(lambda: self, 'v'), d)
        def __set_3(__args):
            nonlocal a
            a = __args[0]
            _jst.st_attr(self, 'v', __args[1])
    """
    if not places:
        return [], "_jst.no_state", "_jst.no_state"
    get_name, set_name = ctx.fresh("get"), ctx.fresh("set")
    reads, writes, names = [], [], []
    for i, (kind, text) in enumerate(places):
        if "." in text:
            base, attr = text.rsplit(".", 1)
            reads.append(f"_jst.ld_attr(lambda: {base}, {attr!r})")
            if kind.startswith("attr"):
                writes.append(f"_jst.st_attr({base}, {attr!r}, __args[{i}])")
        else:
            reads.append(text)
            if kind != "mut":
                names.append(text)
                writes.append(f"{text} = __args[{i}]")
    decl = _decl(names, global_names) if names else "pass"
    body = "\n    ".join([decl] + writes)
    src = f"def {get_name}():\n    return {args_tuple(reads)}\ndef {set_name}(__args):\n    {body}\n"
    out = template(src)
    out[0]._oar_helper = True
    out[1]._oar_helper = True
    return out, get_name, set_name


def block_places(node, rebound, live=None, local_only=()):
    """The (kind, text) places a converted `if`/loop shares with the runtime: the names in `rebound` that are
    `live` afterwards ('name'; 'dead' when `live` is given and they are not), attribute paths written
    ('attr') and objects changed in place ('mut'), from the analysis annotations on `node`; names in
    `local_only` (rebound by a loop body and never read after an iteration) are not shared."""
    found = getattr(node, "_oar_places", [])
    mut = {t for k, t in found if k == "mut"}
    out = []
    for name in rebound:
        kind = "name" if live is None or name in live or "<all>" in live else "dead"
        out.append((kind + ("+mut" if name in mut and kind == "name" else ""), name))
    have = {t for _, t in out}
    for k, t in found:
        if t in have or t.split(".")[0].startswith("__") or t.split(".")[0] in local_only:
            continue
        if k == "attr":
            out.append(("attr+mut" if t in mut else "attr", t))
            have.add(t)
        elif k == "mut":
            out.append(("mut", t))
            have.add(t)
    return out


def _decl(names, global_names):
    g = [n for n in names if n in global_names]
    nl = [n for n in names if n not in global_names]
    parts = []
    if nl:
        parts.append("nonlocal " + ", ".join(nl))
    if g:
        parts.append("global " + ", ".join(g))
    return "; ".join(parts) if parts else "pass"


def function_def(name, args, body, names, global_names=()):
    """`def name(args): nonlocal names; body`."""
    decl = template(_decl(names, global_names)) if names else []
    fn = ast.parse(f"def {name}({args}):\n    pass").body[0]
    fn.body = decl + (body or [ast.Pass()])
    fn._oar_helper = True
    return fn


def to_source(tree):
    return ast.unparse(ast.fix_missing_locations(tree))
