"""First step: prepare a function for conversion: drop decorators (the converted function is decorated already),
make `super()` explicit (the converted code lives outside its class body), note `breakpoint()`/`pdb.set_trace()`
(the function then runs eagerly so the user can inspect it) and generators (not converted), and drop variable
annotations (`y: List[int] = v` -> `y = v`: an annotated name cannot be shared with a converted block through
`nonlocal`, and inside a function Python never evaluates such an annotation)."""
import ast

from .base import Transformer, assigned_names, declared, walk_scope


def local_names(fn):
    """The names Python binds in `fn`'s own scope: parameters, assignments, defs, imports, `except ... as`,
    and names declared `global`/`nonlocal` (rebinding those is allowed too)."""
    a = fn.args
    names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    names |= declared(fn.body, ast.Global) | declared(fn.body, ast.Nonlocal)
    for n in walk_scope(fn.body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((x.asname or x.name).split(".")[0] for x in n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def _mark_outer_containers(fn, local):
    """`G[k] = v` on a global or closure container `G` mutates it in place: it is no binding of `G` here,
    so the converters must not carry `G` as one of this function's variables."""
    for n in walk_scope(fn.body):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and \
                isinstance(n.value, ast.Name) and n.value.id not in local:
            n._oar_outer = True


class _DropAnnotations(Transformer):
    """`x: T = v` -> `x = v`; `x: T` (binds nothing, but makes `x` a local) -> `if False: x = None`, which
    binds nothing either and keeps `x` local."""

    def visit_AnnAssign(self, node):
        if node.value is None:
            if isinstance(node.target, ast.Name):  # still a local of this scope, as in Python
                return ast.copy_location(ast.If(test=ast.Constant(False), body=[ast.copy_location(
                    ast.Assign(targets=[node.target], value=ast.Constant(None)), node)], orelse=[]), node)
            return ast.copy_location(ast.Pass(), node)
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)


def transform(tree, ctx):
    fn = tree.body[0]
    fn.decorator_list = []
    _DropAnnotations().visit(fn)
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node._oar_locals = local_names(node)
            _mark_outer_containers(node, node._oar_locals)
            node._oar_lines = assigned_names(node.body)
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "breakpoint" or \
                    isinstance(f, ast.Attribute) and f.attr == "set_trace":
                ctx.eager_reason = f"line {node.lineno} calls a debugger ({ast.unparse(node)})"
            if isinstance(f, ast.Name) and f.id == "super" and not node.args and fn.args.args:
                node.args = [ast.Name("__class__", ast.Load()), ast.Name(fn.args.args[0].arg, ast.Load())]
                ctx.uses_class_cell = True
        elif isinstance(node, ast.Try):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, (ast.If, ast.While, ast.For)):
                        sub._oar_in_try = node.lineno
        elif isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            ctx.eager_reason = f"line {node.lineno}: generators and coroutines are run as they are"
    return tree
