"""Linear-algebra kernels: matmul, einsum, inverse, solvers, decompositions (LAPACK through numpy.linalg; LU and
the matrix exponential through scipy.linalg, imported inside the kernel), cross products, triangle masks."""
import warnings

import numpy as np

from ..core import dtype as D


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
    a = np.swapaxes(x, -1, -2) if transpose_x and x.ndim >= 2 else x
    b = np.swapaxes(y, -1, -2) if transpose_y and y.ndim >= 2 else y
    try:
        return np.matmul(a, b)
    except ValueError:  # explain in the user's terms; checking only on failure keeps the hot path lean
        matmul_check(list(x.shape), list(y.shape), transpose_x, transpose_y)
        raise


def einsum(*xs, equation):
    return np.asarray(np.einsum(equation, *xs, optimize=len(xs) > 2))


def cross(x, y, axis):
    return np.cross(x, y, axis=axis)


def lapack(name, fn):
    """Runs a LAPACK call, turning its errors into ValueErrors that say which decomposition failed."""
    try:
        return fn()
    except np.linalg.LinAlgError as e:
        raise ValueError(f"{name}: {e}") from None


def scipy_linalg(what):
    """scipy.linalg, or an error that says which extra to install."""
    try:
        import scipy.linalg
    except ImportError:
        raise RuntimeError(f"{what} needs SciPy for its kernel: pip install 'oar-dl[scipy]' (or scipy)") from None
    return scipy.linalg


def inverse(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        raise ValueError(f"inverse: the matrix is singular ({e})") from None


def solve(x, y):
    try:
        return np.linalg.solve(x, y)
    except np.linalg.LinAlgError as e:
        raise ValueError(f"solve: the matrix is singular ({e})") from None


def pinv(x, rcond, hermitian):
    try:
        return np.linalg.pinv(x, rcond=rcond, hermitian=hermitian)
    except np.linalg.LinAlgError as e:
        raise ValueError(f"pinv: the SVD did not converge ({e})") from None


def cholesky(x, upper):
    low = lapack("cholesky (the matrix must be symmetric positive-definite)", lambda: np.linalg.cholesky(x))
    return np.ascontiguousarray(np.swapaxes(low, -1, -2).conj()) if upper else low


def det(x):
    return np.asarray(np.linalg.det(x))


def slogdet(x):
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign), np.asarray(logabs)


def eigh(x, UPLO):
    return tuple(lapack("eigh", lambda: np.linalg.eigh(x, UPLO=UPLO)))


def complex_of(dt):
    """The complex dtype that holds eigenvalues of a `dt` matrix."""
    return D.complex128 if np.dtype(dt) in (np.float64, np.complex128) else D.complex64


def eig(x):
    w, v = lapack("eig", lambda: np.linalg.eig(x))
    c = complex_of(x.dtype).np
    return w.astype(c), v.astype(c)


def svd(x, full_matrices):
    u, s, vh = lapack("svd", lambda: np.linalg.svd(x, full_matrices=full_matrices))
    return u, s, vh


