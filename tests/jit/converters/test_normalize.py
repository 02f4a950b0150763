"""The `normalize` converter: the code it produces, and converted == eager on what it handles."""
import ast
import textwrap

import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401
from oar.jit.transformers import STEPS
from oar.jit.transformers.base import Context


def test_debugger_call_marks_eager_fallback():
    _, ctx = convert("""
    def f(x):
        breakpoint()
        return x
    """)
    assert ctx.eager_reason and "breakpoint" in ctx.eager_reason


def test_converted_code_compiles_and_keeps_line_numbers():
    src = """
    def f(x):
        if x > 0:
            y = x
        else:
            y = 0
        return y
    """
    code, _ = convert(src)
    compile(code, "<t>", "exec")
    tree = ast.parse(textwrap.dedent(src))
    ctx = Context("<t>", "f")
    ctx.uses_class_cell = False
    for _, step in STEPS:
        tree = step(tree, ctx)
    lines = {n.lineno for n in ast.walk(tree) if hasattr(n, "lineno")}
    assert lines <= set(range(1, 8))  # every generated node points at a line of the original function


def test_normalize_drops_decorators_and_makes_super_explicit():
    code, ctx = convert("""
    @some_decorator
    def forward(self, x):
        return super().forward(x)
    """, upto="normalize")
    assert "@some_decorator" not in code
    assert "super(__class__, self).forward(x)" in code and ctx.uses_class_cell
