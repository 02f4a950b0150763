"""Norms and statistics of matrices (paddle.linalg): norm, vector_norm, matrix_norm, cond, cov, corrcoef, cross,
householder_product, ormqr, svd_lowrank, pca_lowrank.

All are built from other ops (reductions, svd, inverse, matmul), so their gradients, static programs and exports
come from those ops; `cross` is one op with its own rule.
"""
import builtins

from .common import public_api, operand, norm_axis, infer_broadcast
from .linalg import matmul, inverse
from .linalg_decomp import svd, qr
from .linalg_util import mT, eye_like, matrix_check, square_check
from .manipulation import transpose, unsqueeze, reshape
from .math import abs, cast, pow, sqrt, unbroadcast
from .reduction import sum, max, min, mean
from ..kernels.linalg import cross as _cross, ones_column as _ones_column
from .registry import apply, defop

_INF = float("inf")


def _p_value(p):
    if isinstance(p, str):
        if p in ("inf", "-inf"):
            return float(p)
        return p
    return float(p)


# ---- norms -----------------------------------------------------------------------------------------------------------
def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None):
    """Vector p-norm over `axis` (all elements when None): p may be a number, inf or -inf (0 counts non-zeros).

    Example:
        >>> x = oar.to_tensor([[3.0, -4.0], [0.0, 1.0]])
        >>> oar.linalg.vector_norm(x).item(), oar.linalg.vector_norm(x, p=1, axis=1).numpy().tolist()
        (5.0990195..., [7.0, 1.0])
    """
    x = operand(x)
    p = _p_value(p)
    if isinstance(p, str):
        raise ValueError(f"vector_norm: p must be a number, inf or -inf, got {p!r}")
    ax = list(norm_axis(axis, x.ndim)) if axis is not None else None
    if p == 2.0:
        return sqrt(sum(x * x, axis=ax, keepdim=keepdim))
    if p == _INF:
        return max(abs(x), axis=ax, keepdim=keepdim)
    if p == -_INF:
        return min(abs(x), axis=ax, keepdim=keepdim)
    if p == 0:
        return sum(cast(x != 0, x.dtype), axis=ax, keepdim=keepdim)
    if p == 1.0:
        return sum(abs(x), axis=ax, keepdim=keepdim)
    return pow(sum(pow(abs(x), p), axis=ax, keepdim=keepdim), 1.0 / p)


def _to_back(x, axis):
    """Moves the two matrix axes to the end (row axis, then column axis)."""
    a0, a1 = (int(a) % x.ndim for a in axis)
    if a0 == a1:
        raise ValueError(f"matrix_norm needs two different axes, got {list(axis)}")
    perm = [i for i in range(x.ndim) if i not in (a0, a1)] + [a0, a1]
    return (transpose(x, perm) if perm != list(range(x.ndim)) else x), (a0, a1)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """Matrix norm over the two axes `axis`: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf (NumPy's definitions).

    Example:
        >>> x = oar.to_tensor([[1.0, -2.0], [3.0, 4.0]])
        >>> round(oar.linalg.matrix_norm(x).item(), 4), oar.linalg.matrix_norm(x, p=1).item()
        (5.4772, 6.0)
    """
    x = matrix_check(x, "matrix_norm")
    if len(axis) != 2:
        raise ValueError(f"matrix_norm needs exactly two axes, got {list(axis)}")
    p = _p_value(p)
    if p == "fro":
        out = sqrt(sum(x * x, axis=list(axis), keepdim=keepdim))
        return out
    y, (a0, a1) = _to_back(x, axis)
    if p in ("nuc", 2.0, -2.0):
        s = svd(y)[1]
        out = sum(s, axis=-1) if p == "nuc" else (max(s, axis=-1) if p == 2.0 else min(s, axis=-1))
    elif p in (1.0, -1.0):
        col = sum(abs(y), axis=-2)
        out = max(col, axis=-1) if p == 1.0 else min(col, axis=-1)
    elif p in (_INF, -_INF):
        row = sum(abs(y), axis=-1)
        out = max(row, axis=-1) if p == _INF else min(row, axis=-1)
    else:
        raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {p!r}")
    if keepdim:
        out = unsqueeze(out, sorted((a0, a1)))
    return out


