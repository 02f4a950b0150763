"""The eager Tensor API of issue 2: creation dtype rules, conversions, repr, indexing with gradients, autograd API."""
import numpy as np
import pytest

import oar


# ---- to_tensor and dtypes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    (1.5, "float32"), ([1.0, 2.0], "float32"), (3, "int64"), ([[1, 2]], "int64"), (True, "bool"),
    ([True, False], "bool"), (1 + 2j, "complex64"), (np.array([1.0]), "float64"), (np.array([1], np.int32), "int32"),
    (np.float32(2.0), "float32"), (np.array([1, 2], np.uint8), "uint8")])
def test_to_tensor_dtype_rules(data, dtype):
    assert oar.to_tensor(data).dtype == dtype


def test_to_tensor_explicit_dtype_copy_and_stop_gradient():
    a = np.array([1.0, 2.0])
    t = oar.to_tensor(a, dtype="float16")
    assert t.dtype == oar.float16 and t.stop_gradient
    t2 = oar.to_tensor(a)
    a[0] = 9.0
    assert t2.numpy()[0] == 1.0  # to_tensor copies
    assert not oar.to_tensor([1.0], stop_gradient=False).stop_gradient
    assert oar.to_tensor(t2).dtype == oar.float64


def test_default_dtype():
    try:
        oar.set_default_dtype("float64")
        assert oar.get_default_dtype() == "float64"
        assert oar.to_tensor(1.0).dtype == oar.float64
        assert oar.ones([2]).dtype == oar.float64
    finally:
        oar.set_default_dtype("float32")
    with pytest.raises(TypeError):
        oar.set_default_dtype("int32")


@pytest.mark.parametrize("a, b, want", [
    ("float32", "float64", "float64"), ("int32", "int64", "int64"), ("int64", "float32", "float32"),
    ("bool", "int32", "int32"), ("float16", "float32", "float32"), ("uint8", "int8", "int16")])
def test_promotion_between_tensors(a, b, want):
    x, y = oar.ones([2], a), oar.ones([2], b)
    assert (x + y).dtype == want and (y * x).dtype == want


def test_promotion_with_python_scalars():
    i = oar.to_tensor([1, 2], dtype="int32")
    f16 = oar.ones([2], "float16")
    assert (i + 1).dtype == oar.int32
    assert (i + 1.5).dtype == oar.float32
    assert (f16 * 2.0).dtype == oar.float16
    assert (i / i).dtype == oar.float32  # true division of integers gives the default float
    assert (2 - i).numpy().tolist() == [1, 0]


# ---- conversions, metadata, repr ----------------------------------------------------------------------------------

def test_metadata_and_conversions():
    x = oar.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.shape == [2, 3] and isinstance(x.shape, list)
    assert x.ndim == 2 and x.size == 6 and len(x) == 2
    assert np.asarray(x).shape == (2, 3)
    assert x[1, 2].item() == 6.0
    assert float(x[0, 0]) == 1.0 and int(x[1, 1]) == 5 and bool(x[0, 1])
    assert x.astype("int32").dtype == oar.int32 and x.cast(oar.float64).dtype == oar.float64
    assert x.T.shape == [3, 2]
    assert isinstance(x.name, str)


@pytest.mark.parametrize("conv", [bool, float, int])
def test_scalar_conversion_errors(conv):
    with pytest.raises(TypeError, match=r"one element.*\[2\]"):
        conv(oar.to_tensor([1.0, 2.0]))


def test_len_of_0d_and_item_error():
    with pytest.raises(TypeError):
        len(oar.to_tensor(1.0))
    with pytest.raises(ValueError, match="one element"):
        oar.ones([2]).item()


