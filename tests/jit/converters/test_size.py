"""`x.size` in converted code: the element count, also when a dim is unknown in the program (an InputSpec with
None), where the count is computed from the run-time shape (it used to be -1)."""
import numpy as np

import oar as paddle
from conv_helpers import T, convert
from oar.static import InputSpec


def count(x):
    return x.size


def flatten_by_size(x):
    return paddle.reshape(x, [x.size]) * 2


def mean_by_size(x):
    return x.sum() / x.size


def test_size_with_an_unknown_dim_is_the_run_time_count():
    for fn in (count, flatten_by_size, mean_by_size):
        sf = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")])
        for rows in (2, 5, 2):
            x = T(np.arange(rows * 3).reshape(rows, 3))
            np.testing.assert_allclose(np.asarray(_value(sf(x))), np.asarray(_value(fn(x))), rtol=1e-6)


def test_size_with_known_dims_stays_a_python_int_and_other_objects_keep_theirs():
    sf = paddle.jit.to_static(count)
    assert sf(T(np.ones([2, 3]))) == 6
    code, _ = convert("def f(x, a):\n    return x.size + a.size\n")
    assert "_jst.convert_size(x)" in code
    assert paddle.jit.to_static(lambda x, a: x.size + a.size)(T([1.0, 2.0]), np.ones(4)) == 6


def _value(v):
    return v.numpy() if hasattr(v, "numpy") else v
