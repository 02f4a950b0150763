"""In-place Tensor methods (``x.add_(y)``): same values as the out-of-place op, the same object comes back with
its dtype kept (a comparison makes it bool, as Paddle's), and gradients flow through them on non-leaf tensors."""
import numpy as np
import pytest

import oar

R = np.random.default_rng(3)
A = R.uniform(0.5, 2.0, (2, 3))
B = R.uniform(0.5, 2.0, (2, 3))
IDX = np.array([[1, 0, 1]])

ROWS = {  # method -> (args made from tensors, out-of-place reference as a function of the same args)
    "add_": (lambda: [oar.to_tensor(B)], oar.add), "subtract_": (lambda: [oar.to_tensor(B)], oar.subtract),
    "multiply_": (lambda: [oar.to_tensor(B)], oar.multiply), "divide_": (lambda: [oar.to_tensor(B)], oar.divide),
    "pow_": (lambda: [2.0], oar.pow), "remainder_": (lambda: [oar.to_tensor(B)], oar.remainder),
    "floor_divide_": (lambda: [oar.to_tensor(B)], oar.floor_divide),
    "scale_": (lambda: [3.0], oar.scale), "clip_": (lambda: [0.8, 1.5], oar.clip),
    "exp_": (list, oar.exp), "log_": (list, oar.log), "sqrt_": (list, oar.sqrt), "rsqrt_": (list, oar.rsqrt),
    "tanh_": (list, oar.tanh), "sigmoid_": (list, oar.sigmoid), "abs_": (list, oar.abs), "neg_": (list, oar.neg),
    "sin_": (list, oar.sin), "cos_": (list, oar.cos), "square_": (list, oar.square),
    "reciprocal_": (list, oar.reciprocal), "floor_": (list, oar.floor), "ceil_": (list, oar.ceil),
    "round_": (list, oar.round), "cumsum_": (lambda: [1], oar.cumsum), "flip_": (lambda: [[0]], oar.flip),
    "roll_": (lambda: [1, 1], oar.roll), "reshape_": (lambda: [[3, 2]], oar.reshape),
    "flatten_": (list, oar.flatten), "squeeze_": (list, oar.squeeze), "unsqueeze_": (lambda: [0], oar.unsqueeze),
    "transpose_": (lambda: [[1, 0]], oar.transpose), "tile_": (lambda: [[1, 2]], oar.tile),
    "masked_fill_": (lambda: [oar.to_tensor(A > 1), 0.0], oar.masked_fill),
    "scatter_": (lambda: [oar.to_tensor([1]), oar.to_tensor(B[:1])], oar.scatter),
    "put_along_axis_": (lambda: [oar.to_tensor(IDX), oar.to_tensor(B[:1]), 0], oar.put_along_axis),
    "index_add_": (lambda: [oar.to_tensor([0]), 0, oar.to_tensor(B[:1])], oar.index_add),
    "zero_": (list, oar.zeros_like), "fill_": (lambda: [2.5], lambda x, v: oar.full_like(x, v)),
    # the Paddle 2.6 breadth: special functions, comparisons and logic (x becomes bool), matrix ops
    "acos_": (list, oar.acos), "asin_": (list, oar.asin), "atan_": (list, oar.atan), "cosh_": (list, oar.cosh),
    "sinh_": (list, oar.sinh), "tan_": (list, oar.tan), "acosh_": (list, oar.acosh), "asinh_": (list, oar.asinh),
    "atanh_": (list, oar.atanh), "erf_": (list, oar.erf), "erfinv_": (list, oar.erfinv), "expm1_": (list, oar.expm1),
    "log10_": (list, oar.log10), "log2_": (list, oar.log2), "log1p_": (list, oar.log1p), "trunc_": (list, oar.trunc),
    "frac_": (list, oar.frac), "digamma_": (list, oar.digamma), "lgamma_": (list, oar.lgamma), "i0_": (list, oar.i0),
    "logit_": (lambda: [0.1], oar.logit), "polygamma_": (lambda: [1], oar.polygamma),
    "nan_to_num_": (list, oar.nan_to_num), "cumprod_": (lambda: [1], oar.cumprod),
    "mod_": (lambda: [oar.to_tensor(B)], oar.mod), "floor_mod_": (lambda: [oar.to_tensor(B)], oar.floor_mod),
    "ldexp_": (lambda: [oar.to_tensor([[1, 2, 0]])], oar.ldexp), "lerp_": (lambda: [oar.to_tensor(B), 0.3], oar.lerp),
    "equal_": (lambda: [oar.to_tensor(B)], oar.equal), "not_equal_": (lambda: [oar.to_tensor(B)], oar.not_equal),
    "greater_equal_": (lambda: [oar.to_tensor(B)], oar.greater_equal),
    "greater_than_": (lambda: [oar.to_tensor(B)], oar.greater_than),
    "less_equal_": (lambda: [oar.to_tensor(B)], oar.less_equal),
    "less_than_": (lambda: [oar.to_tensor(B)], oar.less_than),
    "logical_and_": (lambda: [oar.to_tensor(B > 1)], oar.logical_and),
    "logical_or_": (lambda: [oar.to_tensor(B > 1)], oar.logical_or),
    "logical_xor_": (lambda: [oar.to_tensor(B > 1)], oar.logical_xor), "logical_not_": (list, oar.logical_not),
    "tril_": (list, oar.tril), "triu_": (lambda: [1], oar.triu), "t_": (list, oar.t),
    "renorm_": (lambda: [2, 0, 1.5], oar.renorm),
    "addmm_": (lambda: [oar.to_tensor(B), oar.to_tensor(np.ones((3, 3))), 0.5, 2.0], oar.addmm),
    "index_put_": (lambda: [(oar.to_tensor([1]), oar.to_tensor([2])), oar.to_tensor(9.0)], oar.index_put),
    "cast_": (lambda: ["float64"], oar.cast),
    # Paddle 3's additions
    "hypot_": (lambda: [oar.to_tensor(B)], oar.hypot),
    "index_fill_": (lambda: [oar.to_tensor([1, 0]), 1, -1.0], oar.index_fill),
    "masked_scatter_": (lambda: [oar.to_tensor(A > 1), oar.to_tensor(B.reshape(-1))], oar.masked_scatter),
    "sinc_": (list, oar.sinc), "copysign_": (lambda: [oar.to_tensor(-B)], oar.copysign),
    "less_": (lambda: [oar.to_tensor(B)], oar.less), "gammaln_": (list, oar.gammaln),
    "clamp_": (lambda: [0.8, 1.5], oar.clamp), "mul_": (lambda: [oar.to_tensor(B)], oar.mul),
}
INT_ROWS = {  # in-place forms of integer ops, on an int64 tensor
    "bitwise_and_": (lambda: [oar.to_tensor([[6, 3, 5]])], oar.bitwise_and),
    "bitwise_or_": (lambda: [oar.to_tensor([[6, 3, 5]])], oar.bitwise_or),
    "bitwise_xor_": (lambda: [oar.to_tensor([[6, 3, 5]])], oar.bitwise_xor), "bitwise_not_": (list, oar.bitwise_not),
    "gcd_": (lambda: [oar.to_tensor([[6, 3, 5]])], oar.gcd), "lcm_": (lambda: [oar.to_tensor([[6, 3, 5]])], oar.lcm),
    "bitwise_left_shift_": (lambda: [oar.to_tensor([[1, 70, -1]])], oar.bitwise_left_shift),
    "bitwise_right_shift_": (lambda: [oar.to_tensor([[1, 2, 3]]), False], oar.bitwise_right_shift),
    "bitwise_invert_": (list, oar.bitwise_invert),
}
RANDOM_FILLS = {"uniform_", "normal_", "exponential_", "cauchy_", "geometric_"}  # tests/ops/test_random.py & doctests


