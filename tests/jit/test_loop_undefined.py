"""Names first assigned inside a tensor-dependent loop follow Python: no error unless the value is used when
no iteration assigned it; then an UnboundLocalError naming the variable, the using line and the assigning line."""
import numpy as np
import pytest

import oar


def T(v, dtype="float32", grad=False):
    return oar.to_tensor(np.array(v, dtype), stop_gradient=not grad)


def returned(x, n):
    i = 0
    while i < n:
        z = x * i
        i = i + 1
    return z


def unused(x, n):
    for i in range(n):
        w = x + i  # noqa: F841  (the converted loop's unused value)
    return x * 2


def used_later(x, n):
    for i in range(n):
        if i > 1:
            w = x * i
    y = x + 1
    return y * w


def used_inside_next_iteration(x, n):
    s = x * 0
    for i in range(n):
        if i > 0:
            s = s + prev  # noqa: F821  (defined by the previous iteration)
        prev = x * i  # noqa: F841
    return s


def nested(x, n, m):
    i = 0
    while i < n:
        for j in range(m):
            q = x * j + i
        i += 1
    return q


def test_defined_when_the_loop_ran():
    sf = oar.jit.to_static(returned)
    np.testing.assert_allclose(sf(T([1.0, 2.0]), T(3, "int64")).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(oar.jit.to_static(unused)(T([1.0]), T(0, "int64")).numpy(), [2.0])
    sf = oar.jit.to_static(used_later)
    np.testing.assert_allclose(sf(T([1.0]), T(4, "int64")).numpy(), used_later(T([1.0]), 4).numpy())
    sf = oar.jit.to_static(nested)
    np.testing.assert_allclose(sf(T([1.0]), T(2, "int64"), T(3, "int64")).numpy(), [3.0])


def test_error_names_variable_and_both_lines():
    sf = oar.jit.to_static(returned)
    with pytest.raises(UnboundLocalError, match=r"'z' is returned by 'returned' .*line \d+: z = x \* i.*loop"):
        sf(T([1.0]), T(0, "int64"))
    sf = oar.jit.to_static(used_later)
    for n in (0, 2):  # no iteration at all / iterations that did not take the assigning branch
        with pytest.raises(UnboundLocalError, match=r"'w' is used at .*\(return y \* w\).*line \d+: w = x \* i"):
            sf(T([1.0]), T(n, "int64"))
    sf = oar.jit.to_static(nested)
    with pytest.raises(UnboundLocalError, match="'q'"):
        sf(T([1.0]), T(2, "int64"), T(0, "int64"))
    # the program is kept: the defined path still works afterwards
    np.testing.assert_allclose(sf(T([1.0]), T(1, "int64"), T(2, "int64")).numpy(), [1.0])


def test_read_before_first_assignment_in_body_is_a_clear_error():
    # a known limit: the type of `prev` is unknown where the loop is traced (Python would run this)
    with pytest.raises(UnboundLocalError,
                       match=r"'prev' is read in a tensor-dependent loop .*before the line .*zeros_like"):
        oar.jit.to_static(used_inside_next_iteration)(T([1.0]), T(3, "int64"))


def test_program_has_defined_flag_and_assert_and_gradients_flow():
    sf = oar.jit.to_static(returned)
    x = T([1.0, 2.0], grad=True)
    sf(x, T(3, "int64")).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    text = str(sf.concrete_program.main_program)
    assert "assert_defined(" in text and "while(" in text
