"""ONNX lowerings of shape ops whose sizes are known only at run time (a None batch dim in the InputSpec):
`split` with equal parts or a -1 section on the batch dim, `squeeze` of several unknown dims, `tile`."""
import numpy as np
import pytest

from onnx_helpers import check

import oar

X = np.random.RandomState(0).randn(4, 6, 1).astype("float32")
MORE = [(np.concatenate([X, X]),)]

CASES = {
    "split_num": lambda x: oar.split(x, 2, axis=0),
    "split_minus_one_first": lambda x: oar.split(x, [-1, 1], axis=0),
    "split_minus_one_mid": lambda x: oar.split(x, [1, -1, 2], axis=0),
    "split_minus_one_known_axis": lambda x: oar.split(x, [2, -1], axis=1),
    "chunk": lambda x: oar.chunk(x, 2, axis=0),
    "squeeze": lambda x: oar.squeeze(oar.unsqueeze(x, 1), axis=[1, 3]),
    "tile": lambda x: oar.tile(x, [2, 1, 3]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unknown_batch(name):
    check(CASES[name], X, dynamic=True, more=MORE)


def test_squeeze_op_with_two_unknown_dims():
    from oar.static import InputSpec
    from onnx_helpers import export_model, run
    fn = lambda x: oar.squeeze(x, axis=2)  # noqa: E731
    _, _, sess = export_model(fn, [InputSpec([None, None, 1], "float32", "x")])
    for shape in [(2, 3, 1), (4, 1, 1)]:
        a = np.random.RandomState(1).randn(*shape).astype("float32")
        np.testing.assert_allclose(run(sess, [a])[0], a[:, :, 0])


RUNTIME = {
    "slice_shape_bound": lambda x: x[: oar.shape(x)[0] - 1, 1:],
    "slice_bound_mid_axis": lambda x: x[:, oar.shape(x)[0] // 2:],
    "split_tensor_sections": lambda x: oar.split(x, [1, oar.shape(x)[0] - 1]),
}


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_runtime_bounds(name):
    check(RUNTIME[name], X, dynamic=True, more=MORE)