@pytest.mark.parametrize("name", sorted(ROWS))
def test_inplace_matches_out_of_place(name):
    make_args, ref = ROWS[name]
    x = oar.to_tensor(A)
    want = ref(oar.to_tensor(A), *make_args()).numpy()
    version = x._version
    out = getattr(x, name)(*make_args())
    kept = want.dtype.kind == "f"  # a float result stays float64; a comparison's bool replaces it (Paddle)
    assert out is x and x._version > version and (x.dtype == oar.float64 if kept else x.numpy().dtype == want.dtype)
    assert x.shape == list(want.shape)
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-12)


def test_every_inplace_method_is_checked():
    from oar.tensor.method_table import METHODS
    have = {k for k in METHODS if k.endswith("_") and not k.startswith("__")}
    # where_: the test below; fill_diagonal_: tests/ops/op_table_breadth.py (Paddle's placement rules)
    assert have - set(ROWS) - set(INT_ROWS) - {"where_", "fill_diagonal_"} <= RANDOM_FILLS


def test_where_inplace_writes_into_x():
    x, y = oar.to_tensor(A), oar.to_tensor(B)
    cond = oar.to_tensor(A > B)
    assert cond.where_(x, y) is x and oar.where_(cond, x, y) is x  # as Paddle's: the method's self is condition
    np.testing.assert_array_equal(x.numpy(), np.where(A > B, A, B))


