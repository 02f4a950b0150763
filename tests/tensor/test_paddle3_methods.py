"""isin / narrow / take_along_dim and the Tensor-only methods Paddle 3 added (type_as, ndimension, new_*, the cast
shorthands): what the dtype sweep cannot see (Python's builtins, static programs, errors, gradients)."""
import numpy as np
import pytest

import oar


def test_python_builtins_still_read_the_value():
    """``x.float()`` is a cast method; ``float(x)``/``int(x)``/``bool(x)`` still give Python scalars."""
    x = oar.to_tensor([2.75])
    assert (float(x), int(x), bool(x)) == (2.75, 2, True)
    assert isinstance(x.float(), oar.Tensor) and x.int().dtype == oar.int32 and x.bool().dtype == oar.bool


def test_complex_cast_shorthands():
    x = oar.to_tensor([1.5, -2.0])
    assert x.cfloat().dtype == oar.complex64 and x.cdouble().dtype == oar.complex128
    np.testing.assert_array_equal(x.cdouble().numpy(), [1.5 + 0j, -2.0 + 0j])


def test_new_methods_requires_grad_device_and_bad_size():
    x = oar.to_tensor([1.0])
    assert x.new_zeros([2]).stop_gradient and not x.new_ones(2, requires_grad=True).stop_gradient
    assert x.new_full([2], 3.0, device="cpu").numpy().tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match="CPU only"):
        x.new_zeros([2], device="gpu:0")
    with pytest.raises(TypeError, match="new_ones: size must be ints"):
        x.new_ones(2, "3")


def test_ndimension_is_a_python_int():
    assert oar.zeros([2, 3, 4]).ndimension() == 3 and type(oar.to_tensor(1.0).ndimension()) is int


def test_narrow_tensor_start_in_a_static_program_is_a_clear_error():
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            x = oar.static.data("x", [2, 2], "float32")
            with pytest.raises(TypeError, match="narrow: a Tensor start"):
                oar.narrow(x, 0, oar.to_tensor(1), 1)
            assert oar.narrow(x, 1, 1, 1).shape == [2, 1]
    finally:
        oar.disable_static()


def test_gradients_flow_through_narrow_take_along_dim_and_type_as():
    x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = oar.narrow(x, 1, 1, 1).sum() + oar.take_along_dim(x, oar.to_tensor([[0], [0]]), 1).sum() \
        + x.type_as(oar.to_tensor([0.0], "float64")).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 2.0], [2.0, 2.0]])


def test_take_along_dim_out_and_isin_non_tensor():
    out = oar.zeros([2, 1], "int64")
    r = oar.take_along_dim(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([[1], [0]]), 1, out=out)
    assert r is out and out.numpy().tolist() == [[2], [3]]
    with pytest.raises(TypeError, match="isin: x and test_x must be Tensors"):
        oar.isin([1, 2], oar.to_tensor([1]))
