"""Converted functions: eager/static equality, training through the program, caching, debugging aids."""
import io
import contextlib
import warnings

import numpy as np
import pytest

import oar as paddle
import oar.nn as nn
from oar.static import InputSpec


def T(*v, dtype="float32"):
    return paddle.to_tensor(np.array(v, dtype))


def same(fn, *args):
    sf = paddle.jit.to_static(fn)
    want, got = fn(*args), sf(*args)
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got),
                               np.asarray(want.numpy() if hasattr(want, "numpy") else want), rtol=1e-6)
    return sf


# ---- control flow ------------------------------------------------------------------------------------------------

def nested_break_in_python_for(x):
    for i in range(5):          # a Python loop with a tensor-dependent break
        if x[i] > 2:
            break
        x = x + 1
    return x


def while_with_return(x, n):
    i = paddle.zeros([1], "int64")
    while i < n:
        if paddle.sum(x) > 10:
            return x * -1
        x = x * 2
        i = i + 1
    return x


def for_else(x, n):
    for i in range(n):
        if i > 100:
            break
    else:
        x = x + 100
    return x


def loop_defined_only(x, n):
    i = 0
    while i < n:
        z = x * i
        i = i + 1
    return z


def lazy_and(x, n):
    i = paddle.zeros([], "int64")
    while i < n and x[i] > 0:   # x[i] must not be read once i == n
        i = i + 1
    return i


def tuple_and_dict_state(x, n):
    acc = {"s": x * 0, "p": x * 0 + 1}
    pair = (x, x)
    for i in range(n):
        acc = {"s": acc["s"] + x, "p": acc["p"] * 2}
        pair = (pair[1], pair[0] + 1)
    return acc["s"] + acc["p"] + pair[0]


def chained_compare(x):
    if 0 < paddle.sum(x) < 5:
        return x + 1
    return x - 1


@pytest.mark.parametrize("fn,args", [
    (nested_break_in_python_for, (T(0, 1, 2, 3, 4),)),
    (nested_break_in_python_for, (T(5, 1, 2, 3, 4),)),
    (while_with_return, (T(1, 2), T(5, dtype="int64"))),
    (while_with_return, (T(1, 2), T(1, dtype="int64"))),
    (for_else, (T(1.0), paddle.to_tensor(np.array(3)))),
    (loop_defined_only, (T(2.0), T(3, dtype="int64"))),
    (lazy_and, (T(1, 2, 3), paddle.to_tensor(np.array(3)))),
    (lazy_and, (T(1, -2, 3), paddle.to_tensor(np.array(3)))),
    (tuple_and_dict_state, (T(1, 2), paddle.to_tensor(np.array(3)))),
    (chained_compare, (T(1, 2),)),
    (chained_compare, (T(3, 4),)),
])
def test_eager_equals_converted(fn, args):
    same(fn, *args)


def test_tensor_loops_become_while_ops_and_ifs_cond_ops():
    sf = paddle.jit.to_static(while_with_return)
    sf(T(1, 2), T(5, dtype="int64"))
    text = str(sf.concrete_program.main_program)
    assert "while(" in text and "cond(" in text


def test_undefined_variable_error_names_variable_and_lines():
    def f(x, flag):
        if flag:
            y = x + 1
        return y * 2
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(T(1.0), True).numpy(), [4.0])
    with pytest.raises(UnboundLocalError, match=r"'y' is used .*return y \* 2.*y = x \+ 1"):
        sf(T(1.0), False)


def test_print_and_assert_run_in_the_program():
    def f(x):
        assert paddle.all(x > 0), "x must be positive"
        print(x)
        return x + 1
    sf = paddle.jit.to_static(f)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        sf(T(1, 2))
    assert "data: [1.0 2.0]" in buf.getvalue()
    with pytest.raises(ValueError, match="x must be positive"):
        sf(T(-1, 2))


def test_short_circuit_keeps_python_semantics():
    calls = []

    def side(v):
        calls.append(v)
        return v

    def f(x):
        flag = False
        if flag and side(True):
            return x
        return x * 2
    paddle.jit.to_static(f)(T(1.0))
    assert calls == []


