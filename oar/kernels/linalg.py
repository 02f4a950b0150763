"""Linear-algebra kernels: matmul, einsum, inverse, solvers, decompositions (LAPACK through numpy.linalg; LU and
the matrix exponential through scipy.linalg, imported inside the kernel), cross products, triangle masks."""
import math
import warnings

import numpy as np

from ..core import dtype as D
from ..core.devices import RUNTIME
from .backend import array_module


def matmul_check(xs, ys, transpose_x, transpose_y):
    """A clear ValueError when the inner dims of shapes `xs` and `ys` cannot meet (-1: unknown)."""
    if not xs or not ys:
        raise ValueError(f"matmul needs inputs with at least 1 dim, got shapes {xs} and {ys}")
    k1 = xs[-2] if transpose_x and len(xs) >= 2 else xs[-1]
    k2 = ys[-1] if transpose_y and len(ys) >= 2 else (ys[-2] if len(ys) >= 2 else ys[0])
    if k1 != k2 and k1 != -1 and k2 != -1:
        raise ValueError(f"matmul: the inner dimensions of x (shape {xs}{', transposed' if transpose_x else ''}) "
                         f"and y (shape {ys}{', transposed' if transpose_y else ''}) differ: {k1} vs {k2}")


def matmul(x, y, transpose_x, transpose_y):
    if RUNTIME.types:  # a device backend is loaded: the arrays' module
        xp = array_module(x, y)
        a = xp.swapaxes(x, -1, -2) if transpose_x and x.ndim >= 2 else x
        b = xp.swapaxes(y, -1, -2) if transpose_y and y.ndim >= 2 else y
    else:  # host arrays: the methods (`np.swapaxes` is a Python wrapper around them, ~0.5 us a call)
        xp = np
        a = x.swapaxes(-1, -2) if transpose_x and x.ndim >= 2 else x
        b = y.swapaxes(-1, -2) if transpose_y and y.ndim >= 2 else y
    try:
        return xp.matmul(a, b)
    except ValueError:  # explain in the user's terms; checking only on failure keeps the hot path lean
        matmul_check(list(x.shape), list(y.shape), transpose_x, transpose_y)
        raise


def einsum(*xs, equation):
    xp = array_module(*xs)
    return xp.asarray(xp.einsum(equation, *xs, optimize=len(xs) > 2))


def cross(x, y, axis):
    xp = array_module(x, y, axis)
    return xp.cross(x, y, axis=axis)


def lapack(name, fn):
    """Runs a LAPACK call, turning its errors into ValueErrors that say which decomposition failed."""
    xp = array_module(name, fn)
    try:
        return fn()
    except xp.linalg.LinAlgError as e:
        raise ValueError(f"{name}: {e}") from None


def scipy_linalg(what):
    """scipy.linalg, or an error that says which extra to install."""
    try:
        import scipy.linalg
    except ImportError:
        raise RuntimeError(f"{what} needs SciPy for its kernel: pip install 'oar-dl[scipy]' (or scipy)") from None
    return scipy.linalg


def inverse(x):
    xp = array_module(x)
    try:
        return xp.linalg.inv(x)
    except xp.linalg.LinAlgError as e:
        raise ValueError(f"inverse: the matrix is singular ({e})") from None


def solve(x, y):
    xp = array_module(x, y)
    try:
        return xp.linalg.solve(x, y)
    except xp.linalg.LinAlgError as e:
        raise ValueError(f"solve: the matrix is singular ({e})") from None


def pinv(x, rcond, hermitian):
    xp = array_module(x, rcond, hermitian)
    try:
        return xp.linalg.pinv(x, rcond=rcond, hermitian=hermitian)
    except xp.linalg.LinAlgError as e:
        raise ValueError(f"pinv: the SVD did not converge ({e})") from None


def cholesky(x, upper):
    xp = array_module(x, upper)
    low = lapack("cholesky (the matrix must be symmetric positive-definite)", lambda: xp.linalg.cholesky(x))
    return xp.ascontiguousarray(xp.swapaxes(low, -1, -2).conj()) if upper else low


def det(x):
    xp = array_module(x)
    return xp.asarray(xp.linalg.det(x))


