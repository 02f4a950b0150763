import numpy as np
import pytest

import oar
from oar.static import InputSpec


def test_input_spec_basics():
    s = InputSpec([None, 784], "float32", "x")
    assert s.shape == (-1, 784)
    assert repr(s) == "InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, stop_gradient=False)"
    assert s == InputSpec((-1, 784), oar.float32, "x")
    assert hash(s) == hash(InputSpec((-1, 784), oar.float32, "x"))
    assert s != InputSpec((-1, 784), "float64", "x")
    assert InputSpec.from_numpy(np.ones([2, 3], "int64"), "n").shape == (2, 3)
    t = InputSpec.from_tensor(oar.ones([5, 2]), name="t")
    assert t.shape == (5, 2) and t.dtype == oar.float32 and t.name == "t"
    assert InputSpec([3]).batch(8).shape == (8, 3)
    assert InputSpec([8, 3]).unbatch().shape == (3,)


def test_input_spec_shapes_names_and_errors():
    assert InputSpec([None, 3]).batch([4]).shape == (4, -1, 3)  # a 1-element list, as Paddle
    s = InputSpec([2, 3], "int64", "ids")
    assert s.batch(5) is s and s.shape == (5, 2, 3)  # in place, returning the spec
    assert s.unbatch().unbatch().shape == (3,)
    with pytest.raises(ValueError, match="1-element"):
        InputSpec([3]).batch([1, 2])
    with pytest.raises(TypeError, match="batch_size must be an int"):
        InputSpec([3]).batch("8")
    with pytest.raises(ValueError, match="no dims"):
        InputSpec([]).unbatch()
    with pytest.raises(TypeError, match="2.5"):
        InputSpec([2.5])
    with pytest.raises(ValueError, match="from_numpy"):
        InputSpec.from_tensor(np.ones(3))
    t = oar.ones([2, 2], "int32")
    assert InputSpec.from_tensor(t).name == t.name  # the tensor's own name by default
    n = InputSpec.from_numpy(np.zeros([4], "float64"))
    assert (n.shape, n.dtype, n.name) == ((4,), oar.float64, None)
    assert repr(InputSpec((2,), "float16", "a", True)) == \
        "InputSpec(shape=(2,), dtype=paddle.float16, name=a, stop_gradient=True)"
    # equality compares shape, dtype, name and stop_gradient; the hash leaves the name out (as Paddle)
    a, b = InputSpec([None, 8], "float32", "a"), InputSpec([-1, 8], "float32", "b")
    assert a != b and hash(a) == hash(b)
    assert a != InputSpec([None, 8], "float32", "a", stop_gradient=True)
    assert len({a, InputSpec([None, 8], "float32", "a"), b}) == 2
    assert a != (-1, 8)