def test_tensor_terminated_recursion_raises_clearly():
    def r(x):
        if x > 0:
            return r(x - 1)
        return x
    with pytest.raises(RecursionError, match="recursion ends on a tensor value"):
        paddle.jit.to_static(r)(T(3.0))


def test_error_points_at_user_line_and_keeps_type():
    def bad(x):
        y = paddle.reshape(x, [3, 5])
        return paddle.matmul(y, y)
    with pytest.raises(ValueError) as ei:
        paddle.jit.to_static(bad)(paddle.ones([15]))
    text = str(ei.value) + "".join(getattr(ei.value, "__notes__", []))
    assert "paddle.matmul(y, y)" in text and "test_conversion.py" in text


def test_numpy_and_item_on_static_value_stay_tensors():
    # Paddle's AST mode: in a program, x.numpy() / x.item() are the tensor itself, conditions on them are cond ops
    def f(x):
        if x.numpy()[0, 0] > 0 and x.sum().item() < 10:
            return x + 1
        return x - 1
    sf = paddle.jit.to_static(f)
    for v in ([1.0, 2.0], [-1.0, 2.0], [5.0, 6.0]):
        np.testing.assert_allclose(sf(T(v)).numpy(), f(T(v)).numpy())
    assert "cond(" in str(sf.concrete_program.main_program)


def test_tolist_on_static_value_is_refused():
    def f(x):
        return x.tolist()
    with pytest.raises(TypeError, match=r"\.tolist\(\)` on the static value.*return x.tolist\(\)"):
        paddle.jit.to_static(f)(T(1.0))


def test_breakpoint_runs_eagerly():
    def f(x):
        if False:
            breakpoint()
        return x.numpy() + 1   # eager: numpy works
    assert paddle.jit.to_static(f)(T(1.0))[0] == 2.0


def test_enable_to_static_false_runs_python():
    def f(x):
        return x.numpy() * 2
    paddle.jit.enable_to_static(False)
    try:
        assert paddle.jit.to_static(f)(T(2.0))[0] == 4.0
    finally:
        paddle.jit.enable_to_static(True)


def test_not_to_static_helper_is_called_as_is():
    @paddle.jit.not_to_static
    def helper(x):
        return x * 3

    def f(x):
        return helper(x)
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(T(1.0)).numpy(), [3.0])
    assert "convert_call(helper)" in sf.code


# ---- cache, specs, check mode --------------------------------------------------------------------------------

def test_cache_by_shape_and_python_values_with_reasons(capsys):
    def f(x, k):
        return x * k
    sf = paddle.jit.to_static(f)
    paddle.jit.set_verbosity(1)
    try:
        sf(T(1.0), 2)
        sf(T(1.0), 2)
        sf(T(1.0), 3)
        sf(T(1.0, 2.0), 3)
    finally:
        paddle.jit.set_verbosity(0)
    assert len(sf.program_cache.concrete_programs()) == 3
    out = capsys.readouterr().out
    assert "argument 'k' changed from the Python value 2 to the Python value 3" in out
    assert "argument 'x' changed from a tensor of shape [1] and dtype float32 to a tensor of shape [2]" in out


def test_warns_after_eight_programs():
    def f(x, k):
        return x * k
    sf = paddle.jit.to_static(f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for k in range(10):
            sf(T(1.0), k)
    assert any("programs" in str(x.message) for x in w)


def test_input_spec_gives_dynamic_batch_program():
    def f(x):
        return x * x.shape[0]
    sf = paddle.jit.to_static(f, input_spec=[InputSpec([None, 2], "float32")])
    for n in (1, 4):
        x = paddle.ones([n, 2])
        np.testing.assert_allclose(sf(x).numpy(), np.full([n, 2], n))
    assert len(sf.program_cache.concrete_programs()) == 1
    cp = sf.concrete_program
    assert cp.inputs[0].shape == [-1, 2] and cp.input_spec[0].shape == (-1, 2)


def test_check_mode_names_differing_output(monkeypatch):
    calls = []

    @paddle.jit.not_to_static
    def bump():  # state the trace cannot see (a helper left unconverted): the traced and the eager run differ
        calls.append(1)
        return float(len(calls))

    def f(x):
        return x * bump()
    sf = paddle.jit.to_static(f, check=True)
    with pytest.raises(AssertionError, match="output 0 of 'f' differs"):
        sf(T(1.0))


# ---- layers and training -------------------------------------------------------------------------------------

class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.fc1(x))
        if paddle.mean(h) > 0:      # data-dependent branch
            h = h * 2
        return self.fc2(self.drop(h))