def slogdet(x):
    xp = array_module(x)
    sign, logabs = xp.linalg.slogdet(x)
    return xp.asarray(sign), xp.asarray(logabs)


def eigh(x, UPLO):
    xp = array_module(x, UPLO)
    return tuple(lapack("eigh", lambda: xp.linalg.eigh(x, UPLO=UPLO)))


def complex_of(dt):
    """The complex dtype that holds eigenvalues of a `dt` matrix."""
    xp = array_module(dt)
    return D.complex128 if xp.dtype(dt) in (xp.float64, xp.complex128) else D.complex64


def eig(x):
    xp = array_module(x)
    w, v = lapack("eig", lambda: xp.linalg.eig(x))
    c = complex_of(x.dtype).np
    return w.astype(c), v.astype(c)


def svd(x, full_matrices):
    xp = array_module(x, full_matrices)
    u, s, vh = lapack("svd", lambda: xp.linalg.svd(x, full_matrices=full_matrices))
    return u, s, vh


def qr(x, mode):
    xp = array_module(x, mode)
    q, r = lapack("qr", lambda: xp.linalg.qr(x, mode="complete" if mode == "complete" else "reduced"))
    return q, r


def lu(x):
    """LU with partial pivoting per matrix: packed LU, LAPACK's 1-based pivots, infos (0, or 1 + the first zero
    pivot)."""
    xp = array_module(x)
    lu_factor = scipy_linalg("paddle.linalg.lu").lu_factor
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    lu_out = xp.empty(x.shape, x.dtype)
    piv = xp.empty(batch + (k,), xp.int32)
    info = xp.zeros(batch, xp.int32)
    for idx in xp.ndindex(*batch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a singular U: `infos` says so, as in Paddle
            lu_mat, p = lu_factor(x[idx], check_finite=False)
        lu_out[idx] = lu_mat
        piv[idx] = p[:k] + 1  # LAPACK's 1-based pivots, as Paddle returns them
        diag = xp.abs(xp.diagonal(lu_mat)[:k])
        info[idx] = int(xp.argmax(diag == 0)) + 1 if xp.any(diag == 0) else 0
    return lu_out, piv, info


def pivots_to_perm(piv, n, dtype):
    """The permutation matrices P (x = P L U) of LAPACK row-swap pivots."""
    xp = array_module(piv, n, dtype)
    batch = piv.shape[:-1]
    out = xp.empty(batch + (n, n), D.np_dtype(dtype))
    for idx in xp.ndindex(*batch):
        order = xp.arange(n)
        for i, p in enumerate(piv[idx]):
            j = int(p) - 1
            order[i], order[j] = order[j], order[i]
        out[idx] = xp.eye(n)[:, order]  # x = P L U: row i of L U is row order[i] of x
    return out


def lstsq(x, y, rcond, driver):
    """Least squares per matrix of the broadcast batch: solution, residuals, ranks, singular values."""
    xp = array_module(x, y, rcond, driver)
    batch = xp.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = xp.broadcast_to(x, batch + x.shape[-2:])
    y = xp.broadcast_to(y, batch + y.shape[-2:])
    m, n, k = x.shape[-2], x.shape[-1], y.shape[-1]
    sol = xp.empty(batch + (n, k), x.dtype)
    ranks = xp.empty(batch, xp.int32)
    svals = xp.empty(batch + (min(m, n),), x.dtype)
    res = xp.empty(batch + (k,), x.dtype)
    full = True
    for idx in xp.ndindex(*batch):
        s_, r_, rank, sv = xp.linalg.lstsq(x[idx], y[idx], rcond=rcond)
        sol[idx], ranks[idx], svals[idx] = s_, rank, sv
        full = full and rank == n
        if m > n and rank == n:
            res[idx] = r_
    if not (m > n and full):
        res = xp.empty(batch + (0,), x.dtype)
    if driver not in ("gelsd", "gelss"):  # Paddle returns singular values only for the SVD-based drivers
        svals = xp.empty(batch + (0,), x.dtype)
    return sol, res, ranks, svals


def expm(x):
    xp = array_module(x)
    return xp.asarray(scipy_linalg("paddle.linalg.matrix_exp").expm(x), x.dtype)


def matrix_rank(x, tol, hermitian):
    xp = array_module(x, tol, hermitian)
    if hermitian:
        s = xp.abs(xp.linalg.eigvalsh(x))
    else:
        s = xp.linalg.svd(x, compute_uv=False)
    if tol is None:
        tol = s.max(axis=-1, keepdims=True) * max(x.shape[-2:]) * xp.finfo(x.dtype).eps
    return xp.asarray((s > tol).sum(axis=-1), xp.int64)


def eye(n, m=None):
    xp = array_module(n)
    return xp.eye(n, m)


def tri_ones(m, n, k, lower):
    """An m x n float mask of ones on and below (lower) or on and above the k-th diagonal."""
    xp = array_module(m, n, k, lower)
    return xp.tril(xp.ones((m, n)), k) if lower else xp.triu(xp.ones((m, n)), k)


def ones_column(m, start, stop):
    """An m x 1 float column of zeros with ones in rows ``start:stop``."""
    xp = array_module(m, start, stop)
    out = xp.zeros((m, 1))
    out[start:stop] = 1.0
    return out


def tri_mask(shape, diagonal, lower):
    """The bool mask of the lower (on and below `diagonal`) or upper triangle of the last two dims of `shape`."""
    xp = array_module(shape, diagonal, lower)
    rows, cols = shape[-2], shape[-1]
    keep = xp.tri(rows, cols, diagonal, dtype=bool)
    return keep if lower else ~xp.tri(rows, cols, diagonal - 1, dtype=bool)


def tril(x, diagonal):
    xp = array_module(x, diagonal)
    return xp.where(xp.asarray(tri_mask(x.shape, diagonal, True)), x, xp.zeros((), x.dtype))


def triu(x, diagonal):
    xp = array_module(x, diagonal)
    return xp.where(xp.asarray(tri_mask(x.shape, diagonal, False)), x, xp.zeros((), x.dtype))


def tri_indices(row, col, offset, dtype, lower):
    xp = array_module(row, col, offset, dtype, lower)
    r, c = (xp.tril_indices if lower else xp.triu_indices)(row, offset, col)
    return xp.stack([r, c]).astype(D.np_dtype(dtype))


def diagonal(x, offset, axis1, axis2):
    """A writable view of the diagonal (Paddle's diagonal shares memory with its input)."""
    xp = array_module(x, offset, axis1, axis2)
    d = xp.diagonal(x, offset, axis1, axis2)
    if x.flags.writeable:
        d.flags.writeable = True
    return d


def diagonal_grad(g, x, offset, axis1, axis2):
    """`g` written onto the `offset` diagonal of the (axis1, axis2) planes of zeros shaped like `x`."""
    xp = array_module(g, x, offset, axis1, axis2)
    out = xp.zeros(x.shape, g.dtype)
    idx = xp.arange(g.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    moved = xp.moveaxis(out, (axis1, axis2), (-2, -1))
    moved[..., rows, cols] = g
    return out


def diag_embed(x, offset, padding_value):
    """Matrices with the last dim of `x` on the `offset` diagonal, `padding_value` elsewhere."""
    xp = array_module(x, offset, padding_value)
    n = x.shape[-1] + abs(offset)
    out = xp.full(x.shape[:-1] + (n, n), padding_value, x.dtype)
    idx = xp.arange(x.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = x
    return out


def fill_diagonal(x, value, offset, wrap):
    """A copy of `x` with `value` on its diagonal, as Paddle's fill_diagonal kernel places it: the positions
    ``i * step`` (``step`` = the sum of the element strides) below ``cols * cols`` (below the end when `wrap`, and
    always for more than 2 dims), each moved by `offset` along its row when that stays in the row."""
    xp = array_module(x, value, offset, wrap)
    out = x.copy()
    flat = out.reshape(-1)
    cols = x.shape[1]
    step = sum(int(math.prod(x.shape[k + 1:])) for k in range(x.ndim))
    size = x.size if wrap or x.ndim > 2 else min(x.size, cols * cols)
    starts = xp.arange(0, size, step)
    c = starts % cols
    pos = starts[(c + offset >= 0) & (c + offset < cols)] + offset
    flat[pos[pos < x.size]] = value
    return out
