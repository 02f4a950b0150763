"""Initializer kernels whose values are computed, not drawn elementwise: (semi-)orthogonal matrices, Dirac
(identity-convolution) weights and bilinear upsampling kernels. Flat float64 lists for the `assign_value` op."""
import math

import numpy as np


def orthogonal(gen, shape, gain):
    """`gain` times a matrix [shape[0], prod(shape[1:])] with orthonormal rows or columns (whichever are fewer):
    Q of the QR of a standard normal draw from `gen`, signs fixed by R's diagonal."""
    rows, cols = shape[0], math.prod(shape[1:])
    q, r = np.linalg.qr(gen.normal(size=(max(rows, cols), min(rows, cols))))
    q = q * np.sign(np.diag(r))
    q = q.T if rows < cols else q
    return (gain * q).reshape(-1).tolist()


def dirac(shape, groups):
    """1 at the kernel centre for channel i -> i within each group of output channels, else 0."""
    w = np.zeros(shape)
    per = shape[0] // groups
    centre = tuple(k // 2 for k in shape[2:])
    for g in range(groups):
        for i in range(min(per, shape[1])):
            w[(g * per + i, i) + centre] = 1.0
    return w.reshape(-1).tolist()


def bilinear(shape):
    """``(1 - |x/f - c|) (1 - |y/f - c|)``, f = ceil(K/2), c = (2f - 1 - f % 2) / (2f), for every channel pair."""
    k = shape[3]
    f = math.ceil(k / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    line = 1 - np.abs(np.arange(k) / f - c)
    return np.broadcast_to(np.outer(line, line), shape).reshape(-1).tolist()
