"""`and`/`or`/`not` keep Python's short-circuit: each right side becomes a thunk the runtime calls only when
Python would evaluate it (on static values it is evaluated inside a `cond`, so it runs only when needed).

    a and b     ->   _jst.convert_logical_and(lambda: a, lambda: b)
    not a       ->   _jst.convert_logical_not(a)
    v = a or b  ->   v = _jst.convert_logical_or(lambda: a, lambda: b, True)

The last argument says the result is used as a value, not only as a condition (`if`/`while` tests,
conditional expressions and asserts): Python code would see a Python bool (`not`) or an operand (`and`/`or`),
which a static value cannot be, so with `full_graph=False` the runtime makes it a graph break.
"""
import ast

from .base import Transformer, expr, located

_FN = {ast.And: "convert_logical_and", ast.Or: "convert_logical_or"}


def _mark_test(node):
    node._oar_test = True
    if isinstance(node, ast.BoolOp):
        for v in node.values:
            _mark_test(v)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _mark_test(node.operand)


def _mark_tests(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            _mark_test(node.test)
        elif isinstance(node, ast.comprehension):
            for c in node.ifs:
                _mark_test(c)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "_jst" and \
                node.func.attr in ("convert_ifexp", "convert_assert") and node.args:
            _mark_test(node.args[0])


class _Logical(Transformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = _FN[type(node.op)]
        value = "" if getattr(node, "_oar_test", False) else ", True"
        out = node.values[-1]
        for v in reversed(node.values[:-1]):
            out = expr(f"_jst.{fn}(lambda: {{a}}, lambda: {{b}}{value})", a=v, b=out)
        return located(out, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            value = "" if getattr(node, "_oar_test", False) else ", True"
            return located(expr(f"_jst.convert_logical_not({{a}}{value})", a=node.operand), node)
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
    _mark_tests(tree)
    return _Logical().visit(tree)
