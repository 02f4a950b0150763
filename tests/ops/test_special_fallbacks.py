"""The NumPy fallbacks of the special functions (used when SciPy is not installed) against SciPy."""
import numpy as np
import scipy.special as sp

from oar.kernels import special


def test_digamma_series():
    x = np.array([-2.5, -0.5, 0.1, 1.0, 2.9999, 3.0, 5.5, 11.9, 12.0, 100.0])
    np.testing.assert_allclose(special.digamma_series(x), sp.digamma(x), rtol=1e-13, atol=1e-14)


def test_polygamma_series():
    x = np.array([0.1, 0.5, 1.0, 2.5, 7.0, 19.9, 25.0, 300.0])
    for n in (1, 2, 3, 5):
        np.testing.assert_allclose(special.polygamma_series(x, n), sp.polygamma(n, x), rtol=1e-13)
    assert np.isnan(special.polygamma_series(np.array([-1.5]), 1)).all()


def test_erfinv_newton():
    y = np.array([-0.999999, -0.9, -0.3, 0.0, 0.2, 0.7, 0.99, 0.9999999])
    np.testing.assert_allclose(special.erfinv_newton(y), sp.erfinv(y), rtol=1e-9, atol=1e-12)
    assert special.erfinv_newton(np.array([1.0, -1.0])).tolist() == [np.inf, -np.inf]


def test_lgamma_without_scipy_handles_poles():
    assert special.vectorized(special.lgamma1)(np.array([0.0, -2.0, 0.5])).tolist()[:2] == [np.inf, np.inf]
