"""`enumerate(x)` / `zip(x, y)` over tensors inside comprehensions (Python iteration, unrolled when the length
is known while the program is built), and a clear error when it is not."""
import pytest

import oar as paddle
from conv_helpers import T, assert_same, check
from oar.static import InputSpec
from oar.graph.variable import StaticValueError


def weighted_rows(x):
    return [r * (k + 1) for k, r in enumerate(x)]


def paired(x, y):
    return paddle.stack([a * b for a, b in zip(x, y)]), dict(enumerate(x, 5))[6]


def test_enumerate_and_zip_over_tensors_in_comprehensions():
    sf = check(weighted_rows, T([1.0, 2.0, 3.0]))
    assert_same(weighted_rows(T([4.0, 5.0, 6.0])), sf(T([4.0, 5.0, 6.0])))
    check(weighted_rows, T([[1.0, 2.0], [3.0, 4.0]]))
    check(paired, T([1.0, 2.0, 3.0]), T([4.0, 5.0, 6.0]))


def test_an_unknown_length_cannot_be_unrolled():
    sf = paddle.jit.to_static(weighted_rows, input_spec=[InputSpec([None], "float32")])
    with pytest.raises(StaticValueError, match="length is known only when the program runs"):
        sf(T([1.0, 2.0]))
