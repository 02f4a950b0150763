"""Special-function kernels: the gamma family, erfinv, Bessel functions, inverse hyperbolics, logit, frexp.

`scipy.special` is used when installed (imported inside the kernels, so importing oar stays light); NumPy series
otherwise."""
import math

import numpy as np
from .backend import array_module, errstate, ufunc_kernel

asinh = ufunc_kernel("arcsinh")
acosh = ufunc_kernel("arccosh")
atanh = ufunc_kernel("arctanh")
heaviside = ufunc_kernel("heaviside")
nextafter = ufunc_kernel("nextafter")
gcd = ufunc_kernel("gcd")
lcm = ufunc_kernel("lcm")
hypot = ufunc_kernel("hypot")

# Bernoulli numbers B2, B4, ..., B14
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def i0(x):
    xp = array_module(x)
    return xp.i0(x).astype(x.dtype)


def frexp(x):
    xp = array_module(x)
    return tuple(a.astype(x.dtype) for a in xp.frexp(x))


def scipy_special():
    try:
        import scipy.special
    except ImportError:
        raise ImportError("this function needs SciPy: pip install 'oar-dl[special]' (or pip install scipy)") from None
    return scipy.special


def vectorized(f):
    def kernel(x):
        return np.vectorize(f, otypes=[x.dtype])(x) if x.size else x.copy()
    return kernel


def digamma(x):
    try:
        from scipy.special import digamma as psi
    except ImportError:
        return digamma_series(x)
    return psi(x).astype(x.dtype)


def digamma_series(x):
    """psi(x) without SciPy: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 12, then the asymptotic series
    (abs. error < 1e-15); the reflection formula for x < 0.5."""
    xp = array_module(x)
    x64 = xp.asarray(x, xp.float64)
    neg = x64 < 0.5
    z = xp.where(neg, 1.0 - x64, x64)
    acc = xp.zeros_like(z)
    for _ in range(12):
        small = z < 12
        acc = acc - xp.where(small, 1.0 / xp.where(small, z, 1.0), 0.0)
        z = xp.where(small, z + 1, z)
    r = 1.0 / (z * z)
    series = xp.log(z) - 0.5 / z - r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r / 132))))
    out = acc + series
    with errstate(xp, divide="ignore", invalid="ignore"):
        out = xp.where(neg, out - xp.pi / xp.tan(xp.pi * x64), out)
        out = xp.where((x64 <= 0) & (x64 == xp.floor(x64)), xp.nan, out)
    return out.astype(x.dtype)


def polygamma(x, n):
    if n == 0:
        return digamma(x)
    try:
        from scipy.special import polygamma as pg
    except ImportError:
        return polygamma_series(x, n)
    return pg(n, x).astype(x.dtype)


def polygamma_series(x, n):
    """psi^(n)(x) for n >= 1 and x > 0 without SciPy: recurrence up to x >= 20, then the asymptotic series
    (NaN for x <= 0)."""
    xp = array_module(x, n)
    x64 = xp.asarray(x, xp.float64)
    z = xp.where(x64 > 0, x64, xp.nan)
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1) ** (n + 1)
    fact = math.factorial
    acc = xp.zeros_like(z)
    for _ in range(20):
        small = z < 20
        acc = acc + xp.where(small, fact(n) / xp.where(small, z, 1.0) ** (n + 1), 0.0)
        z = xp.where(small, z + 1, z)
    tail = fact(n - 1) / z ** n + fact(n) / (2 * z ** (n + 1))
    for k, b in enumerate(_B2K, start=1):
        tail = tail + b * fact(2 * k + n - 1) / (fact(2 * k) * z ** (2 * k + n))
    return (sign * (acc + tail)).astype(x.dtype)


def lgamma1(v):
    try:
        return math.lgamma(v)
    except ValueError:  # the poles at 0, -1, -2, ...
        return math.inf


def lgamma(x):
    try:
        from scipy.special import gammaln
    except ImportError:
        return vectorized(lgamma1)(x)
    return gammaln(x).astype(x.dtype)


def erfinv(x):
    try:
        from scipy.special import erfinv as f
    except ImportError:
        return erfinv_newton(x)
    return f(x).astype(x.dtype)


def erfinv_newton(x):
    """erfinv without SciPy: Giles' single-precision approximation, then Newton steps on math.erf."""
    xp = array_module(x)
    y = xp.asarray(x, xp.float64)
    with errstate(xp, divide="ignore", invalid="ignore"):
        return erfinv_steps(y).astype(x.dtype)


def erfinv_steps(y):
    w = -np.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws = np.where(small, w - 2.5, np.sqrt(np.abs(w)) - 3.0)
    p_small = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
               -0.00417768164, 0.246640727, 1.50140941]
    p_large = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
               0.00943887047, 1.00167406, 2.83297682]
    ps, pl = p_small[0], p_large[0]
    for a, b in zip(p_small[1:], p_large[1:]):
        ps, pl = a + ps * ws, b + pl * ws
    r = np.where(small, ps, pl) * y
    erf = np.vectorize(math.erf, otypes=[np.float64])
    for _ in range(3):
        inside = np.abs(y) < 1
        step = (erf(np.where(inside, r, 0.0)) - y) / (2 / math.sqrt(math.pi) * np.exp(-r * r))
        r = np.where(inside, r - step, r)
    return np.where(y == 1, np.inf, np.where(y == -1, -np.inf, r))


def bessel(name):
    return lambda x: getattr(scipy_special(), name)(x).astype(x.dtype)


def logit(x, eps):
    xp = array_module(x, eps)
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    with errstate(xp, divide="ignore"):
        return xp.log(x / (1 - x))
