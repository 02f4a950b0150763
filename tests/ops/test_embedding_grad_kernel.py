"""`embedding_grad` (sort + reduceat) against a row-by-row loop: repeated ids, padding_idx, empty and 3-D ids."""
import numpy as np
import pytest

from oar.kernels.nn import embedding_grad


def _loop(ids, g, rows, padding_idx):
    dw = np.zeros((rows, g.shape[-1]), np.float64)
    for i, r in zip(ids.reshape(-1), g.reshape(-1, g.shape[-1])):
        dw[i] += r
    if padding_idx is not None and padding_idx >= 0:
        dw[padding_idx] = 0
    return dw


@pytest.mark.parametrize("shape,rows,padding_idx", [((40,), 5, None), ((4, 6, 3), 7, 2), ((0, 3), 4, None),
                                                     ((8, 5), 1000, -1)])
def test_matches_a_row_loop(shape, rows, padding_idx):
    rng = np.random.default_rng(0)
    ids = rng.integers(0, rows, shape)
    g = rng.standard_normal(shape + (6,)).astype(np.float32)
    got = embedding_grad(ids, g, np.zeros((rows, 6), np.float32), padding_idx)
    assert got.dtype == np.float32 and got.shape == (rows, 6)
    np.testing.assert_allclose(got, _loop(ids, g, rows, padding_idx), rtol=1e-5, atol=1e-5)
