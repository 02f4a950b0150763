"""Paddle's in-place tensor ops inside converted code: `paddle.increment(x, v)` changes `x` and returns it (eager
and in programs), and a tensor-dependent loop whose body changes a counter only in place carries it."""
import numpy as np

import oar as paddle
from conv_helpers import T, assert_same


def test_increment_is_in_place_and_keeps_dtype():
    i = paddle.zeros([1], "int64")
    out = paddle.increment(i, 2.0)
    assert out is i and i.dtype == paddle.int64 and i.numpy().tolist() == [2]


def count_to_ten_in_place(x):
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 10, "int64")
    guard = paddle.zeros([1], "int64")  # bounds the loop should `i` not be carried
    while i < n and guard < 20:
        paddle.increment(i, 1)
        guard = guard + 1
    return i


def counter_in_python_range(x):
    ret = paddle.zeros([1], "float32")
    for _ in range(5):
        paddle.increment(ret, value=2.0)
    return ret


def counter_in_tensor_range(n):
    ret = paddle.zeros([1], "float32")
    for _ in range(n):
        paddle.increment(ret, value=2.0)
    return ret


def method_in_place_in_while(x):
    i = paddle.zeros([1], "int64")
    s = x
    while i < 3:
        s = s + 1
        i.add_(paddle.ones_like(i))
    return i, s


def test_loops_counting_in_place_give_the_counts_eager_and_converted():
    cases = [(count_to_ten_in_place, T([1.0]), [10]), (counter_in_python_range, T([1.0]), [10.0]),
             (counter_in_tensor_range, T(1, "int64"), [2.0]), (counter_in_tensor_range, T(3, "int64"), [6.0]),
             (method_in_place_in_while, T([1.0]), None)]
    for fn, arg, count in cases:
        want = fn(arg)
        if count is not None:
            assert want.numpy().tolist() == count, fn.__name__
        sf = paddle.jit.to_static(fn)
        for _ in range(2):  # the cached program gives the same counts again
            assert_same(want, sf(arg))
    np.testing.assert_allclose(method_in_place_in_while(T([1.0]))[1].numpy(), [4.0])