def test_repr_paddle_style():
    r = repr(oar.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert r.startswith("Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,")
    assert "[[1., 2., 3.]," in r and r.endswith("]])")
    assert "stop_gradient=False" in repr(oar.ones([1]) * oar.to_tensor([1.0], stop_gradient=False))
    assert "dtype=int64" in repr(oar.to_tensor(3))


@pytest.mark.parametrize("value, dtype, text", [
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32", "[[1., 2., 3.],\n        [4., 5., 6.]]"),
    ([1.0, 1.5, -2.25], "float32", "[ 1.        ,  1.50000000, -2.25000000]"),  # one width, a column for the sign
    (3.5, "float64", "3.50000000"),
    (3, "int64", "3"),
    ([True, False], "bool", "[True , False]"),
    ([1.5, 2.5], "bfloat16", "[1.50000000, 2.50000000]"),
])
def test_repr_values_like_paddle(value, dtype, text):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    t = oar.to_tensor(value, dtype=dtype)
    assert repr(t) == (f"Tensor(shape={t.shape}, dtype={dtype}, place=Place(cpu), stop_gradient=True,\n"
                       f"       {text})")


def test_repr_summarises_large_tensors_and_parameters():
    r = repr(oar.arange(2000, dtype="float32"))
    assert "[0.   , 1.   , 2.   , ..., 1997., 1998., 1999.]" in r
    p = oar.nn.Linear(2, 2).weight
    assert repr(p).startswith("Parameter containing:\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), "
                              "stop_gradient=False,\n       [[")
    try:
        oar.set_printoptions(precision=2)
        assert repr(oar.to_tensor([0.125, 1.0])).endswith("[0.12, 1.  ])")
    finally:
        oar.set_printoptions(precision=8)


# ---- indexing with gradients ----------------------------------------------------------------------------------------

def test_getitem_gradients():
    x = oar.to_tensor(np.arange(12.0).reshape(3, 4), stop_gradient=False)
    y = x[1:, None, ..., ::2].sum() + x[x > 9].sum() * 2 + x[[0, 0], [1, 1]].sum()
    y.backward()
    want = np.zeros((3, 4))
    want[1:, ::2] += 1
    want[np.arange(12.0).reshape(3, 4) > 9] += 2
    want[0, 1] += 2
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_setitem_gradients_to_base_and_value():
    x = oar.to_tensor(np.ones((2, 3)), stop_gradient=False)
    v = oar.to_tensor([5.0, 6.0], stop_gradient=False)
    y = x * 2
    y[:, 1] = v * 3
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[2, 0, 2], [2, 0, 2]])
    np.testing.assert_allclose(v.grad.numpy(), [3, 3])
    np.testing.assert_allclose(y.numpy(), [[2, 15, 2], [2, 18, 2]])


def test_setitem_on_leaf_requiring_grad_raises():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="in place"):
        x[0] = 3.0
    with oar.no_grad():
        x[0] = 3.0
    assert x.numpy()[0] == 3.0


def test_setitem_bool_mask_and_int_array():
    x = oar.zeros([4])
    x[oar.to_tensor([True, False, True, False])] = 1.0
    x[np.array([1])] = 2.0
    assert x.numpy().tolist() == [1.0, 2.0, 1.0, 0.0]


def test_inplace_after_use_is_detected():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 1.0
    z = y * y
    y.add_(oar.ones([2]))
    with pytest.raises(RuntimeError, match="changed in place"):
        z.sum().backward()


# ---- autograd API ---------------------------------------------------------------------------------------------------

def test_detach_clone():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    d = x.detach()
    assert d.stop_gradient and np.shares_memory(d._data, x._data)  # detach shares memory; numpy() copies
    c = x.clone()
    (c * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3, 3])


def test_register_hook_changes_gradient():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
    h = x.register_hook(lambda g: g + 1)
    y.sum().backward()
    np.testing.assert_allclose(seen[0], [1, 1])
    np.testing.assert_allclose(x.grad.numpy(), [21, 21])
    h.remove()
    x.clear_grad()
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])


def test_retain_graph():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4, 8])
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


def test_no_grad_context_and_decorator():
    x = oar.to_tensor([1.0], stop_gradient=False)
    with oar.no_grad():
        assert (x * 2).stop_gradient

    @oar.no_grad()
    def f(t):
        return t * 2
    assert f(x).stop_gradient
    assert not (x * 2).stop_gradient


def test_grad_create_graph_and_allow_unused():
    x = oar.to_tensor([2.0], stop_gradient=False)
    y = oar.to_tensor([3.0], stop_gradient=False)
    z = x * x * y
    dx, = oar.grad(z, x, create_graph=True)
    np.testing.assert_allclose(dx.numpy(), [12.0])
    assert not dx.stop_gradient
    ddx, dy = oar.grad(dx, [x, y])
    np.testing.assert_allclose(ddx.numpy(), [6.0])
    np.testing.assert_allclose(dy.numpy(), [4.0])
    w = oar.to_tensor([1.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="allow_unused"):
        oar.grad((x * 2).sum(), [x, w])
    gx, gw = oar.grad((x * 2).sum(), [x, w], allow_unused=True)
    assert gw is None and gx.numpy()[0] == 2.0
    assert x.grad is None  # oar.grad does not accumulate into .grad


def test_backward_errors():
    with pytest.raises(RuntimeError, match="stop_gradient"):
        (oar.ones([1]) * 2).backward()
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * 2).backward()  # Paddle's implicit gradient of ones for a tensor of any shape
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    x.clear_grad()
    (x * 2).backward(grad_tensor=oar.to_tensor([1.0, 3.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 6.0])
    g, = oar.grad([x * 3], [x])  # grad_outputs default to ones too
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])


def test_integer_inputs_get_no_gradient():
    w = oar.to_tensor(np.ones((4, 2)), stop_gradient=False)
    idx = oar.to_tensor([1, 3], stop_gradient=False)
    labels = oar.to_tensor([0, 1, 1, 0], stop_gradient=False)
    loss = oar.gather(w, idx).sum() + oar.take_along_axis(w, labels.reshape([4, 1]), 1).sum()
    loss.backward()
    assert idx.grad is None and labels.grad is None
    assert w.grad is not None


