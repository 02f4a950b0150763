"""Last step: a name that converted blocks share through `nonlocal` must be bound in the enclosing
function, so names first assigned inside a block start as `_jst.UndefinedVar('name', lines...)`. Using one
before Python would have assigned it raises, naming the variable and the lines that assign it.

    def f(x):                     def f(x):
        if x > 0:           ->        y = _jst.UndefinedVar('y', 3)
            y = 1                     ...
"""
import ast

from .base import Transformer, declared, located, template, walk_scope


class _Declare(Transformer):
    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if getattr(node, "_oar_helper", False):
            return node
        shared = []
        for n in walk_scope(node.body):
            if isinstance(n, ast.FunctionDef) and getattr(n, "_oar_helper", False):
                for d in n.body:
                    if isinstance(d, ast.Nonlocal):
                        shared.extend(x for x in d.names if x not in shared)
        a = node.args
        params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        skip = params | declared(node.body, ast.Global) | declared(node.body, ast.Nonlocal) | _bound_first(node.body)
        lines = getattr(node, "_oar_lines", {})
        decls = []
        for name in shared:
            if name in skip:
                continue
            args = ", ".join([repr(name)] + [str(l) for l in sorted(set(lines.get(name, [])))])
            decls += template(f"{name} = _jst.UndefinedVar({args})")
        if decls:
            head = 1 if _is_docstring(node.body[0]) else 0
            node.body[head:head] = located(decls, node.body[head])
        return node


def _bound_first(body):
    """Names plainly assigned at the top of the function before any converted block: already bound."""
    names = set()
    for s in body:
        if isinstance(s, ast.FunctionDef) and getattr(s, "_oar_helper", False):
            break
        if isinstance(s, ast.Assign):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return names


def _is_docstring(s):
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def transform(tree, ctx):
    return _Declare().visit(tree)
