"""The `break_continue` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_break_and_continue_become_flags_and_guards():
    code, _ = convert("""
    def f(x, n):
        i = 0
        while i < n:
            i += 1
            if i == 2:
                continue
            if i > 3:
                break
            x = x + i
        else:
            x = x * 2
        return x
    """, upto="break_continue")
    assert "__break_" in code and "__continue_" in code
    assert "_jst.convert_logical_and(lambda: _jst.convert_logical_not(__break_" in code
    assert "break" not in code.replace("__break_", "")
    assert "continue" not in code.replace("__continue_", "")
    assert "if _jst.convert_logical_not(__break_" in code  # while/else
