"""An in-place op on an input of a converted function: the program is fed the input and returns the changed value
(the feed used to follow the Python object to the op's result, so the input went missing or the old value came
back)."""
import numpy as np

import oar


def add_one_in_place(x):
    x.add_(oar.ones_like(x))
    return x


def scale_in_place_then_use(x):
    x.scale_(2.0)
    return x + 1.0


def test_in_place_op_on_an_input_matches_eager():
    for fn in (add_one_in_place, scale_in_place_then_use):
        conv = oar.jit.to_static(fn, input_spec=[oar.static.InputSpec([2], "float32")])
        want = fn(oar.to_tensor([1.0, 2.0])).numpy()
        np.testing.assert_allclose(conv(oar.to_tensor([1.0, 2.0])).numpy(), want)
