"""The small-window max-pool kernel (running maximum over strided slices) equals the argmax kernel, ties and
padding included; the non-overlapping backward routes each gradient to its window's first maximum."""
import numpy as np
import pytest

from oar.kernels import pool as P


def _argmax_reference(x, ksize, strides, paddings, ceil_mode):
    nd = len(ksize)
    pads, osz = P._full_pads(x.shape[2:], ksize, strides, paddings, ceil_mode)
    v = P.windows(P.pad(x, pads, -np.inf), ksize, strides, [1] * nd)[(slice(None),) * 2 +
                                                                     tuple(slice(0, o) for o in osz)]
    flat = v.reshape(v.shape[:2 + nd] + (-1,))
    idx = flat.argmax(axis=-1)
    return np.take_along_axis(flat, idx[..., None], axis=-1)[..., 0], idx


@pytest.mark.parametrize("ksize,strides,paddings,ceil_mode", [
    ([2, 2], [2, 2], [(0, 0), (0, 0)], False), ([3, 3], [1, 1], [(1, 1), (1, 1)], False),
    ([3, 2], [2, 1], [(0, 1), (1, 0)], True)])
def test_offsets_kernel_equals_argmax_with_ties(ksize, strides, paddings, ceil_mode):
    rng = np.random.default_rng(0)
    x = np.maximum(rng.standard_normal((2, 3, 7, 8)).astype("float32"), 0)   # many tied zeros
    x[0, 0, :2, :2] = 1.0
    out, idx = P.max_pool(x, ksize, strides, paddings, ceil_mode)
    ref_out, ref_idx = _argmax_reference(x, ksize, strides, paddings, ceil_mode)
    np.testing.assert_array_equal(out, ref_out)
    np.testing.assert_array_equal(idx, ref_idx)


def test_nan_inputs_keep_argmax_semantics():
    x = np.zeros((1, 1, 4, 4), "float32")
    x[0, 0, 1, 1] = np.nan
    out, idx = P.max_pool(x, [2, 2], [2, 2], [(0, 0), (0, 0)], False)
    assert np.isnan(out[0, 0, 0, 0]) and idx[0, 0, 0, 0] == 3


def test_non_overlapping_backward_routes_to_the_first_maximum():
    x = np.array([[[[1, 1], [0, 2]]]], "float32")
    x = np.tile(x, (1, 1, 2, 2))
    out, idx = P.max_pool(x, [2, 2], [2, 2], [(0, 0), (0, 0)], False)
    g = np.arange(1, 5, dtype="float32").reshape(1, 1, 2, 2)
    dx = P.max_pool_grad(x.shape, idx, g, [2, 2], [2, 2], [(0, 0), (0, 0)], False)
    expect = np.zeros_like(x)
    expect[0, 0, 1::2, 1::2] = g[0, 0]
    np.testing.assert_array_equal(dx, expect)
