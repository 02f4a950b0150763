"""The `loops` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar as paddle  # noqa: F401
from conv_helpers import T, check, convert  # noqa: F401


def test_while_becomes_convert_while_over_assigned_names():
    code, _ = convert("""
    def f(x, n):
        i = 0
        while i < n:
            x = x + 1
            i += 1
        return x
    """)
    assert "_jst.convert_while(__cond_" in code
    assert "(('x', 'name'), ('i', 'name'))" in code
    assert "return i < n" in code


def test_for_passes_target_and_iterable_through_runtime():
    code, _ = convert("""
    def f(x):
        for i, w in enumerate([1, 2]):
            x = x + w * i
        return x
    """)
    assert "_jst.convert_for(_jst.convert_enumerate([1, 2])" in code
    assert "('i', 'w')" in code
    assert "(i, w) = __item" in code or "i, w = __item" in code


# ---- what leaves a tensor loop ---------------------------------------------------------------------------------

def item_assign_in_loop(x):
    y = paddle.zeros([3])
    for i in range(paddle.shape(x)[0]):
        y[i] = x[i] * 2 + i
    return y


def container_in_loop(x, n):
    d = {"s": paddle.zeros([]), "l": [x * 0]}
    i = paddle.zeros([], "int64")
    while i < n:
        d["s"] = d["s"] + x.sum()
        d["l"][0] = d["l"][0] + x
        i += 1
    return d


class Acc:
    pass


def attr_in_loop(x, n, acc):
    acc.total = x * 0
    for i in range(n):
        if x[0] > 0:
            acc.total = acc.total + x
        else:
            acc.total = acc.total - x
    return acc.total


def test_values_leave_loops_through_items_containers_and_attributes():
    check(item_assign_in_loop, T([1.0, 2.0, 3.0]), ops=("while",))
    check(container_in_loop, T([1.0, 2.0]), T(3, "int64"), ops=("while",))
    for v in ([1.0, 2.0], [-1.0, 2.0]):
        a, b = Acc(), Acc()
        want = attr_in_loop(T(v), T(3, "int64"), a)
        got = paddle.jit.to_static(attr_in_loop)(T(v), T(3, "int64"), b)
        np.testing.assert_allclose(got.numpy(), want.numpy())
        np.testing.assert_allclose(b.total.numpy(), a.total.numpy())


def rows(x):
    s = paddle.zeros([2])
    for i, r in enumerate(x):
        s = s + r * i
    for a, b in zip(x, x * 2):
        s = s + a * b
    return s + paddle.stack([r * 2 for r in x]).sum(0)


def list_in_loop_read_in_if(x):
    a = []
    for i in range(paddle.shape(x)[0]):
        a.append(x[i] * 2)
        if x[i] > 1.5:
            y = a[0] + a[-1]
        else:
            y = x[i]
    return y + len(a)


def test_enumerate_zip_comprehension_over_rows_and_tensor_arrays():
    check(rows, T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    check(list_in_loop_read_in_if, T([1.0, 2.0, 3.0]), ops=("while",))


def first_assigned_in_loop(x, n):
    for i in range(n):
        pair = (x * i, x + i)
    return pair[0] + pair[1]


def test_structure_first_assigned_in_a_loop():
    check(first_assigned_in_loop, T([1.0, 2.0]), T(3, "int64"))


def loop_in_if(x, n):
    s = x * 0
    if x.sum() > 0:
        for i in range(n):
            s = s + x * i
    else:
        s = s - 1
    return s


def test_loop_nested_in_if():
    check(loop_in_if, T([1.0, 2.0]), T(3, "int64"), ops=("while", "cond"))
    check(loop_in_if, T([-1.0, -2.0]), T(3, "int64"))


def test_body_locals_are_not_carried():
    code, _ = convert("""
    def f(x, n):
        s = x
        for i in range(n):
            t = s * 2
            s = t + 1
        return s
    """)
    # only s is carried: t and i are fresh each iteration
    assert "__set_3, (('s', 'name'),), 'i', None, read_first=('s',))" in code


# ---- the loop's types settle: widened dtypes, numbers that become tensors, empty lists ----------------------

def accumulate_int(t):
    z = paddle.tensor.fill_constant([1], "int32", 0)
    for v in t:
        z = z + v  # int32 + int64 -> int64 on the first iteration, as eagerly
    return z


def range_counter_is_a_python_int(t):
    z = paddle.tensor.fill_constant([1], "int32", 0)
    for i in range(t.numpy().item()):
        z = z + i  # i stands for a Python int: z stays int32
    return z


class Foo:
    pass


def number_becomes_tensor(x, n):
    foo = Foo()
    foo.b = 4
    i = paddle.zeros([1], "int64")
    while i < n:
        foo.b = paddle.zeros([1]) + foo.b
        i += 1
    return foo.b


def empty_list_typed_by_append(x, n):
    a = []
    i = paddle.zeros([], "int64")
    while i < n:
        a.append(x + i)
        i += 1
    y = paddle.tensor.fill_constant([1], "int32", 0)
    for v in a:
        y = y + v
    return y


def test_loop_types_settle_as_python_would():
    for fn, args in ((accumulate_int, (T([1, 2, 3], "int64"),)),
                     (range_counter_is_a_python_int, (T([3], "int64"),)),
                     (number_becomes_tensor, (T([1.0]), T(3, "int64"))),
                     (empty_list_typed_by_append, (T([1, 2], "int64"), T(3, "int64")))):
        want = fn(*args)
        sf = paddle.jit.to_static(fn)
        got = sf(*args)
        assert got.dtype == want.dtype, fn.__name__
        np.testing.assert_allclose(got.numpy(), want.numpy())
        ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
        assert ops.count("while") == 1 + (fn is empty_list_typed_by_append), (fn.__name__, ops)  # no leftovers
