"""List mutation in loops: `xs.append(v)` and `v = xs.pop()` become runtime calls that work on Python lists
as usual and on tensor arrays when the list is carried through a tensor-dependent loop.

    xs.append(v)       ->   xs = _jst.convert_append(xs, v)
    d[k].append(v)     ->   _jst.convert_append(d[k], v)     (a tensor array inside a container: written in place)
    v = xs.pop()       ->   xs, v = _jst.convert_pop(xs)
    xs.pop(0)          ->   xs = _jst.convert_pop(xs, 0)[0]
    f(xs.pop())        ->   f((__pop_1 := _jst.convert_pop(xs, None), xs := __pop_1[0], __pop_1[1])[2])
                            (inside expressions)

Only lists that are local variables of the function are rewritten: `G.append(v)` on a global or closure list
stays a plain call (rebinding `G` would make it local and break the function).
"""
import ast

from .base import Transformer, expr, located, template


def _method_call(node, name):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name and \
        isinstance(node.func.value, ast.Name) and not node.keywords


class _Lists(Transformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.scopes = [None]

    def visit_FunctionDef(self, node):
        self.scopes.append(getattr(node, "_oar_locals", None))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _is(self, node, name):
        """`xs.name(...)` on a list `xs` local to the function being visited."""
        local = self.scopes[-1]
        return _method_call(node, name) and (local is None or node.func.value.id in local)

    def visit_Expr(self, node):
        v = node.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "append" and \
                isinstance(v.func.value, (ast.Subscript, ast.Attribute)) and len(v.args) == 1 and not v.keywords:
            return located(template("_jst.convert_append({xs}, {v})", xs=v.func.value, v=v.args[0]), node)
        if self._is(v, "append") and len(v.args) == 1:
            xs = v.func.value.id
            return located(template(f"{xs} = _jst.convert_append({xs}, {{v}})", v=v.args[0]), node)
        if self._is(v, "pop") and len(v.args) <= 1:
            xs = v.func.value.id
            return located(template(f"{xs} = _jst.convert_pop({xs}, {{i}})[0]",
                                    i=v.args[0] if v.args else ast.Constant(None)), node)
        return self.generic_visit(node)

    def visit_Assign(self, node):
        v = node.value
        if self._is(v, "pop") and len(v.args) <= 1 and len(node.targets) == 1:
            xs = v.func.value.id
            t = ast.Tuple([ast.Name(xs, ast.Store()), node.targets[0]], ast.Store())
            new = ast.Assign(targets=[t], value=ast.Call(
                func=ast.Attribute(ast.Name("_jst", ast.Load()), "convert_pop", ast.Load()),
                args=[ast.Name(xs, ast.Load()), v.args[0] if v.args else ast.Constant(None)], keywords=[]))
            return located(new, node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self._is(node, "pop") and len(node.args) <= 1:
            xs, tmp = node.func.value.id, self.ctx.fresh("pop")
            new = expr(f"({tmp} := _jst.convert_pop({xs}, {{i}}), {xs} := {tmp}[0], {tmp}[1])[2]",
                       i=node.args[0] if node.args else ast.Constant(None))
            return located(new, node)
        return node

    def _opaque(self, node):  # a walrus there would bind in the wrong scope (or is not allowed)
        return node

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _opaque


def transform(tree, ctx):
    return _Lists(ctx).visit(tree)
