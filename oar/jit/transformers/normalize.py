"""Step 0: prepare a function for conversion: drop decorators (the converted function is decorated already),
make `super()` explicit (the converted code lives outside its class body), note `breakpoint()`/`pdb.set_trace()`
(the function then runs eagerly so the user can inspect it) and generators (not converted)."""
import ast

from .base import assigned_names


def transform(tree, ctx):
    fn = tree.body[0]
    fn.decorator_list = []
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
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
