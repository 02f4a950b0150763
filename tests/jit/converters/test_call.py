"""The `call` converter: user functions, methods and layers reached from a converted function are converted
too, whatever holds them (oar containers included), and what they capture works inside the program."""
import numpy as np
import pytest

import oar as paddle
from conv_helpers import T, check, convert

IDX = paddle.to_tensor([0, 2])


def test_calls_go_through_convert_call():
    code, _ = convert("""
    def f(x):
        return helper(x, 2)
    """)
    assert "_jst.convert_call(helper)(x, 2)" in code


def test_captured_tensor_as_op_argument():
    def f(x):
        return paddle.gather(x, IDX) * 2
    check(f, T([1.0, 2.0, 3.0]))


def test_nested_function_defaults_name_enclosing_locals():
    def f(x):
        out = x
        for k in range(3):
            def g(t, k=k):
                return t * k
            out = out + g(x)
        if x.sum() > 0:
            m = 2

            def h(t, m=m):
                return t + m
            out = h(out)
        return out
    check(f, T([1.0, 2.0]))
    check(f, T([-1.0, -2.0]))


class Sub(paddle.nn.Layer):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x * 3


@pytest.mark.parametrize("x", [[1.0, 2.0], [-1.0, -2.0]])
def test_user_layers_inside_oar_containers_are_converted(x):
    seq = paddle.nn.Sequential(Sub(), Sub())
    ll = paddle.nn.LayerList([Sub(), Sub()])
    ld = paddle.nn.LayerDict({"a": Sub()})

    def f(t):
        t = seq(t)
        for layer in ll:
            t = layer(t)
        return ld["a"](t)
    sf = check(f, T(x))
    assert "cond" in str(sf.concrete_program.main_program)  # the tensor `if` became a cond op, not an error


def test_static_function_train_and_eval():
    def f(x):
        return paddle.nn.functional.dropout(x, 0.5) * 0 + x
    sf = paddle.jit.to_static(f)
    sf.eval()
    assert not sf.training
    sf(T([1.0]))
    sf.train()
    sf(T([1.0]))
    assert [cp.training for cp in sf.program_cache.concrete_programs()] == [False, True]
    layer = paddle.jit.to_static(paddle.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match=r"layer.eval\(\)"):
        layer.forward.eval()


def test_input_spec_mismatch_is_an_error_not_a_silent_cast():
    from oar.static import InputSpec
    sf = paddle.jit.to_static(lambda x: x * 2, input_spec=[InputSpec([None, 3], "float32", "x")])
    with pytest.raises(TypeError, match=r"input 0 \('x'\).* int64 tensor but its InputSpec says float32"):
        sf(paddle.to_tensor([[1, 2, 3]]))
    with pytest.raises(ValueError, match=r"shape \[1, 4\] but its InputSpec says \[-1, 3\]"):
        sf(paddle.ones([1, 4]))
    np.testing.assert_allclose(sf(paddle.ones([2, 3])).numpy(), np.full([2, 3], 2.0))


def test_converted_function_whose_defaults_name_enclosing_locals():
    def make():
        m = 3.0

        def step(x, k=m, *, j=m + 1) -> "unused annotation":  # noqa: F722
            return x * k + j
        return step
    step = make()
    np.testing.assert_allclose(paddle.jit.to_static(step)(T([1.0])).numpy(), step(T([1.0])).numpy())
    np.testing.assert_allclose(paddle.jit.to_static(step)(T([1.0]), 2.0, j=0.5).numpy(), [2.5])
