"""Random creation ops. Each kernel (`oar/kernels/random.py`) draws from the generator the op passes it,
`oar.core.state.rng()`, so `oar.seed(n)` makes them reproducible (in eager mode and when a static program
runs)."""
import math

import numpy as np

from ..core import dtype as D
from ..core.state import rng
from ..kernels import random as kernels
from .common import infer_same, operand, to_int_list
from .registry import apply, bounds_output, defop


def _float(dtype):
    t = D.convert_dtype(dtype) if dtype is not None else D.default_float()
    if t.kind != "f":
        raise TypeError(f"expected a floating dtype, got {t.name}")
    return t.name


def _shape_infer(m, shape, dtype, **kw):
    return [(list(shape), D.convert_dtype(dtype))]


def _generator(seed):
    """The generator an op with a `seed` attr draws from: a fresh one seeded with it at every run (Paddle: a
    non-zero seed makes the op produce the same numbers every time), else the framework's."""
    return kernels.seeded(seed) if seed else rng()


def _uniform(shape, dtype, min, max, seed=0):
    return kernels.uniform(_generator(seed), shape, dtype, min, max)


def _gaussian(shape, dtype, mean, std, seed=0):
    return kernels.gaussian(_generator(seed), shape, dtype, mean, std)


def _seed_attr(seed, what):
    """{} for seed 0 (the framework generator: programs saved before the attr existed read the same), else
    {"seed": seed}."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{what}: seed must be a non-negative int (0: the global generator), got {seed!r}")
    return {"seed": int(seed)} if seed else {}


def _randint(shape, dtype, low, high):
    return kernels.randint(rng(), shape, dtype, low, high)


UNIFORM = defop("uniform_random", _uniform, inputs=(), infer=_shape_infer, random=True, differentiable=False)
GAUSSIAN = defop("gaussian_random", _gaussian, inputs=(), infer=_shape_infer, random=True, differentiable=False)
RANDINT = defop("randint", _randint, inputs=(), infer=_shape_infer, random=True, differentiable=False)
RANDPERM = defop("randperm", lambda n, dtype: kernels.randperm(rng(), n, dtype), inputs=(),
                 infer=lambda m, n, dtype: [([n], D.convert_dtype(dtype))], random=True, differentiable=False)


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """Uniform samples in ``[min, max)``; a non-zero `seed` gives the same samples at every call (or run of the
    program), 0 draws from the global generator (`oar.seed`).

    Example:
        >>> _ = oar.seed(1); oar.uniform([2, 3], min=0.0, max=1.0).shape
        [2, 3]
        >>> bool((oar.uniform([3], seed=7) == oar.uniform([3], seed=7)).all())
        True
    """
    return apply(UNIFORM, (), {"shape": to_int_list(shape), "dtype": _float(dtype), "min": float(min),
                               "max": float(max), **_seed_attr(seed, "uniform")})


def rand(shape, dtype=None, name=None):
    """Uniform samples in ``[0, 1)``.

    Example:
        >>> _ = oar.seed(0)
        >>> x = oar.rand([2, 3])
        >>> x.shape, bool(((x >= 0) & (x < 1)).all())
        ([2, 3], True)
    """
    return uniform(shape, dtype, 0.0, 1.0)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Gaussian samples; `mean` and `std` may be tensors (then the output has their broadcast shape).

    Example:
        >>> _ = oar.seed(0)
        >>> oar.normal(mean=0.0, std=1.0, shape=[2, 3]).shape
        [2, 3]
        >>> oar.normal(mean=oar.zeros([4]), std=oar.ones([4])).shape
        [4]
    """
    if isinstance(mean, complex) and not hasattr(std, "dtype"):  # Paddle: a complex normal of complex64
        return gaussian([] if shape is None else shape, mean, std, dtype="complex64")
    if hasattr(mean, "dtype") or hasattr(std, "dtype"):
        like = mean if hasattr(mean, "dtype") else std
        m, s = operand(mean, like), operand(std, like)
        z = randn_like(m + s * 0)
        return m + s * z
    return apply(GAUSSIAN, (), {"shape": to_int_list([] if shape is None else shape),
                                "dtype": _float(None), "mean": float(mean), "std": float(std)})


