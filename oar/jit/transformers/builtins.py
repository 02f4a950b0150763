"""Builtins whose meaning depends on their operand: `len(x)` (a run-time shape op for an unknown length),
`int()/float()/bool()` of tensors (casts), and `range/enumerate/zip` (tensor-bounded loops).

    len(x)        ->   _jst.convert_len(x)
    int(x)        ->   _jst.convert_cast(x, 'int')
    range(n)      ->   _jst.convert_range(n)
"""
import ast

from .base import Transformer, located

NAMES = {"len": "convert_len", "range": "convert_range", "enumerate": "convert_enumerate", "zip": "convert_zip"}
CASTS = ("int", "float", "bool")


class _Builtins(Transformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in NAMES:
                node.func = located(ast.Attribute(ast.Name("_jst", ast.Load()), NAMES[f.id], ast.Load()), node)
            elif f.id in CASTS and len(node.args) == 1 and not node.keywords:
                node.func = located(ast.Attribute(ast.Name("_jst", ast.Load()), "convert_cast", ast.Load()), node)
                node.args.append(located(ast.Constant(f.id), node))
        return node


def transform(tree, ctx):
    return _Builtins().visit(tree)
