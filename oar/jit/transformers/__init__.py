"""The conversion pipeline: one module per syntax family, applied in this order. Each step is
``transform(tree, ctx) -> tree`` on a module holding one function definition."""
import ast

from .. import analysis
from . import (normalize, return_, break_continue, list_, print_assert, builtins, shape, call, logical, loops,
               ifelse, declare, stores)


def analyze(tree, ctx):
    """Control-flow analysis of every user function (after `return`/`break`/`continue` became flags, so the
    flags are ordinary variables): annotates each `if`/loop with what the converters need."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            analysis.annotate(node)
    ctx.attr_writes = [t for k, t in analysis.block_places(tree.body[0].body) if k == "attr"]
    return tree



STEPS = [
    ("normalize", normalize.transform),
    ("return", return_.transform),
    ("break_continue", break_continue.transform),
    ("analysis", analyze),
    ("list", list_.transform),
    ("print_assert", print_assert.transform),
    ("builtins", builtins.transform),
    ("shape", shape.transform),
    ("call", call.transform),
    ("ifexp", ifelse.transform_ifexp),
    ("logical", logical.transform),
    ("loops", loops.transform),
    ("ifelse", ifelse.transform),
    ("declare", declare.transform),
    ("stores", stores.transform),
]
