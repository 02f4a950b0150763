"""The `logical` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_ifexp_and_logical_ops_are_lazy_thunks():
    code, _ = convert("""
    def f(a, b):
        return a if a > b else b and not a or b
    """)
    assert "_jst.convert_ifexp(a > b, lambda: a, lambda:" in code
    # used as values: the runtime is told (a graph break under full_graph=False when an operand is static)
    assert "_jst.convert_logical_and(lambda: b, lambda: _jst.convert_logical_not(a, True), True)" in code
    assert "_jst.convert_logical_or(lambda:" in code


def test_logical_ops_in_conditions_are_not_values():
    code, _ = convert("""
    def f(a, b):
        if not a and b:
            a = b
        while a or not b:
            a = a - 1
        return a
    """)
    assert "_jst.convert_logical_not(a)" in code and "_jst.convert_logical_not(b)" in code
    assert ", True)" not in code


def test_compare_chain_is_converted():
    code, _ = convert("""
    def f(x):
        return 0 < x < 5
    """)
    assert "_jst.convert_compare_chain(('Lt', 'Lt'), (lambda: 0, lambda: x, lambda: 5))" in code