def test_gradient_accumulates_until_clear():
    x = oar.to_tensor([1.0], stop_gradient=False)
    for _ in range(3):
        (x * 2).backward()
    assert x.grad.numpy()[0] == 6.0
    x.clear_grad()  # zeroed, as Paddle does; accumulation starts again from zero
    assert x.grad.numpy()[0] == 0.0
    (x * 2).backward()
    assert x.grad.numpy()[0] == 2.0


# ---- methods from the op registry ----------------------------------------------------------------------------------

def test_methods_of_new_op_families():
    x = oar.to_tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert x.argmax(axis=1).tolist() == [0, 1]
    assert x.argmin().item() == 3
    assert x.sort(axis=1).tolist() == [[1, 2, 3], [0, 4, 5]]
    v, i = x.topk(1)
    assert v.tolist() == [[3.0], [5.0]] and i.tolist() == [[0], [1]]
    assert x.flip(0).tolist()[0] == [0.0, 5.0, 4.0]
    assert x.gather(oar.to_tensor([1])).tolist() == [[0.0, 5.0, 4.0]]
    assert x.masked_select(x > 3).tolist() == [5.0, 4.0]
    assert x.index_select(oar.to_tensor([2]), axis=1).tolist() == [[2.0], [4.0]]
    y = oar.zeros([3])
    y.uniform_(0.0, 1.0)
    assert ((y.numpy() >= 0) & (y.numpy() < 1)).all()
    z = oar.ones([2])
    z.add_(oar.ones([2])).scale_(3.0)
    assert z.tolist() == [6.0, 6.0]


def test_clear_errors_name_op_and_shapes():
    with pytest.raises(ValueError, match=r"matmul.*\[3, 5\].*\[3, 5\]"):
        oar.matmul(oar.ones([3, 5]), oar.ones([3, 5]))
    with pytest.raises(ValueError, match=r"add.*\[2, 3\].*\[4\]"):
        oar.ones([2, 3]) + oar.ones([4])
    with pytest.raises(ValueError, match=r"reshape.*\[2, 3\].*\[4, -1\]"):
        oar.ones([2, 3]).reshape([4, -1])
    with pytest.raises(IndexError, match=r"gather.*\[3, 2\]"):
        oar.gather(oar.ones([3, 2]), oar.to_tensor([5]))
    with pytest.raises(ValueError, match=r"concat.*\[2, 3\].*\[2, 4\]"):
        oar.concat([oar.ones([2, 3]), oar.ones([2, 4])], axis=0)
    with pytest.raises(ValueError, match=r"topk.*k=5"):
        oar.topk(oar.ones([3]), 5)
    with pytest.raises(TypeError, match="masked_select.*bool"):
        oar.masked_select(oar.ones([3]), oar.ones([3]))


# every op of issue 2 that Paddle's Tensor has as a method is one, and it is the function itself (one definition)
METHOD_OPS = """add subtract multiply divide floor_divide remainder pow exp log log1p sqrt rsqrt square abs sign neg sin
cos tanh sigmoid erf floor ceil round clip maximum minimum where isnan isinf isfinite nan_to_num equal not_equal
less_than less_equal greater_than greater_equal logical_and logical_or logical_not logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_not allclose all any sum mean max min prod argmax argmin logsumexp std var norm cumsum cumprod
matmul bmm dot mm outer t inverse reshape transpose flatten squeeze unsqueeze expand expand_as broadcast_to tile
concat stack split chunk unbind slice strided_slice gather gather_nd scatter scatter_nd_add index_select
masked_select take_along_axis put_along_axis flip roll repeat_interleave numel cast sort argsort topk unique add_n
bernoulli multinomial""".split()


@pytest.mark.parametrize("name", METHOD_OPS)
def test_method_is_the_op_function(name):
    assert getattr(oar.Tensor, name) is getattr(oar, name)


def test_cast_gradient_goes_back_to_the_input_dtype():
    x = oar.to_tensor([1.0, 2.0], dtype="float64", stop_gradient=False)
    y = (x.astype("float32") * oar.to_tensor([3.0, 4.0])).sum()
    y.backward()
    assert x.grad.dtype == oar.float64
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    i = oar.to_tensor([1, 2], stop_gradient=False)
    (i.astype("float32") * x).sum().backward()
    assert i.grad is None  # integer tensors never receive gradients


def test_to_tensor_refuses_ints_beyond_int64():
    """NumPy makes uint64 of a Python int past int64's range; oar has no uint64 (Paddle raises there too)."""
    with pytest.raises(OverflowError, match="beyond int64's range"):
        oar.to_tensor([2 ** 63])
    assert oar.to_tensor([2 ** 63 - 1]).dtype == oar.int64
