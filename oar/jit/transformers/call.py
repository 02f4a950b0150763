"""Every call goes through `_jst.convert_call(f)`, which converts user functions, methods and sublayers
recursively at run time and returns oar's own functions, builtins and ignored modules as they are.

    helper(x, 2)   ->   _jst.convert_call(helper)(x, 2)
"""
import ast

from .base import Transformer, located

_SKIP = {"super", "isinstance", "getattr", "hasattr", "type", "locals", "globals", "vars", "id"}


def _is_runtime(f):
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "_jst"


class _Calls(Transformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id == "locals" and not node.args:
            return located(ast.Call(ast.Attribute(ast.Name("_jst", ast.Load()), "user_locals", ast.Load()),
                                    [node], []), node)
        if _is_runtime(f) or (isinstance(f, ast.Name) and f.id in _SKIP):
            return node
        node.func = located(ast.Call(ast.Attribute(ast.Name("_jst", ast.Load()), "convert_call", ast.Load()),
                                     [f], []), node)
        return node


def transform(tree, ctx):
    return _Calls().visit(tree)
