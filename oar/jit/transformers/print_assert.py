"""`print(...)` becomes a runtime print op when an argument is a static value; `assert` becomes a runtime
assert op that keeps its message (the message is evaluated only when needed, as in Python).

    print(y)                   ->   _jst.convert_print(y)
    assert x > 0, "positive"   ->   _jst.convert_assert(x > 0, lambda: "positive")
"""
import ast

from .base import Transformer, located, template


class _PrintAssert(Transformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            node.func = located(ast.Attribute(ast.Name("_jst", ast.Load()), "convert_print", ast.Load()), node)
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = node.msg if node.msg is not None else ast.Constant(None)
        return located(template("_jst.convert_assert({t}, lambda: {m})", t=node.test, m=msg), node)


def transform(tree, ctx):
    return _PrintAssert().visit(tree)