@pytest.mark.parametrize("name", sorted(INT_ROWS))
def test_integer_inplace_matches_out_of_place(name):
    make_args, ref = INT_ROWS[name]
    data = np.array([[4, 9, 12], [7, 2, 10]])
    x = oar.to_tensor(data)
    want = ref(oar.to_tensor(data), *make_args()).numpy()
    version = x._version
    assert getattr(x, name)(*make_args()) is x and x.dtype == oar.int64 and x._version > version
    np.testing.assert_array_equal(x.numpy(), want)


def test_inplace_keeps_the_tensor_dtype():
    x = oar.to_tensor([1, 2, 3], dtype="int32")
    x.add_(oar.to_tensor([1, 1, 1], dtype="int32")).scale_(2)
    assert x.dtype == oar.int32 and x.tolist() == [4, 6, 8]


def test_gradient_flows_through_inplace_ops():
    x = oar.to_tensor(A, stop_gradient=False)
    w = oar.to_tensor(B, stop_gradient=False)
    y = x * 1.0
    y.multiply_(w).exp_()  # y = exp(x * w)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(A * B) * B, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), np.exp(A * B) * A, rtol=1e-12)


def test_inplace_on_a_leaf_that_requires_grad_raises_clearly():
    x = oar.to_tensor(A, stop_gradient=False)
    with pytest.raises(RuntimeError, match="leaf tensor.*in place"):
        x.exp_()
    with oar.no_grad():
        x.zero_()
    assert x.numpy().sum() == 0.0


@pytest.mark.parametrize("name", ["add_", "subtract_", "multiply_", "divide_", "pow_", "equal_", "bitwise_and_"])
def test_inplace_broadcast_cannot_change_the_shape(name):
    """Paddle raises when the broadcast result of an in-place elementwise op has another shape than the tensor;
    oar silently replaced the tensor by the larger result."""
    dt = "int32" if name == "bitwise_and_" else "float32"
    x = oar.ones([1, 2], dtype=dt)
    with pytest.raises(ValueError, match=r"broadcast result has shape \[2, 2\], the tensor written in place \[1, 2\]"):
        getattr(x, name)(oar.ones([2, 2], dtype=dt))
    assert x.shape == [1, 2] and x._version == 0
    y = oar.ones([2, 2], dtype=dt)
    getattr(y, name)(oar.ones([2], dtype=dt))  # broadcasting into the tensor's own shape is fine
    assert y.shape == [2, 2]
