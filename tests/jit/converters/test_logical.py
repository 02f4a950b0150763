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
    assert "_jst.convert_logical_and(lambda: b, lambda: _jst.convert_logical_not(a))" in code
    assert "_jst.convert_logical_or(lambda:" in code


def test_compare_chain_is_converted():
    code, _ = convert("""
    def f(x):
        return 0 < x < 5
    """)
    assert "_jst.convert_compare_chain(('Lt', 'Lt'), (lambda: 0, lambda: x, lambda: 5))" in code
