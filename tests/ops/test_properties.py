"""Property-based checks (hypothesis) for broadcasting and indexing against NumPy."""
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import oar
from oar.ops.common import broadcast_shapes

SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4), st.sampled_from(
    ["add", "subtract", "multiply", "maximum", "less_than"]))
def test_binary_broadcasting_matches_numpy(shapes, name):
    (s1, s2), result = shapes.input_shapes, shapes.result_shape
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(s1), rng.standard_normal(s2)
    out = getattr(oar, name)(oar.to_tensor(a), oar.to_tensor(b))
    ref = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
           "less_than": np.less}[name](a, b)
    assert out.shape == list(result)
    np.testing.assert_allclose(out.numpy(), ref)
    assert broadcast_shapes(list(s1), list(s2)) == list(result)


@SETTINGS
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3))
def test_broadcast_gradient_sums_back(shapes):
    s1, s2 = shapes.input_shapes
    x = oar.to_tensor(np.ones(s1), stop_gradient=False)
    y = oar.to_tensor(np.full(s2, 2.0), stop_gradient=False)
    (x * y).sum().backward()
    n = int(np.prod(shapes.result_shape))
    assert x.grad.shape == list(s1) and y.grad.shape == list(s2)
    np.testing.assert_allclose(x.grad.numpy().sum(), 2.0 * n)
    np.testing.assert_allclose(y.grad.numpy().sum(), 1.0 * n)


@st.composite
def basic_index(draw, shape):
    """A random basic index (ints, slices, None, Ellipsis) valid for `shape`."""
    items, dims = [], list(shape)
    used_ellipsis = False
    while dims:
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "stop"]))
        if kind == "stop":
            break
        if kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            break
        elif kind == "int":
            n = dims.pop(0)
            items.append(draw(st.integers(-n, n - 1)))
        else:
            n = dims.pop(0)
            start = draw(st.none() | st.integers(-n - 1, n + 1))
            stop = draw(st.none() | st.integers(-n - 1, n + 1))
            step = draw(st.none() | st.sampled_from([1, 2, 3, -1, -2]))
            items.append(slice(start, stop, step))
    return tuple(items)


@st.composite
def array_and_index(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5))
    return shape, draw(basic_index(shape))


@SETTINGS
@given(array_and_index())
def test_basic_indexing_matches_numpy_with_gradient(case):
    shape, index = case
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = oar.to_tensor(a, stop_gradient=False)
    out = x[index]
    np.testing.assert_array_equal(out.numpy(), a[index])
    if out.size:
        out.sum().backward()
        want = np.zeros(shape)
        np.add.at(want, index, 1.0)
        np.testing.assert_array_equal(x.grad.numpy(), want)


@SETTINGS
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), st.data())
def test_bool_and_int_array_indexing(shape, data):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    mask = data.draw(hnp.arrays(np.bool_, shape))
    np.testing.assert_array_equal(oar.to_tensor(a)[oar.to_tensor(mask)].numpy(), a[mask])
    idx = data.draw(hnp.arrays(np.int64, st.integers(1, 4), elements=st.integers(-shape[0], shape[0] - 1)))
    x = oar.to_tensor(a, stop_gradient=False)
    out = x[oar.to_tensor(idx)]
    np.testing.assert_array_equal(out.numpy(), a[idx])
    out.sum().backward()
    want = np.zeros(shape)
    np.add.at(want, idx, 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), want)


@SETTINGS
@given(array_and_index(), st.floats(-5, 5))
def test_setitem_matches_numpy(case, value):
    shape, index = case
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = oar.to_tensor(a.copy())
    x[index] = value
    a[index] = value
    np.testing.assert_array_equal(x.numpy(), a)
