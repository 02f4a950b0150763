"""`and`/`or`/`not` keep Python's short-circuit: each right side becomes a thunk the runtime calls only when
Python would evaluate it (on static values it is evaluated inside a `cond`, so it runs only when needed).

    a and b     ->   _jst.convert_logical_and(lambda: a, lambda: b)
    not a       ->   _jst.convert_logical_not(a)
"""
import ast

from .base import expr, located

_FN = {ast.And: "convert_logical_and", ast.Or: "convert_logical_or"}


class _Logical(ast.NodeTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = _FN[type(node.op)]
        out = node.values[-1]
        for v in reversed(node.values[:-1]):
            out = expr(f"_jst.{fn}(lambda: {{a}}, lambda: {{b}})", a=v, b=out)
        return located(out, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return located(expr("_jst.convert_logical_not({a})", a=node.operand), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) < 2:
            return node
        # a < b < c: each middle operand is evaluated once, the chain stops at the first false link
        operands = [node.left] + node.comparators
        thunks = ", ".join(f"lambda: {{o{i}}}" for i in range(len(operands)))
        ops = ", ".join(repr(type(o).__name__) for o in node.ops)
        return located(expr(f"_jst.convert_compare_chain(({ops},), ({thunks},))",
                            **{f"o{i}": o for i, o in enumerate(operands)}), node)


def transform(tree, ctx):
    return _Logical().visit(tree)
