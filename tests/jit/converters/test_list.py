"""The `list` converter: the code it produces, and converted == eager on what it handles."""
import numpy as np  # noqa: F401
import pytest  # noqa: F401

import oar
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


# ---- lists appended and popped in tensor-dependent loops: tensor arrays whose length shrinks on pop ----

def Tg(v, dtype="float32", grad=False):
    return oar.to_tensor(np.array(v, dtype), stop_gradient=not grad)


def push_pop_while(x, n):
    xs = [x]
    i = 0
    while i < n:
        xs.append(x * i)
        xs.append(x + i)
        xs.pop(0)
        top = xs.pop()
        i += 1
    return oar.concat(xs), top, len(xs)


def pop_in_tensor_if(x, n):
    xs = []
    for i in range(n):
        xs.append(x * i)
        if i % 3 == 2:
            v = xs.pop()
            xs.append(v * 10)
            xs.pop(-2)
    return oar.stack(xs), len(xs)


def pop_after_loop(x, n):
    xs = []
    for i in range(n):
        xs.append(x + i)
    last = xs.pop()
    first = xs.pop(0)
    return last - first, len(xs)


def stack_machine(x, n):
    """A tensor-indexed stack: push twice, pop once per step; pop(k) with a tensor index."""
    st = [x]
    k = 0
    while k < n:
        a = st.pop()
        st.append(a + 1)
        st.append(a * 2)
        k = k + 1
    mid = st.pop(n // 2)
    return mid, oar.stack(st), len(st)


def _vals(out):
    out = out if isinstance(out, tuple) else (out,)
    return [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in out]


@pytest.mark.parametrize("fn,ns", [(push_pop_while, [1, 4]), (pop_in_tensor_if, [1, 3, 7]),
                                   (pop_after_loop, [2, 5]), (stack_machine, [1, 3, 4])])
def test_converted_equals_eager_values_and_gradients(fn, ns):
    sf = oar.jit.to_static(fn)
    for n in ns:
        x1, x2 = Tg([0.5, -1.0, 2.0], grad=True), Tg([0.5, -1.0, 2.0], grad=True)
        got, want = sf(x1, Tg(n, "int64")), fn(x2, n)
        for g, w in zip(_vals(got), _vals(want)):
            np.testing.assert_allclose(g.reshape(w.shape) if g.size == w.size else g, w, rtol=1e-6)
        loss = lambda out: sum((o * (i + 1)).sum() for i, o in enumerate(out[:-1]))  # noqa: E731
        loss(got).backward()
        loss(want).backward()
        np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-6)
    assert "while(" in str(sf.concrete_program.main_program)
    assert "array_popped(" in str(sf.concrete_program.main_program)


def test_pop_from_empty_array_raises_index_error_at_run_time():
    def f(x, n):
        xs = []
        for i in range(n):
            xs.append(x)
        return xs.pop(), xs.pop()
    sf = oar.jit.to_static(f)
    a, b = sf(Tg([1.0]), Tg(2, "int64"))
    np.testing.assert_allclose(a.numpy(), [1.0])
    with pytest.raises(IndexError, match="pop from empty list"):
        sf(Tg([1.0]), Tg(1, "int64"))


def test_pop_code_text():
    code, _ = convert("""
    def f(xs, n):
        for i in range(n):
            v = xs.pop()
            xs.pop(0)
        return v
    """, upto="list")
    assert "xs, v = _jst.convert_pop(xs, None)" in code
    assert "xs = _jst.convert_pop(xs, 0)[0]" in code


def test_eager_python_lists_unchanged():
    def f(x):
        xs = [x, x + 1, x + 2]
        a = xs.pop(1)
        xs.pop()
        return a + len(xs)
    sf = oar.jit.to_static(f)
    np.testing.assert_allclose(sf(Tg([1.0])).numpy(), [3.0])


def slice_of_a_tensor_array(x, n):
    a = []
    i = paddle.zeros([], "int64")
    while i < n:
        a.append(x * i.astype("float32"))
        i += 1
    b = a[1:3]
    return b[0] + b[-1] + len(b)


def test_slicing_a_list_built_in_a_tensor_loop():
    from conv_helpers import check as check_converted
    sf = check_converted(slice_of_a_tensor_array, Tg([1.0, 2.0]), Tg(4, "int64"))
    assert "array_slice(" in str(sf.concrete_program.main_program)
