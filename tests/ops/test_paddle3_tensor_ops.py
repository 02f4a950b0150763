"""The Paddle 3 tensor ops beyond their op-table rows and sweep cases: the range errors where Paddle 3.3.1 reads past
its buffers, the Tensor operators and methods Paddle defines (and the one it does not), and static programs."""
import numpy as np
import pytest

import oar


def test_index_fill_refuses_an_index_out_of_range():
    x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(IndexError, match=r"index_fill: index values must be in \[-2, 2\)"):
        oar.index_fill(x, oar.to_tensor([2]), 0, 0.0)
    with pytest.raises(IndexError, match="index_fill"):
        oar.index_fill(x, oar.to_tensor([-3]), 1, 0.0)


def test_masked_scatter_refuses_too_few_values():
    x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="mask selects 4 elements but value has only 3"):
        oar.masked_scatter(x, x > 0, oar.to_tensor([1.0, 2.0, 3.0]))


def test_masked_scatter_with_no_values_and_nothing_selected():
    x = oar.to_tensor([1.0, 2.0])
    assert oar.masked_scatter(x, x > 5, oar.zeros([0])).numpy().tolist() == [1.0, 2.0]


def test_shift_operators_and_methods_as_paddle_defines_them():
    x = oar.to_tensor([-8, 3], "int32")
    assert (x << 1).numpy().tolist() == [-16, 6] and (x >> 1).numpy().tolist() == [-4, 1]
    assert (1 << oar.to_tensor([3, 70], "int32")).numpy().tolist() == [8, 0]
    assert (64 >> oar.to_tensor([3, -1], "int32")).numpy().tolist() == [8, 0]
    assert (x << 1).dtype == oar.int32
    assert x.bitwise_right_shift(oar.to_tensor([1, 1], "int32"), is_arithmetic=False).numpy().tolist() == \
        [2147483644, 1]
    y = x.bitwise_left_shift_(oar.to_tensor([2, 2], "int32"))
    assert y is x and x.numpy().tolist() == [-32, 12]
    with pytest.raises(TypeError):
        x << 1.5


def test_shift_out_writes_the_given_tensor():
    out = oar.zeros([2], "int64")
    r = oar.bitwise_left_shift(oar.to_tensor([1, 2]), oar.to_tensor([1, 1]), out=out)
    assert r is out and out.numpy().tolist() == [2, 4]


def test_hypot_does_not_overflow_in_the_squares():
    # Paddle 3.3.1 squares first (inf); the true value fits float32
    got = oar.hypot(oar.to_tensor([3e30]), oar.to_tensor([4e30])).numpy()
    np.testing.assert_allclose(got, [5e30], rtol=1e-6)


def test_tensor_methods_follow_paddle():
    x = oar.to_tensor([1.0, 2.0, 3.0])
    assert x.combinations().shape == [3, 2]
    assert x.hypot(x).shape == [3] and x.index_fill(oar.to_tensor([0]), 0, 0.0).numpy().tolist() == [0.0, 2.0, 3.0]
    assert not hasattr(oar.Tensor, "cartesian_prod")  # a top-level function only, as in Paddle


def test_meshgrid_takes_an_empty_input():
    a, b = oar.meshgrid(oar.to_tensor([1, 2]), oar.to_tensor([], "int64"))
    assert a.shape == [2, 0] and b.shape == [2, 0]


def test_static_program_of_the_composed_ops():
    @oar.jit.to_static
    def f(x, m, v, i):
        return oar.masked_scatter(x, m, v), oar.index_fill(x, i, 1, -1.0), oar.combinations(v, 2)

    x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    m = oar.to_tensor([[True, False], [False, True]])
    a, b, c = f(x, m, oar.to_tensor([7.0, 8.0, 9.0]), oar.to_tensor([0]))
    assert a.numpy().tolist() == [[7.0, 2.0], [3.0, 8.0]]
    assert b.numpy().tolist() == [[-1.0, 2.0], [-1.0, 4.0]]
    assert c.numpy().tolist() == [[7.0, 8.0], [7.0, 9.0], [8.0, 9.0]]
