import numpy as np

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
