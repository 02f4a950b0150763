"""The `return` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_return_lowered_to_single_exit():
    code, _ = convert("""
    def f(x):
        for i in range(3):
            if x[i] > 0:
                return x[i]
        return x
    """, upto="return")
    assert code.count("return ") == 1 and code.rstrip().endswith("return _jst.returned(__return_value)")
    assert "__return_value = _jst.NO_RETURN" in code  # "no return yet" differs from a returned None
    assert "__return_flag = True" in code


# ---- early returns ------------------------------------------------------------------------------------------

def falls_through(x):
    if x.mean() > 1:
        return x * 2
    y = x + 1
    if y.sum() > 100:
        return y
    return y - 1


def helper(x):
    if x.sum() > 0:
        return x, x * 2
    return x * 3, x


def uses_helper(x):
    a, b = helper(x)
    return a + b


def in_nested_loops(x):
    n = paddle.shape(x)[0]
    i = paddle.zeros([], "int64")
    while i < n:
        for j in range(2):
            if x[i] > 1.5:
                return x[i] * 10 + j
        i += 1
    return x[0] * 0


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [-5.0, 0.5, 1.0], [0.0, 0.0, 9.0]])
def test_early_returns(x):
    check(falls_through, T(x), ops=("cond",))
    check(uses_helper, T(x))
    check(in_nested_loops, T(x), ops=("while",))  # x[i] is never read past the end


def different_structures(x):
    if x.sum() > 0:
        return x, x
    return x


def test_returns_of_different_structures_are_a_clear_error():
    with pytest.raises(ValueError, match=r"returns a different structure .*`if` at test_return.py:\d+: "
                                         r"a Variable vs a tuple of 2"):
        paddle.jit.to_static(different_structures)(T([1.0]))


def return_same_twice(x):
    y = x * 2
    return y, y


def test_returning_one_value_twice_with_backward():
    check(return_same_twice, T([1.0, 2.0]))


def returns_none_or_pair(x):
    if x.sum() > 0:
        return None
    return x, x * 2


def returns_none_everywhere(x):
    if x.sum() > 0:
        return None
    x = x + 1
    return None


def test_a_returned_none_is_not_no_return():
    with pytest.raises(ValueError, match=r"returns a different structure .*tuple of 2.* vs None"):
        paddle.jit.to_static(returns_none_or_pair)(T([1.0]))
    for v in ([1.0], [-1.0]):
        assert paddle.jit.to_static(returns_none_everywhere)(T(v)) is None


def test_a_string_on_one_path_is_a_clear_error():
    def f(x):
        if x.sum() > 0:
            return "unsupported"
        return x
    with pytest.raises(ValueError, match=r"a static `if` can merge tensors and numbers only"):
        paddle.jit.to_static(f)(T([1.0]))
