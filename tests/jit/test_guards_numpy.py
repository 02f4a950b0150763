"""A NumPy array the trace read (a global, a closure cell, an attribute) is baked into the program: writing
it in place retraces, so the converted function sees the new values as eager code does (before: the old
values, silently)."""
import numpy as np

import oar as paddle

W = np.array([1.0, 2.0], dtype="float32")


def scale(x):
    return x * paddle.to_tensor(W)


def test_a_global_array_written_in_place_retraces():
    sf = paddle.jit.to_static(scale)
    x = paddle.to_tensor([1.0, 1.0])
    try:
        assert sf(x).numpy().tolist() == [1.0, 2.0]
        W[0] = 10.0
        assert sf(x).numpy().tolist() == scale(x).numpy().tolist() == [10.0, 2.0]
        assert "global 'W' changed" in sf.retrace_reasons[-1]
        assert sf(x).numpy().tolist() == [10.0, 2.0] and len(sf.retrace_reasons) == 1  # unchanged: no retrace
    finally:
        W[0] = 1.0


def test_a_closure_array_used_as_an_operand():
    table = np.arange(3, dtype="float32")

    def add(x):
        return x + table

    sf = paddle.jit.to_static(add)
    x = paddle.zeros([3])
    assert sf(x).numpy().tolist() == [0.0, 1.0, 2.0]
    table *= 2
    assert sf(x).numpy().tolist() == add(x).numpy().tolist() == [0.0, 2.0, 4.0]


BIG = np.zeros(5000, dtype="float32")  # over guards.MAX_ARRAY: guarded by a checksum of its bytes


def total(x):
    return x + paddle.to_tensor(BIG).sum()


def test_a_large_global_array_written_in_place_retraces():
    sf = paddle.jit.to_static(total)
    x = paddle.to_tensor(1.0)
    try:
        assert float(sf(x)) == 1.0
        BIG[4999] = 2.0
        assert float(sf(x)) == float(total(x)) == 3.0
        assert "global 'BIG' changed" in sf.retrace_reasons[-1]
        BIG[::2] += 1.0  # a strided write
        assert float(sf(x)) == float(total(x)) == 2503.0
    finally:
        BIG[:] = 0.0


def test_a_strided_large_array_is_checked_through_a_contiguous_copy():
    base = np.zeros((2, 5000), dtype="float32")
    col = base[:, ::2].T  # not contiguous

    def first(x):
        return x + paddle.to_tensor(col).sum()

    sf = paddle.jit.to_static(first)
    x = paddle.to_tensor(0.0)
    assert float(sf(x)) == 0.0
    base[1, 2] = 5.0
    assert float(sf(x)) == float(first(x)) == 5.0
