"""paddle.autograd.saved_tensors_hooks: pack when the op runs, unpack when backward reads, as Paddle 3.3.1."""
import threading

import numpy as np
import pytest

import oar


def test_identity_hooks_see_what_paddle_shows():
    log = []
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with oar.autograd.saved_tensors_hooks(lambda t: log.append(("pack", t.shape)) or t,
                                          lambda t: log.append(("unpack", t.shape)) or t):
        y = (x * x).sum()
    # multiply keeps both inputs (Paddle 3.3.1: pack, pack); which tensors an op keeps is the op's own choice
    n = len(log)
    assert n >= 2 and all(entry == ("pack", [2]) for entry in log)
    y.backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0] and log[n:] == [("unpack", [2])] * n


def test_hooks_that_move_values_out_and_back():
    store = {}

    def pack(t):
        key = len(store)
        store[key] = t.numpy().copy()
        return key

    x = oar.to_tensor([0.5, -1.0], stop_gradient=False)
    with oar.autograd.saved_tensors_hooks(pack, lambda k: oar.to_tensor(store.pop(k))):
        y = oar.tanh(x).sum() + (x * 3 * x).sum()
    y.backward()
    xv = np.array([0.5, -1.0])
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(xv) ** 2 + 6 * xv, rtol=1e-6)
    assert store == {}


def test_hooks_apply_only_inside_their_block_and_thread():
    calls = []
    x = oar.to_tensor([1.0], stop_gradient=False)
    hooks = oar.autograd.saved_tensors_hooks(lambda t: calls.append(1) or t, lambda t: t)
    with hooks:
        other = []
        th = threading.Thread(target=lambda: other.append((x * x).numpy()))
        th.start()
        th.join()
        assert calls == []  # the other thread's op is not packed
        with oar.autograd.saved_tensors_hooks(lambda t: calls.append(2) or t, lambda t: t):
            _ = x * x
        assert calls == [2, 2]
    _ = x * x
    assert calls == [2, 2]
    with pytest.raises(TypeError, match="callable"):
        oar.autograd.saved_tensors_hooks(1, lambda t: t)


def test_unpack_must_return_a_tensor():
    x = oar.to_tensor([1.0], stop_gradient=False)
    with oar.autograd.saved_tensors_hooks(lambda t: t, lambda t: t.numpy()):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook returned"):
        y.backward()