def _train(convert, steps=5):
    paddle.seed(7)
    net = Net()
    net.eval()   # dropout off: deterministic
    if convert:
        net = paddle.jit.to_static(net)
    sgd = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = paddle.to_tensor(rng.standard_normal([6, 4]).astype("float32"))
        loss = paddle.mean(net(x) ** 2)
        loss.backward()
        sgd.step()
        sgd.clear_grad()
        losses.append(float(loss))
    return losses, {k: v.numpy().copy() for k, v in net.state_dict().items()}


def test_converted_training_matches_eager():
    l1, s1 = _train(False)
    l2, s2 = _train(True)
    np.testing.assert_allclose(l1, l2, rtol=1e-5)
    for k in s1:
        np.testing.assert_allclose(s1[k], s2[k], rtol=1e-5, atol=1e-6)


def test_input_gradients_through_converted_function():
    def f(x):
        y = x * x
        if paddle.sum(y) > 1:
            y = y * 3
        return paddle.sum(y)
    x1 = T(1.0, 2.0)
    x1.stop_gradient = False
    f(x1).backward()
    x2 = T(1.0, 2.0)
    x2.stop_gradient = False
    paddle.jit.to_static(f)(x2).backward()
    np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy())


def test_train_and_eval_select_programs():
    paddle.seed(1)
    net = paddle.jit.to_static(Net())
    x = paddle.ones([2, 4])
    net.train()
    net(x)
    net.eval()
    a = net(x).numpy()
    b = net(x).numpy()
    np.testing.assert_allclose(a, b)   # eval: dropout off, the same every call
    programs = net.forward.program_cache.concrete_programs()
    assert sorted(p.training for p in programs) == [False, True]


def test_decorated_method_binds_layer_and_code():
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

        @paddle.jit.to_static
        def forward(self, x):
            return self.fc(x) + 1

    m = M()
    out = m(paddle.ones([1, 2]))
    assert out.shape == [1, 2]
    assert m.forward._layer is m
    assert "def forward" in m.forward.code
    cp = m.forward.concrete_program
    assert set(cp.parameters) >= {p.name for p in m.parameters()}
    np.testing.assert_allclose(cp.pack_outputs([out]).numpy(), out.numpy())


def test_set_code_level_prints_steps():
    def g(x):
        if x > 0:
            x = x + 1
        return x
    buf = io.StringIO()
    paddle.jit.set_code_level(100)
    try:
        with contextlib.redirect_stdout(buf):
            paddle.jit.to_static(g)(T(1.0))
    finally:
        paddle.jit.set_code_level(0)
    assert "(ifelse)" in buf.getvalue() and "def g" in buf.getvalue()


def test_value_from_one_branch_of_tensor_if_follows_python_rules():
    def f(x):
        if x.sum() > 0:
            y = x + 1
        return y * 2

    def g(x):
        if x.sum() > 0:
            y = x + 1  # noqa: F841  (never used afterwards: no error on either path)
        return x * 2
    sf = paddle.jit.to_static(f)
    np.testing.assert_allclose(sf(T(1.0)).numpy(), [4.0])          # the assigning branch ran: fine
    with pytest.raises(UnboundLocalError, match=r"'y' is used .*return y \* 2.*line \d+: y = x \+ 1"):
        sf(T(-1.0))                                                # it did not: Python's error, at run time
    np.testing.assert_allclose(paddle.jit.to_static(g)(T(-1.0)).numpy(), [-2.0])
