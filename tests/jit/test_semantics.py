"""Python semantics kept by conversion: each case runs eagerly and converted (same result) and checks which
ops the program holds (Python-valued control flow must leave no `cond`/`while` op)."""
import io
import contextlib

import numpy as np
import pytest

import oar as paddle
from oar.graph.pytree import flatten


def T(*v, dtype="float32"):
    return paddle.to_tensor(np.array(v, dtype))


def I(v):
    return paddle.to_tensor(np.array(v, "int64"))


def op_types(sf):
    return [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]


def both(fn, *args):
    """(converted StaticFunction, its result) after checking it equals the eager result."""
    sf = paddle.jit.to_static(fn)
    got, want = sf(*args), fn(*args)
    gl, wl = flatten(got)[0], flatten(want)[0]
    assert len(gl) == len(wl)
    for g, w in zip(gl, wl):
        np.testing.assert_allclose(np.asarray(getattr(g, "numpy", lambda: g)()),
                                   np.asarray(getattr(w, "numpy", lambda: w)()), rtol=1e-6)
    assert sf._eager_reason is None, sf._eager_reason   # really converted, not an eager fallback
    return sf, got


# ---- Python-valued control flow stays Python -------------------------------------------------------------------

def python_flow(x, flag, n):
    if flag:
        x = x + 1
    else:
        x = x - 1
    for i in range(n):
        x = x * 2
    k = 0
    while k < 2 and flag:
        x = x - 1
        k += 1
    return x if n > 1 else -x


@pytest.mark.parametrize("flag,n", [(True, 3), (False, 1)])
def test_python_valued_control_flow_leaves_no_control_flow_ops(flag, n):
    sf, _ = both(python_flow, T(1.0), flag, n)
    ops = op_types(sf)
    assert "cond" not in ops and "while" not in ops, ops
    assert ops.count("multiply") == n   # the Python loop was unrolled


# ---- loops: else clauses, breaks, returns ----------------------------------------------------------------------

def for_else_tensor_break(x):
    for i in range(5):
        if x[i] > 2:
            break
        x = x + 1
    else:
        x = x * 100
    return x


def while_else_tensor_break(x, n):
    i = paddle.zeros([], "int64")
    while i < n:
        if paddle.sum(x) > 10:
            break
        x = x * 2
        i = i + 1
    else:
        x = x - 1000
    return x


@pytest.mark.parametrize("v,expect", [([0, 0, 0, 0, 0], [3] * 5), ([-9, -9, -9, -9, -9], [-400] * 5)])
def test_for_else_with_tensor_break(v, expect):
    sf, got = both(for_else_tensor_break, T(*v))
    np.testing.assert_allclose(got.numpy(), expect)   # breaks: no else; never breaks: else runs
    assert "cond" in op_types(sf)


@pytest.mark.parametrize("n,expect", [(2, [-996, -992]), (10, [4, 8])])
def test_while_else_with_tensor_break(n, expect):
    sf, got = both(while_else_tensor_break, T(1.0, 2.0), I(n))
    np.testing.assert_allclose(got.numpy(), expect)
    assert "while" in op_types(sf)


def tensor_break_in_python_range10(x):
    for i in range(10):
        if paddle.sum(x) > 20:
            break
        x = x + i
    return x


@pytest.mark.parametrize("start", [1.0, 30.0, -100.0])
def test_tensor_break_inside_python_for_range_10(start):
    sf, _ = both(tensor_break_in_python_range10, T(start))
    ops = op_types(sf)
    assert "while" not in ops and ops.count("cond") >= 9   # unrolled; later iterations guarded by cond


def return_in_nested_while(x, n):
    i = paddle.zeros([], "int64")
    while i < n:
        j = paddle.zeros([], "int64")
        while j < n:
            if paddle.sum(x) > 30:
                return x * -1
            x = x + 1
            j = j + 1
        i = i + 1
    return x + 0.5


def return_in_nested_for(x):
    for i in range(3):
        for j in range(4):
            if x[0] > 5:
                return x * -1
            x = x + 1
    return x


@pytest.mark.parametrize("n", [2, 10])
def test_return_inside_nested_tensor_loops(n):
    sf, _ = both(return_in_nested_while, T(1.0), I(n))
    assert op_types(sf).count("while") == 2


@pytest.mark.parametrize("v", [1.0, 4.0, 10.0])
def test_return_inside_nested_python_loops_with_tensor_condition(v):
    both(return_in_nested_for, T(v))


def continue_in_tensor_for(x, n):
    s = paddle.zeros([1])
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x * i
    return s


def test_continue_in_tensor_bounded_for():
    sf, got = both(continue_in_tensor_for, T(1.0), I(6))
    np.testing.assert_allclose(got.numpy(), [9.0])
    assert "while" in op_types(sf)


# ---- and / or short-circuit ------------------------------------------------------------------------------------

def test_static_and_or_do_not_run_the_right_side_at_run_time():
    def f(x):
        if paddle.sum(x) > 100 and paddle.sum(shout(x)) > 0:
            x = x + 1
        return x

    def g(x):
        if paddle.sum(x) > 0 or paddle.sum(shout(x)) > 0:
            x = x + 1
        return x
    for fn, quiet, loud in ((f, 1.0, 200.0), (g, 1.0, -5.0)):
        sf = paddle.jit.to_static(fn)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            sf(T(quiet))
        assert "SHOUT" not in buf.getvalue(), fn.__name__   # Python would not evaluate the right side
        with contextlib.redirect_stdout(buf):
            sf(T(loud))
        assert "SHOUT" in buf.getvalue(), fn.__name__


