"""Random kernels. Each takes the generator (`numpy.random.Generator`) it draws from as its first argument: the
ops pass the framework's seeded generator, so kernels read no global state."""
import math

import numpy as np

from ..core import dtype as D


def seeded(seed):
    """A fresh generator seeded with `seed` (an op's own `seed` attr: the same draws at every run)."""
    return np.random.default_rng(seed)


def uniform(gen, shape, dtype, min, max):
    return gen.uniform(min, max, shape).astype(D.np_dtype(dtype))


def gaussian(gen, shape, dtype, mean, std):
    return gen.normal(mean, std, shape).astype(D.np_dtype(dtype))


def truncated_gaussian(gen, shape, dtype, mean, std, a, b):
    """Normal(mean, std) draws whose standard score lies in [a, b] (rejection sampling)."""
    n = math.prod(shape)
    out = np.empty(0)
    while out.size < n:  # the window holds most of the mass, so this loops rarely
        draw = gen.normal(0.0, 1.0, size=max(2 * (n - out.size), 16))
        out = np.concatenate([out, draw[(draw >= a) & (draw <= b)]])
    return (out[:n].reshape(shape) * std + mean).astype(D.np_dtype(dtype))


def randint(gen, shape, dtype, low, high):
    return gen.integers(low, high, shape).astype(D.np_dtype(dtype))


def randperm(gen, n, dtype):
    return gen.permutation(n).astype(D.np_dtype(dtype))


def bernoulli(gen, x):
    return (gen.random(x.shape) < x).astype(x.dtype)


def multinomial(gen, x, num_samples, replacement):
    p = x.reshape(-1, x.shape[-1]).astype(np.float64)
    if (p < 0).any() or not np.isfinite(p).all():
        raise ValueError("multinomial: probabilities must be finite and non-negative")
    p = p / p.sum(axis=1, keepdims=True)
    rows = [gen.choice(p.shape[1], num_samples, replace=replacement, p=row) for row in p]
    return np.asarray(rows, np.int64).reshape(x.shape[:-1] + (num_samples,))


def poisson(gen, x):
    return gen.poisson(x).astype(x.dtype)