def qr(x, mode):
    q, r = lapack("qr", lambda: np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced"))
    return q, r


def lu(x):
    """LU with partial pivoting per matrix: packed LU, LAPACK's 1-based pivots, infos (0, or 1 + the first zero
    pivot)."""
    lu_factor = scipy_linalg("paddle.linalg.lu").lu_factor
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    lu_out = np.empty(x.shape, x.dtype)
    piv = np.empty(batch + (k,), np.int32)
    info = np.zeros(batch, np.int32)
    for idx in np.ndindex(*batch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a singular U: `infos` says so, as in Paddle
            lu_mat, p = lu_factor(x[idx], check_finite=False)
        lu_out[idx] = lu_mat
        piv[idx] = p[:k] + 1  # LAPACK's 1-based pivots, as Paddle returns them
        diag = np.abs(np.diagonal(lu_mat)[:k])
        info[idx] = int(np.argmax(diag == 0)) + 1 if np.any(diag == 0) else 0
    return lu_out, piv, info


def pivots_to_perm(piv, n, dtype):
    """The permutation matrices P (x = P L U) of LAPACK row-swap pivots."""
    batch = piv.shape[:-1]
    out = np.empty(batch + (n, n), D.np_dtype(dtype))
    for idx in np.ndindex(*batch):
        order = np.arange(n)
        for i, p in enumerate(piv[idx]):
            j = int(p) - 1
            order[i], order[j] = order[j], order[i]
        out[idx] = np.eye(n)[:, order]  # x = P L U: row i of L U is row order[i] of x
    return out


def lstsq(x, y, rcond, driver):
    """Least squares per matrix of the broadcast batch: solution, residuals, ranks, singular values."""
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = np.broadcast_to(x, batch + x.shape[-2:])
    y = np.broadcast_to(y, batch + y.shape[-2:])
    m, n, k = x.shape[-2], x.shape[-1], y.shape[-1]
    sol = np.empty(batch + (n, k), x.dtype)
    ranks = np.empty(batch, np.int32)
    svals = np.empty(batch + (min(m, n),), x.dtype)
    res = np.empty(batch + (k,), x.dtype)
    full = True
    for idx in np.ndindex(*batch):
        s_, r_, rank, sv = np.linalg.lstsq(x[idx], y[idx], rcond=rcond)
        sol[idx], ranks[idx], svals[idx] = s_, rank, sv
        full = full and rank == n
        if m > n and rank == n:
            res[idx] = r_
    if not (m > n and full):
        res = np.empty(batch + (0,), x.dtype)
    if driver not in ("gelsd", "gelss"):  # Paddle returns singular values only for the SVD-based drivers
        svals = np.empty(batch + (0,), x.dtype)
    return sol, res, ranks, svals


def expm(x):
    return np.asarray(scipy_linalg("paddle.linalg.matrix_exp").expm(x), x.dtype)


def matrix_rank(x, tol, hermitian):
    if hermitian:
        s = np.abs(np.linalg.eigvalsh(x))
    else:
        s = np.linalg.svd(x, compute_uv=False)
    if tol is None:
        tol = s.max(axis=-1, keepdims=True) * max(x.shape[-2:]) * np.finfo(x.dtype).eps
    return np.asarray((s > tol).sum(axis=-1), np.int64)


def eye(n, m=None):
    return np.eye(n, m)


def tri_ones(m, n, k, lower):
    """An m x n float mask of ones on and below (lower) or on and above the k-th diagonal."""
    return np.tril(np.ones((m, n)), k) if lower else np.triu(np.ones((m, n)), k)


def ones_column(m, start, stop):
    """An m x 1 float column of zeros with ones in rows ``start:stop``."""
    out = np.zeros((m, 1))
    out[start:stop] = 1.0
    return out


def tri_mask(shape, diagonal, lower):
    """The bool mask of the lower (on and below `diagonal`) or upper triangle of the last two dims of `shape`."""
    rows, cols = shape[-2], shape[-1]
    keep = np.tri(rows, cols, diagonal, dtype=bool)
    return keep if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)


def tril(x, diagonal):
    return np.where(tri_mask(x.shape, diagonal, True), x, np.zeros((), x.dtype))


def triu(x, diagonal):
    return np.where(tri_mask(x.shape, diagonal, False), x, np.zeros((), x.dtype))


def tri_indices(row, col, offset, dtype, lower):
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return np.stack([r, c]).astype(D.np_dtype(dtype))


def diagonal(x, offset, axis1, axis2):
    """A writable view of the diagonal (Paddle's diagonal shares memory with its input)."""
    d = np.diagonal(x, offset, axis1, axis2)
    if x.flags.writeable:
        d.flags.writeable = True
    return d


def diagonal_grad(g, x, offset, axis1, axis2):
    """`g` written onto the `offset` diagonal of the (axis1, axis2) planes of zeros shaped like `x`."""
    out = np.zeros(x.shape, g.dtype)
    idx = np.arange(g.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))
    moved[..., rows, cols] = g
    return out


def diag_embed(x, offset, padding_value):
    """Matrices with the last dim of `x` on the `offset` diagonal, `padding_value` elsewhere."""
    n = x.shape[-1] + abs(offset)
    out = np.full(x.shape[:-1] + (n, n), padding_value, x.dtype)
    idx = np.arange(x.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = x
    return out


def fill_diagonal(x, value, offset, wrap):
    """A copy of `x` with `value` on its diagonal, as Paddle's fill_diagonal kernel places it: the positions
    ``i * step`` (``step`` = the sum of the element strides) below ``cols * cols`` (below the end when `wrap`, and
    always for more than 2 dims), each moved by `offset` along its row when that stays in the row."""
    out = x.copy()
    flat = out.reshape(-1)
    cols = x.shape[1]
    step = sum(int(np.prod(x.shape[k + 1:])) for k in range(x.ndim))
    size = x.size if wrap or x.ndim > 2 else min(x.size, cols * cols)
    starts = np.arange(0, size, step)
    c = starts % cols
    pos = starts[(c + offset >= 0) & (c + offset < cols)] + offset
    flat[pos[pos < x.size]] = value
    return out
