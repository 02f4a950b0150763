"""The convolution kernels' per-thread scratch cache is bounded in bytes: a buffer larger than the bound is not kept
after the call, the kept ones never add up to more than the bound, and results do not depend on what was reused.
Its buffers are kept only while a user (a conv layer, a compiled plan with a convolution) lives: the last one
dropped releases them, without a gc pass."""
import os
import subprocess
import sys
import threading

import numpy as np

from oar.kernels import conv as K

ARGS = ([1, 1], [(1, 1), (1, 1)], [1, 1], 1)


def _held():
    return sum(b.nbytes for b in K.SCRATCH.bufs.values())


def _naive(x, w):
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    n, _, h, wd = x.shape
    out = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return out


def test_scratch_is_bounded_in_bytes(monkeypatch):
    monkeypatch.setattr(K, "SCRATCH_BYTES", 1 << 20)
    rng = np.random.default_rng(0)
    small = rng.random((2, 3, 8, 8), dtype=np.float32)       # columns 27 x 128 floats: kept
    big = rng.random((16, 8, 32, 32), dtype=np.float32)      # columns 72 x 16384 floats = 4.5 MiB: not kept
    w_small, w_big = rng.random((4, 3, 3, 3), dtype=np.float32), rng.random((4, 8, 3, 3), dtype=np.float32)
    done = []

    lease = K.SCRATCH.lease()  # a user of the cache: buffers are kept

    def run():  # a fresh thread: an empty cache of its own
        y = K.conv_forward(small, w_small, *ARGS)
        kept = _held()
        yb = K.conv_forward(big, w_big, *ARGS)
        K.conv_grad_filter(big, yb, w_big.shape, *ARGS)
        K.conv_grad_input(w_big, yb, big.shape, *ARGS)
        np.testing.assert_allclose(K.conv_forward(small, w_small, *ARGS), y)
        np.testing.assert_allclose(yb, _naive(big, w_big), rtol=1e-4)
        done.append((kept, _held(), max((b.nbytes for b in K.SCRATCH.bufs.values()), default=0)))

    t = threading.Thread(target=run)
    t.start()
    t.join()
    kept, held, largest = done[0]
    assert 0 < kept <= 1 << 20
    assert held <= 1 << 20 and largest <= 1 << 20
    del lease


def test_results_never_alias_scratch():
    """With one sample the batch-to-front move is already contiguous: the result must still be a fresh array, not
    a view of a scratch buffer that the next call overwrites."""
    rng = np.random.default_rng(1)
    x, w = rng.random((1, 2, 5, 5)), rng.random((3, 2, 3, 3))
    y = K.conv_forward(x, w, *ARGS)
    dx = K.conv_grad_input(w, y, x.shape, *ARGS)
    y0, dx0 = y.copy(), dx.copy()
    K.conv_forward(2 * x, w, *ARGS)
    K.conv_grad_input(w, 2 * y, x.shape, *ARGS)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(dx, dx0)


def test_buffers_kept_only_while_a_lease_lives():
    cache = K._Scratch()
    a = cache.get("cols", (4, 4), np.float32)
    assert cache.get("cols", (4, 4), np.float32) is not a and not cache.bufs  # no user: nothing kept
    lease = cache.lease()
    a = cache.get("cols", (4, 4), np.float32)
    assert cache.get("cols", (4, 4), np.float32) is a
    import copy
    twin = copy.deepcopy(lease)  # a copied layer is a user of its own
    del lease
    assert cache.get("cols", (4, 4), np.float32) is a
    other = []
    t = threading.Thread(target=lambda: other.append(cache.get("cols", (8,), np.float64)))
    t.start()
    t.join()
    del twin  # the last user: every thread's buffers go
    assert not cache.bufs and cache.leases == 0
    assert cache.get("cols", (4, 4), np.float32) is not a


_RELEASE = """
import gc, os, sys
gc.disable()
import numpy as np
import oar
from oar.kernels import conv as K
def held():
    return sum(b.nbytes for b in K.SCRATCH.bufs.values())
def model():
    return oar.nn.Sequential(oar.nn.Conv2D(3, 8, 3), oar.nn.ReLU(), oar.nn.Conv2D(8, 4, 3))
x = oar.to_tensor(np.random.default_rng(0).random((4, 3, 16, 16), dtype=np.float32))
net = model()
net(x).sum().backward()
eager = held()
del net
after_layers = held()
path = os.path.join(sys.argv[1], 'm')
oar.jit.save(oar.jit.to_static(model(), input_spec=[oar.static.InputSpec([None, 3, 16, 16], 'float32')]), path)
gc.collect()  # a layer converted by to_static and its converted forward refer to each other
loaded = oar.jit.load(path)
loaded(x)
program = held()
del loaded
print(eager, after_layers, program, held(), K.SCRATCH.leases)
"""


def test_released_with_the_last_layer_and_plan(tmp_path):
    """Conv layers keep the buffers, a loaded program's plan keeps them; the last dropped frees them (gc off)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, "-c", _RELEASE, str(tmp_path)], capture_output=True, text=True, cwd=root,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    eager, after_layers, program, end, leases = map(int, r.stdout.split()[-5:])
    assert eager > 0 and after_layers == 0 and program > 0
    assert end == 0 and leases == 0