def shout(x):
    print("SHOUT", x)   # a print op when traced: shows whether the right side ran
    return x


def test_python_and_or_never_evaluate_the_right_side():
    calls = []

    def side(v):
        calls.append(v)
        return v

    def f(x, flag):
        if flag and side(x):
            x = x + 1
        y = flag or side(2)
        return x, y
    both(f, T(1.0), False)
    assert calls == [2] * 2   # only `flag or side(2)` ran its right side (once eagerly, once converted)


# ---- containers, nested functions, recursion -------------------------------------------------------------------

def dict_tuple_through_cond(x):
    d = {"a": x, "b": (x, x * 2)}
    if paddle.sum(x) > 0:
        d = {"a": x + 1, "b": (x * 3, x)}
    else:
        d["a"] = d["a"] - 5
    t = (d["a"], d["b"][0])
    return t[0] + t[1] + d["b"][1]


def dict_tuple_through_while(x, n):
    state = {"acc": x * 0, "pair": (x, x + 1)}
    i = paddle.zeros([], "int64")
    while i < n:
        a, b = state["pair"]
        state = {"acc": state["acc"] + a, "pair": (b, a + b)}
        i = i + 1
    return state["acc"], state["pair"]


@pytest.mark.parametrize("v", [1.0, -1.0])
def test_dicts_and_tuples_through_cond(v):
    sf, _ = both(dict_tuple_through_cond, T(v))
    assert "cond" in op_types(sf)


def test_dicts_and_tuples_through_while():
    sf, (acc, (a, b)) = both(dict_tuple_through_while, T(1.0), I(5))
    np.testing.assert_allclose([acc.numpy()[0], a.numpy()[0], b.numpy()[0]], [19.0, 13.0, 21.0])
    assert "while" in op_types(sf)


def nested_and_closure(x):
    scale = 3.0

    def inner(y):
        if paddle.sum(y) > 0:
            return y * scale
        return y

    g = lambda z: inner(z) + 1   # noqa: E731
    return g(x)


@pytest.mark.parametrize("v", [1.0, -1.0])
def test_nested_function_lambda_and_closure(v):
    sf, _ = both(nested_and_closure, T(v))
    assert "cond" in op_types(sf)   # the nested function's tensor `if` was converted


def make_counter_fn():
    seen = []

    def f(x, n):
        for i in range(n):
            seen.append(i)    # a closure list: mutated in place, not a loop variable of f
        return x * len(seen)
    return f, seen


def test_closure_and_global_containers_are_mutated_in_place():
    f, seen = make_counter_fn()
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(T(1.0), 3).numpy(), [3.0])
    assert seen == [0, 1, 2]
    assert "seen = _jst.convert_append" not in sf.code


def python_recursion(x, n):
    if n == 0:
        return x
    if paddle.sum(x) > 3:
        x = x - 1
    return python_recursion(x + 1, n - 1)


def test_recursion_ending_on_a_python_value():
    sf, got = both(python_recursion, T(1.0), 5)
    np.testing.assert_allclose(got.numpy(), [4.0])
    assert op_types(sf).count("cond") == 5


def tensor_recursion(x):
    if paddle.sum(x) > 0:
        return tensor_recursion(x - 1)
    return x


def test_tensor_terminated_recursion_error_names_function_and_fix():
    with pytest.raises(RecursionError) as ei:
        paddle.jit.to_static(tensor_recursion)(T(2.0))
    msg = str(ei.value)
    assert "'tensor_recursion'" in msg and "test_semantics.py" in msg
    assert "ends on a tensor value" in msg and "while loop" in msg


# ---- loop sources and builtins ---------------------------------------------------------------------------------

def loop_sources(x, m, n):
    s = paddle.zeros([2])
    for row in m:                        # a tensor's first dimension
        s = s + row
    for i, row in enumerate(m):
        s = s + row * i
    for a, b in zip(m, m * 2):
        s = s + a - b
    for w in [1.0, 2.0]:                 # a Python list: unrolled
        s = s * w
    for j in range(1, n, 2):             # tensor-bounded range with start and step
        s = s + x * j
    for k, v in enumerate((x, x * 3)):   # a Python tuple of tensors
        s = s + v * k
    return s


def test_for_over_tensor_rows_enumerate_zip_lists_and_ranges():
    m = paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    sf, _ = both(loop_sources, T(1.0, 2.0), m, I(6))
    assert op_types(sf).count("while") == 4   # rows, enumerate, zip, range(1, n, 2)


def builtins_on_tensors(x):
    n = len(x)                           # unknown first dim: a run-time shape value
    b = x.shape[0] * 2
    t = int(paddle.sum(x)) + float(paddle.mean(x))
    flag = bool(paddle.sum(x) > 0)
    if flag:
        t = t + 1
    return x * n + b + t


def test_len_shape_and_casts_on_a_dynamic_batch():
    from oar.static import InputSpec
    sf = paddle.jit.to_static(builtins_on_tensors, input_spec=[InputSpec([None], "float32")])
    for v in ([1.5, 2.5], [-1.0, 2.0, -4.0]):
        np.testing.assert_allclose(sf(T(*v)).numpy(), builtins_on_tensors(T(*v)).numpy(), rtol=1e-6)
    ops = op_types(sf)
    assert "shape" in ops and "cast" in ops and "cond" in ops
    assert len(sf.program_cache) == 1