def norm(x, p=None, axis=None, keepdim=False, name=None):
    """Paddle 3's norm: with `axis` None the vector norm of all elements ('fro' and None mean 2), an int axis a
    vector norm; over two axes a matrix norm as NumPy defines it ('fro', 'nuc', 1, -1, 2, -2, inf, -inf: p=2 is the
    spectral norm; Paddle 2.6 took a number p as the entrywise p-norm of the two axes).

    Example:
        >>> x = oar.to_tensor([[3.0, 4.0], [0.0, 0.0]])
        >>> oar.norm(x).item(), oar.norm(x, p=1, axis=1).numpy().tolist()
        (5.0, [7.0, 0.0])
        >>> oar.linalg.norm(x, p='nuc', axis=[0, 1]).item(), oar.linalg.norm(x, p=1, axis=[0, 1]).item()
        (5.0, 4.0)
    """
    x = operand(x)
    p = "fro" if p is None else _p_value(p)
    if axis is None:
        if p == "nuc":
            return matrix_norm(x, p, [-2, -1], keepdim)
        return vector_norm(x, 2.0 if p == "fro" else p, None, keepdim)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if len(axes) == 1:
        if p == "nuc":
            raise ValueError("norm: p='nuc' needs two axes")
        return vector_norm(x, 2.0 if p == "fro" else p, axes[0], keepdim)
    if len(axes) == 2:
        return matrix_norm(x, p, axes, keepdim)
    raise ValueError(f"norm: axis must be None, an int or two ints, got {axis}")


def cond(x, p=None, name=None):
    """Condition number of square (or, for p None/2/-2, any) matrices in the norm `p`.

    Example:
        >>> round(oar.linalg.cond(oar.to_tensor([[1.0, 0.0], [0.0, 4.0]])).item(), 4)
        4.0
    """
    x = matrix_check(x, "cond")
    if p is None or p in (2, -2):
        s = svd(x)[1]
        big, small = max(s, axis=-1), min(s, axis=-1)
        return small / big if p == -2 else big / small
    x = square_check(x, "cond")
    return matrix_norm(x, p) * matrix_norm(inverse(x), p)


