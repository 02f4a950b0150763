"""The conversion pipeline: one module per syntax family, applied in this order. Each step is
``transform(tree, ctx) -> tree`` on a module holding one function definition."""
from . import (normalize, return_, break_continue, list_, print_assert, builtins, shape, call, logical, loops,
               ifelse, declare)

STEPS = [
    ("normalize", normalize.transform),
    ("return", return_.transform),
    ("break_continue", break_continue.transform),
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
]
