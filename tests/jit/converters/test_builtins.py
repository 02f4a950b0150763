"""The `builtins` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_builtins_print_assert_shape_lists_calls():
    code, _ = convert("""
    def f(x, xs):
        print(x)
        assert x > 0, 'msg'
        n = len(x) + int(x) + float(x)
        s = x.shape
        xs.append(x)
        v = xs.pop()
        return helper(x)
    """)
    for part in ("_jst.convert_print(x)", "_jst.convert_assert(x > 0, lambda: 'msg')", "_jst.convert_len(x)",
                 "_jst.convert_cast(x, 'int')", "_jst.convert_cast(x, 'float')", "_jst.convert_shape(x)",
                 "xs = _jst.convert_append(xs, x)", "_jst.convert_pop(xs, None)", "_jst.convert_call(helper)(x)"):
        assert part in code, part


def test_shape_becomes_runtime_shape_on_loads_only():
    code, _ = convert("""
    def f(x):
        n = x.shape[0]
        return x.reshape([n, -1])
    """, upto="shape")
    assert "n = _jst.convert_shape(x)[0]" in code


# ---- Python views of tensors inside programs --------------------------------------------------------------

def numpy_item_conditions(x):
    if x.numpy()[0] > 0 and x.sum().item() < 10:
        y = x + 1
    else:
        y = x - 1
    for _ in range(int(x[1])):
        y = y * 2
    if bool(x[0] > 1) or float(x[1]) > 5.0:
        y = y + 100
    return y


@pytest.mark.parametrize("x", [[1.0, 2.0], [-1.0, 3.0], [4.0, 6.0]])
def test_numpy_item_int_float_bool_in_conditions_and_bounds(x):
    check(numpy_item_conditions, T(x), ops=("cond", "while"))


def test_int_float_casts_use_paddles_dtypes():
    def f(x):
        return int(x.sum()), float(x.astype("int64").sum()), bool(x.sum())
    a, b, c = paddle.jit.to_static(f)(T([1.5, 2.0]))
    assert (a.dtype, b.dtype, c.dtype) == (paddle.int32, paddle.float32, paddle.bool)
    assert int(a) == 3 and float(b) == 3.0 and bool(c)


def test_to_tensor_of_values_inside_a_program():
    def f(x):
        return paddle.to_tensor(x) * 2 + paddle.to_tensor([1.0, 2.0]) + paddle.to_tensor([x[0], x[1]], "float32")
    check(f, T([3.0, 4.0]))


def test_fill_constant_and_tensor_module_aliases():
    def f(x):
        return x + paddle.tensor.fill_constant([2], "float32", 2.0) + paddle.tensor.ones([2])
    check(f, T([1.0, 2.0]))
