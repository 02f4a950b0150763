"""The eager tape frees what it no longer needs, without a garbage-collection pass: dropping the last reference to
an output frees its graph (no reference cycles), each node keeps only what its gradient rule reads (`grad_reads`),
and backward releases that as soon as the rule ran. Checked with `gc` disabled and weak references."""
import gc
import weakref

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.ops.registry import defop


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _x(shape=(2, 3, 6, 6), seed=0):
    return oar.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"), stop_gradient=False)


def test_dropping_the_output_frees_the_graph(no_gc):
    x = _x()
    h = oar.tanh(x)
    out = (h * 2.0).sum()
    h_ref, node_ref = weakref.ref(h), weakref.ref(h._node)
    del h
    assert h_ref() is not None          # multiply's gradient reads it: kept while `out` lives
    del out
    assert h_ref() is None and node_ref() is None


def test_conv_bn_relu_keeps_only_what_gradients_read(no_gc):
    conv, bn = nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4)
    x = _x()
    a = conv(x)
    b = bn(a)
    c = nn.functional.relu(b)
    loss = (c * c).sum()
    a_data, b_data = weakref.ref(a._data), weakref.ref(b._data)
    del a, b
    assert a_data() is not None        # batch norm's gradient reads its input
    assert b_data() is None            # relu's gradient reads its output only: its input is gone
    loss.backward()
    assert a_data() is None            # released by backward (no retain_graph)
    assert conv.weight.grad is not None and bn.weight.grad is not None


def test_gradients_unchanged_by_what_is_kept():
    """The same network's gradients with every intermediate held by the caller and with none held."""
    conv, bn = nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4)
    grads = []
    for keep in (True, False):
        x = _x(seed=3)
        held = []
        h = conv(x)
        held.append(h)
        h = nn.functional.max_pool2d(nn.functional.relu(bn(h)), 2)
        held.append(h)
        h = oar.reshape(h, [2, -1])
        loss = (oar.tanh(h) + 1.0).sum() + oar.matmul(h, oar.transpose(h, [1, 0])).exp().mean()
        if not keep:
            del held[:], h
        loss.backward()
        grads.append([t.grad.numpy().copy() for t in (x, conv.weight, bn.weight)])
        for p in (conv.weight, conv.bias, bn.weight, bn.bias):
            p.clear_grad()
    for g0, g1 in zip(*grads):
        np.testing.assert_array_equal(g0, g1)


def test_dropped_output_still_carries_second_order_gradients():
    x = _x((5,))
    (g,) = oar.grad((oar.tanh(x) + 1.0).sum(), x, create_graph=True)   # the tanh output itself is dropped
    g.sum().backward()
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(g.numpy(), 1 - t * t, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), -2 * t * (1 - t * t), rtol=1e-5, atol=1e-6)


def test_saved_input_changed_in_place_is_still_detected():
    x = _x((3,))
    y = x * 1.0
    z = y * y                              # multiply reads its inputs' values
    y.add_(oar.ones([3]))
    with pytest.raises(RuntimeError, match="changed in place"):
        z.sum().backward()


def test_grad_reads_names_are_checked():
    with pytest.raises(ValueError, match="grad_reads entry 'z'"):
        defop("_test_bad_grad_reads", lambda x, y: x, inputs=("x", "y"), grad=lambda g, out, x, y: (g, g),
              grad_reads=("z",))