# ---- statistics ------------------------------------------------------------------------------------------------------
def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """Covariance matrix of the variables in `x` (rows are variables with `rowvar`, else columns); `ddof`
    True divides by N - 1; integer `fweights` and float `aweights` weight the observations as in NumPy.

    Example:
        >>> x = oar.to_tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
        >>> oar.linalg.cov(x).numpy().tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    x = operand(x)
    if x.ndim > 2:
        raise ValueError(f"cov expects a 1-D or 2-D tensor, got shape {x.shape}")
    if x.ndim == 1:
        x = reshape(x, [1, -1])
    if not rowvar and x.shape[0] != 1:
        x = mT(x)
    w = None
    if fweights is not None:
        w = cast(operand(fweights), x.dtype)
    if aweights is not None:
        a = cast(operand(aweights), x.dtype)
        w = a if w is None else w * a
    if w is None:
        n = x.shape[-1]
        avg = mean(x, axis=-1, keepdim=True)
        xc = x - avg
        fact = n - 1 if ddof else n
        return _squeeze2(matmul(xc, xc, transpose_y=True) / float(fact))
    wsum = sum(w)
    avg = sum(x * w, axis=-1, keepdim=True) / wsum
    if not ddof:
        fact = wsum
    elif aweights is None:
        fact = wsum - 1.0
    else:
        fact = wsum - sum(w * cast(operand(aweights), x.dtype)) / wsum
    xc = x - avg
    return _squeeze2(matmul(xc * w, xc, transpose_y=True) / fact)


def _squeeze2(c):
    return reshape(c, []) if c.shape == [1, 1] else c


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of the variables in `x` (clipped to [-1, 1]).

    Example:
        >>> oar.linalg.corrcoef(oar.to_tensor([[0.0, 1.0, 2.0], [4.0, 2.0, 0.0]])).numpy().round(6).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(x, rowvar)
    if c.ndim == 0:
        return c / c
    from .math import clip
    from .linalg_util import diagonal
    d = sqrt(diagonal(c))
    return clip(c / unsqueeze(d, -1) / unsqueeze(d, 0), -1.0, 1.0)


# ---- cross product ---------------------------------------------------------------------------------------------------
def _cross_grad(g, out, x, y, axis):
    from .math import _conj_operand as cj  # complex operands enter conjugated
    return (unbroadcast(apply(CROSS, (cj(y), g), {"axis": axis}), x),
            unbroadcast(apply(CROSS, (g, cj(x)), {"axis": axis}), y))


CROSS = defop("cross", _cross, inputs=("x", "y"), infer=infer_broadcast,
              grad=_cross_grad, onnx_reason="not lowered yet")


def cross(x, y, axis=9, name=None):
    """Cross product of 3-vectors along `axis` (Paddle's default 9 means the first axis of size 3).

    Example:
        >>> oar.cross(oar.to_tensor([1.0, 0.0, 0.0]), oar.to_tensor([0.0, 1.0, 0.0])).numpy().tolist()
        [0.0, 0.0, 1.0]
    """
    x, y = operand(x), operand(y)
    if axis == 9:
        sizes = [i for i, d in enumerate(x.shape) if d == 3]
        if not sizes:
            raise ValueError(f"cross: no axis of size 3 in shape {x.shape}")
        axis = sizes[0]
    axis = int(axis) % x.ndim
    if x.shape[axis] != 3 or y.shape[axis] != 3:
        raise ValueError(f"cross: axis {axis} must have size 3 in both inputs, got {x.shape} and {y.shape}")
    return apply(CROSS, (x, y), {"axis": axis})


# ---- Householder products --------------------------------------------------------------------------------------------
def householder_product(x, tau, name=None):
    """The first N columns of ``H_1 H_2 ... H_k`` with ``H_i = I - tau_i v_i v_i^T`` and v_i the i-th column of
    `x` below the diagonal (with a 1 on it), as LAPACK's orgqr.

    Example:
        >>> x = oar.to_tensor([[1.0, 0.0], [0.5, 1.0], [0.0, 0.5]])
        >>> q = oar.linalg.householder_product(x, oar.to_tensor([1.6, 1.6]))
        >>> q.shape
        [3, 2]
    """
    x, tau = matrix_check(x, "householder_product"), operand(tau)
    m, n = x.shape[-2], x.shape[-1]
    if tau.shape[-1] > n or n > m:
        raise ValueError(f"householder_product needs M >= N >= K (x {x.shape}, tau {tau.shape})")
    q = _householder_q(x, tau, m)
    from .indexing import slice as _slice
    return _slice(q, [q.ndim - 1], [0], [n])


def _householder_q(x, tau, m):
    """The full [M, M] product H_1 ... H_k."""
    from .indexing import slice as _slice
    from .common import const
    q = None
    for i in range(tau.shape[-1]):
        col = _slice(x, [x.ndim - 1], [i], [i + 1])  # [..., M, 1]
        v = col * const(_ones_column(m, i + 1, m), x.dtype) + const(_ones_column(m, i, i + 1), x.dtype)
        t = unsqueeze(_slice(tau, [tau.ndim - 1], [i], [i + 1]), -1)  # [..., 1, 1]
        h = eye_like(m, x.dtype) - t * matmul(v, v, transpose_y=True)
        q = h if q is None else matmul(q, h)
    return q if q is not None else eye_like(m, x.dtype)


def ormqr(x, tau, other, left=True, transpose=False, name=None):
    """Multiplies `other` by the Q of a Householder QR (`x`, `tau` as from LAPACK's geqrf): ``Q @ other``
    (``Q^T`` with `transpose`; on the right with ``left=False``).

    Example:
        >>> x = oar.to_tensor([[1.0, 0.0], [0.5, 1.0], [0.0, 0.5]])
        >>> oar.linalg.ormqr(x, oar.to_tensor([1.6, 1.6]), oar.eye(3)).shape
        [3, 3]
    """
    x, tau, other = matrix_check(x, "ormqr"), operand(tau), operand(other)
    q = _householder_q(x, tau, x.shape[-2])
    q = mT(q) if transpose else q
    return matmul(q, other) if left else matmul(other, q)


# ---- randomized low-rank SVD -----------------------------------------------------------------------------------------
def svd_lowrank(x, q=6, niter=2, M=None, name=None):
    """Approximate rank-`q` SVD by randomized subspace iteration (Halko et al.): returns ``(U, S, V)``
    with ``x - M ~= U diag(S) V^T``.

    Example:
        >>> _ = oar.seed(0)
        >>> a = oar.to_tensor(np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0)))
        >>> u, s, v = oar.linalg.svd_lowrank(a, q=2)
        >>> np.allclose(((u * s) @ v.T).numpy(), a.numpy(), atol=1e-4)
        True
    """
    x = matrix_check(x, "svd_lowrank")
    a = x - operand(M) if M is not None else x
    m, n = a.shape[-2], a.shape[-1]
    q = int(builtins.min(q, m, n))
    from .random import randn
    omega = cast(randn(list(a.shape[:-2]) + [n, q]), a.dtype)
    y = matmul(a, omega)
    basis = qr(y)[0]
    for _ in range(int(niter)):
        basis = qr(matmul(a, qr(matmul(a, basis, transpose_x=True))[0]))[0]
    b = matmul(basis, a, transpose_x=True)  # [q, n]
    ub, s, vh = svd(b)
    return matmul(basis, ub), s, mT(vh)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Principal components by `svd_lowrank` of `x` (centered over rows with `center`): ``(U, S, V)``.

    Example:
        >>> _ = oar.seed(0)
        >>> u, s, v = oar.linalg.pca_lowrank(oar.randn([10, 4]), q=3)
        >>> u.shape, s.shape, v.shape
        ([10, 3], [3], [4, 3])
    """
    x = matrix_check(x, "pca_lowrank")
    m, n = x.shape[-2], x.shape[-1]
    q = builtins.min(6, m, n) if q is None else q
    if center:
        x = x - mean(x, axis=-2, keepdim=True)
    return svd_lowrank(x, q, niter)


__all__ = public_api(globals())
