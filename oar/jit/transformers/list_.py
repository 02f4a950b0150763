"""List mutation in loops: `xs.append(v)` and `v = xs.pop()` become runtime calls that work on Python lists
as usual and on tensor arrays when the list is carried through a tensor-dependent loop.

    xs.append(v)       ->   xs = _jst.convert_append(xs, v)
    v = xs.pop()       ->   xs, v = _jst.convert_pop(xs)
"""
import ast

from .base import located, template


def _method_call(node, name):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name and \
        isinstance(node.func.value, ast.Name) and not node.keywords


class _Lists(ast.NodeTransformer):
    def visit_Expr(self, node):
        v = node.value
        if _method_call(v, "append") and len(v.args) == 1:
            xs = v.func.value.id
            return located(template(f"{xs} = _jst.convert_append({xs}, {{v}})", v=v.args[0]), node)
        if _method_call(v, "pop") and len(v.args) <= 1:
            xs = v.func.value.id
            return located(template(f"{xs}, _ = _jst.convert_pop({xs}, {{i}})",
                                    i=v.args[0] if v.args else ast.Constant(None)), node)
        return self.generic_visit(node)

    def visit_Assign(self, node):
        v = node.value
        if _method_call(v, "pop") and len(v.args) <= 1 and len(node.targets) == 1:
            xs = v.func.value.id
            t = ast.Tuple([ast.Name(xs, ast.Store()), node.targets[0]], ast.Store())
            new = ast.Assign(targets=[t], value=ast.Call(
                func=ast.Attribute(ast.Name("_jst", ast.Load()), "convert_pop", ast.Load()),
                args=[ast.Name(xs, ast.Load()), v.args[0] if v.args else ast.Constant(None)], keywords=[]))
            return located(new, node)
        return self.generic_visit(node)


def transform(tree, ctx):
    return _Lists().visit(tree)
