"""`int()` of a cast value used as a size in sequence-mask style code: `int(x.max().cast('int32'))` is a run-time
value in a program, and `expand` / `broadcast_to` accept it (and -1) in their target shape."""
import oar as paddle
from conv_helpers import T, assert_same, check
from oar.static import InputSpec


def sequence_mask(lengths):
    maxlen = int(lengths.max().cast("int32"))
    steps = paddle.arange(maxlen, dtype="int64")
    grid = paddle.expand(steps.unsqueeze(0), [lengths.shape[0], maxlen])
    return (grid < lengths.unsqueeze(1)).astype("float32")


def broadcast_rows(x, n):
    k = int(paddle.cast(n, "int64"))
    return paddle.broadcast_to(x.unsqueeze(0), [k, -1]) * 2


def test_int_of_a_cast_value_as_an_expand_size():
    sf = check(sequence_mask, T([1, 3, 2], "int64"), grad=False)
    assert_same(sequence_mask(T([4, 1], "int64")), sf(T([4, 1], "int64")))
    sf = check(broadcast_rows, T([1.0, 2.0]), T(3, "int64"))
    assert_same(broadcast_rows(T([5.0, 6.0]), T(2, "int64")), sf(T([5.0, 6.0]), T(2, "int64")))
    dyn = paddle.jit.to_static(broadcast_rows, input_spec=[InputSpec([None], "float32"), InputSpec([], "int64")])
    assert_same(broadcast_rows(T([1.0, 2.0, 3.0]), T(2, "int64")), dyn(T([1.0, 2.0, 3.0]), T(2, "int64")))