def gaussian(shape, mean=0.0, std=1.0, seed=0, dtype=None, name=None):
    """Gaussian samples of `shape`; a non-zero `seed` gives the same samples at every call (or run of the
    program), 0 draws from the global generator.

    Example:
        >>> _ = oar.seed(0)
        >>> x = oar.gaussian([1000], mean=5.0, std=0.1)
        >>> x.shape, round(float(x.mean()), 1)
        ([1000], 5.0)
        >>> oar.gaussian([2], dtype='complex64').dtype  # real and imaginary parts each N(mean, std**2 / 2)
        paddle.complex64
    """
    if dtype is not None and D.convert_dtype(dtype).kind == "c":
        return _complex_gaussian(shape, mean, std, seed, D.convert_dtype(dtype))
    if isinstance(mean, complex):
        raise TypeError(f"gaussian: a complex mean {mean} needs a complex dtype, got {dtype}")
    return apply(GAUSSIAN, (), {"shape": to_int_list(shape), "dtype": _float(dtype), "mean": float(mean),
                                "std": float(std), **_seed_attr(seed, "gaussian")})


def _complex_gaussian(shape, mean, std, seed, dtype):
    """Paddle's complex normal: real and imaginary parts independent, each N(m, std**2 / 2), where the mean is
    m + m*1j (Paddle requires equal parts)."""
    from .complex import complex as _complex
    mean = complex(mean)
    if mean.real != mean.imag:
        raise ValueError(f"gaussian: a complex mean needs equal real and imaginary parts (as Paddle), got {mean}")
    part = "float32" if dtype.name == "complex64" else "float64"
    std = float(std) / math.sqrt(2.0)
    return _complex(gaussian(shape, mean.real, std, seed, part), gaussian(shape, mean.real, std, seed and seed + 1,
                                                                         part))


def standard_normal(shape, dtype=None, name=None):
    """Samples from N(0, 1).

    Example:
        >>> oar.standard_normal([4]).shape
        [4]
    """
    return gaussian(shape, dtype=dtype)


def randn(shape, dtype=None, name=None):
    """Samples from N(0, 1).

    Example:
        >>> _ = oar.seed(0)
        >>> oar.randn([2, 3]).shape
        [2, 3]
    """
    return gaussian(shape, dtype=dtype)


def randn_like(x, dtype=None, name=None):
    """N(0, 1) samples with the shape of `x`.

    Example:
        >>> oar.randn_like(oar.zeros([2, 3])).shape
        [2, 3]
    """
    return gaussian(x.shape, dtype=dtype or (x.dtype if x.dtype.kind == "f" else None))


