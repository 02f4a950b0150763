"""The convolution kernels' per-thread scratch cache is bounded in bytes: a buffer larger than the bound is not kept
after the call, the kept ones never add up to more than the bound, and results do not depend on what was reused."""
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
