"""The `declare` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_declare_binds_block_names_as_undefined_with_their_lines():
    code, _ = convert("""
    def f(x, n):
        a = 1
        for i in range(n):
            z = x * i
        return z
    """)
    assert "z = _jst.UndefinedVar('z', 5)" in code and "i = _jst.UndefinedVar('i'" in code
    assert "a = _jst.UndefinedVar" not in code and "x = _jst.UndefinedVar" not in code
