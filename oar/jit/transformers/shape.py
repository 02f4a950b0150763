"""`x.shape` becomes `_jst.convert_shape(x)`: a list of ints for known dims and run-time shape values for the
unknown ones (an `InputSpec` with `None`), so `x.shape[0] * 3` keeps working on a dynamic batch; `x.size`
becomes `_jst.convert_size(x)`: the element count, a run-time value when a dim is unknown."""
import ast

from .base import Transformer, located


class _Shape(Transformer):
    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in ("shape", "size") and isinstance(node.ctx, ast.Load):
            return located(ast.Call(ast.Attribute(ast.Name("_jst", ast.Load()), f"convert_{node.attr}",
                                                  ast.Load()), [node.value], []), node)
        return node


def transform(tree, ctx):
    return _Shape().visit(tree)
