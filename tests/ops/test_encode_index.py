"""`encode_index`'s fast path (ints, int slices, None, Ellipsis) gives exactly the spec of the general path."""
from collections import namedtuple

import numpy as np
import pytest

import oar
from oar.ops.subscript import _encode_index, encode_index


def _typed(spec):
    return [[(type(v), v) for v in e] for e in spec]


@pytest.mark.parametrize("index", [
    3, -1, (slice(None), 3), slice(1, 5, 2), (None, Ellipsis, -1), (slice(None, -2), slice(3, None, -1)),
    (Ellipsis,), (), (slice(0, 0),),
])
def test_fast_path_is_the_general_spec(index):
    spec, tensors = encode_index(index)
    want, want_t = _encode_index(index if isinstance(index, tuple) else (index,))
    assert _typed(spec) == _typed(want) and tensors == want_t == []


@pytest.mark.parametrize("index", [
    (slice(None), True), (np.int64(2),), (slice(np.int64(1), None),), ([0, 2],), (slice(None), 2.5),
])
def test_other_items_take_the_general_path(index):
    if any(type(i) is float for i in index):
        with pytest.raises(TypeError, match="unsupported index"):
            encode_index(index)
        return
    spec, tensors = encode_index(index)
    want, want_t = _encode_index(index)
    assert _typed(spec) == _typed(want) and len(tensors) == len(want_t)
    assert all(type(e[1]) is int for e in spec if e[0] == "i")  # a NumPy integer becomes an int, as before


def test_a_tuple_subclass_is_a_tuple_index():
    Pair = namedtuple("Pair", "a b")
    x = oar.to_tensor(np.arange(12.0).reshape(3, 4))
    assert encode_index(Pair(1, slice(None, 2)))[0] == [["i", 1], ["s", None, 2, None]]
    assert x[Pair(1, slice(None, 2))].numpy().tolist() == [4.0, 5.0]
