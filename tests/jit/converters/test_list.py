"""The `list` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_list_mutation_rewritten_for_local_lists_only():
    code, _ = convert("""
    def f(x, xs):
        out = []
        out.append(x)
        xs.append(x)
        GLOBAL.append(x)
        GLOBAL[0] = x
        return out
    """, upto="list")
    assert "out = _jst.convert_append(out, x)" in code and "xs = _jst.convert_append(xs, x)" in code
    assert "GLOBAL.append(x)" in code   # a global / closure list is mutated in place, never rebound