def rand_like(x, dtype=None, name=None):
    """Uniform samples in ``[0, 1)`` with the shape of `x`.

    Example:
        >>> oar.rand_like(oar.zeros([2, 3])).shape
        [2, 3]
    """
    return uniform(x.shape, dtype or (x.dtype if x.dtype.kind == "f" else None), 0.0, 1.0)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    """Integers in ``[low, high)`` (``[0, low)`` when `high` is None); int64 by default.

    Example:
        >>> _ = oar.seed(0)
        >>> x = oar.randint(0, 10, [3, 4])
        >>> x.shape, x.dtype == oar.int64, bool(((x >= 0) & (x < 10)).all())
        ([3, 4], True, True)
    """
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    return apply(RANDINT, (), {"shape": to_int_list(shape), "dtype": D.convert_dtype(dtype or "int64").name,
                               "low": int(low), "high": int(high)})


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Random integers in ``[low, high)`` with the shape of `x`.

    Example:
        >>> x = oar.randint_like(oar.zeros([4]), low=3, high=4)
        >>> x.numpy().tolist()
        [3.0, 3.0, 3.0, 3.0]
    """
    return randint(low, high, x.shape, dtype or x.dtype)


def randperm(n, dtype="int64", name=None):
    """A random permutation of ``0 .. n-1``.

    Example:
        >>> _ = oar.seed(0)
        >>> sorted(oar.randperm(5).numpy().tolist())
        [0, 1, 2, 3, 4]
    """
    return apply(RANDPERM, (), {"n": int(n), "dtype": D.convert_dtype(dtype).name})


# ---- ops with a tensor input -----------------------------------------------------------------------------------

def _bernoulli(x):
    return kernels.bernoulli(rng(), x)


BERNOULLI = defop("bernoulli", _bernoulli, random=True, infer=infer_same, differentiable=False)


def bernoulli(x, p=None, name=None):
    """0/1 samples, 1 with probability `x` (elementwise), or with probability `p` for every element of x's shape
    and dtype when `p` is given (Paddle 3).

    Example:
        >>> _ = oar.seed(0)
        >>> oar.bernoulli(oar.to_tensor([0.0, 1.0, 1.0])).numpy().tolist()
        [0.0, 1.0, 1.0]
        >>> oar.bernoulli(oar.zeros([3]), p=1.0).numpy().tolist()
        [1.0, 1.0, 1.0]
    """
    if p is not None:
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"bernoulli: p must lie in [0, 1], got {p}")
        from .creation import full_like
        x = full_like(x, float(p))
    return apply(BERNOULLI, (x,))


def _multinomial(x, num_samples, replacement):
    return kernels.multinomial(rng(), x, num_samples, replacement)


MULTINOMIAL = defop("multinomial", _multinomial,
                    infer=lambda m, num_samples, replacement: [(list(m[0][0][:-1]) + [num_samples], D.int64)],
                    random=True, differentiable=False)
bounds_output(UNIFORM, GAUSSIAN, RANDINT, RANDPERM, MULTINOMIAL)


def multinomial(x, num_samples=1, replacement=False, name=None):
    """Indices sampled from the (unnormalised) probabilities in the last dim of `x` (1-D or 2-D).

    Example:
        >>> _ = oar.seed(0)
        >>> oar.multinomial(oar.to_tensor([0.0, 1.0, 0.0]), num_samples=2, replacement=True).numpy().tolist()
        [1, 1]
    """
    if not replacement and -1 not in x.shape and num_samples > x.shape[-1]:
        raise ValueError(f"multinomial: cannot draw {num_samples} samples without replacement from "
                         f"{x.shape[-1]} categories")
    return apply(MULTINOMIAL, (x,), {"num_samples": int(num_samples), "replacement": bool(replacement)})


def _poisson(x):
    return kernels.poisson(rng(), x)


POISSON = defop("poisson", _poisson, random=True, infer=infer_same, differentiable=False)


def poisson(x, name=None):
    """Poisson samples with rate `x` (elementwise).

    Example:
        >>> _ = oar.seed(0)
        >>> oar.poisson(oar.full([2, 3], 4.0)).shape
        [2, 3]
        >>> oar.poisson(oar.zeros([3])).numpy().tolist()
        [0.0, 0.0, 0.0]
    """
    return apply(POISSON, (x,))


# ---- in-place fills (Tensor methods) ---------------------------------------------------------------------------

def uniform_(x, min=-1.0, max=1.0, seed=0, name=None):
    """Fills `x` in place with uniform samples in ``[min, max)`` (a non-zero `seed`: always the same ones)."""
    return x._inplace(uniform(x.shape, x.dtype, min, max, seed))


def normal_(x, mean=0.0, std=1.0, name=None):
    """Fills `x` in place with Gaussian samples."""
    return x._inplace(gaussian(x.shape, mean, std, dtype=x.dtype))


__all__ = ["uniform", "rand", "normal", "gaussian", "standard_normal", "randn", "randn_like", "rand_like", "randint",
           "randint_like", "randperm", "bernoulli", "multinomial", "poisson"]
