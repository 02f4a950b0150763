"""dist.split on one process (num_partitions 1): the linear and embedding results against NumPy, eagerly and in a
static program; partitions that are not the processes are refused."""
import numpy as np
import pytest

import oar
import oar.distributed as dist


def _attr(arr):
    return oar.ParamAttr(initializer=oar.nn.initializer.Assign(arr))


W = np.arange(12, dtype="float32").reshape(3, 4) / 10
B = np.array([1.0, -1.0, 0.5, 2.0], "float32")
X = np.random.RandomState(0).randn(2, 3).astype("float32")


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("gather_out", [True, False])
def test_linear_against_numpy(axis, gather_out):
    out = dist.split(oar.to_tensor(X), (3, 4), "linear", axis=axis, gather_out=gather_out, weight_attr=_attr(W),
                     bias_attr=_attr(B))
    # one partition: the rank's part is the whole; a row-parallel part is the sum before the bias (Paddle)
    ref = X @ W + (0 if axis == 0 and not gather_out else B)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


def test_embedding_and_static_program():
    table = np.random.RandomState(1).randn(5, 3).astype("float32")
    ids = np.array([[0, 4], [2, 2]], "int64")
    out = dist.split(oar.to_tensor(ids), [5, 3], "embedding", weight_attr=_attr(table))
    np.testing.assert_array_equal(out.numpy(), table[ids])
    oar.enable_static()
    try:
        main, start = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, start):
            x = oar.static.data("x", [None, 3], "float32")
            y = dist.split(x, [3, 4], "linear", axis=1, weight_attr=_attr(W), bias_attr=False)
        exe = oar.static.Executor()
        exe.run(start)
        got, = exe.run(main, feed={"x": X}, fetch_list=[y])
    finally:
        oar.disable_static()
    np.testing.assert_allclose(got, X @ W, rtol=1e-6)


def test_refusals():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match="num_partitions=2 must equal the number of processes \\(1\\)"):
        dist.split(x, (3, 4), "linear", num_partitions=2)
    with pytest.raises(ValueError, match="operation must be 'linear' or 'embedding'"):
        dist.split(x, (3, 4), "conv")
    with pytest.raises(ValueError, match="axis 0 \\(the vocabulary\\) only"):
        dist.split(oar.ones([2], "int64"), (3, 4), "embedding", axis=1)
    with pytest.raises(ValueError, match="x's last dim \\(3\\) must be the weight's rows \\(4\\)"):
        dist.split(x, (4, 4), "linear")
    with pytest.raises(ValueError, match="gather_out=False does not apply"):
        dist.split(oar.ones([2], "int64"), (3, 4), "embedding", gather_out=False)
