"""Op-table rows for paddle.linalg (imported by op_table.py): NumPy/SciPy references, float64 finite-difference
gradients, static == eager. Symmetric-input ops (cholesky, eigh) are fed ``x @ x.T`` or ``x + x.T`` inside `fn`,
so the finite differences move the matrix along symmetric directions only; eigen/singular vectors are compared
through sign-invariant products (``v * v``)."""
import numpy as np
import scipy.linalg as sla

import oar
from op_table import add, generators

randn, distinct = generators(14002, 'randn', 'distinct')  # own stream: rows added elsewhere do not move these inputs

L = oar.linalg
I3 = np.eye(3)


def spd_np(x):
    return x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1])


def sym_np(x):
    return x + np.swapaxes(x, -1, -2)


def sym(x):
    return x + oar.moveaxis(x, -1, -2)


def well(*s):
    """Well-conditioned square matrices."""
    return randn(*s) + 3 * np.eye(s[-1])


def _lu_ref(x):
    lu_mat, piv = sla.lu_factor(x)
    return lu_mat, (piv + 1).astype(np.int32)


def _lstsq_ref(x, y):
    sol, res, rank, sv = np.linalg.lstsq(x, y, rcond=np.finfo(np.float64).eps * max(x.shape))
    return sol, res, np.asarray(rank, np.int32), np.zeros((0,))


def _full_q(a, tau):
    m = a.shape[0]
    pad = np.concatenate([a, np.zeros((m, m - a.shape[1]))], axis=1)
    return sla.lapack.dorgqr(pad, tau)[0]


def _tri_solve(a, b, upper, trans, unit):
    return sla.solve_triangular(a, b, lower=not upper, trans=1 if trans else 0, unit_diagonal=unit)


# ---- decompositions --------------------------------------------------------------------------------------------------
add("cholesky", lambda x: L.cholesky(x @ x.T + oar.to_tensor(3 * I3)), lambda x: np.linalg.cholesky(spd_np(x)),
    (randn(3, 3),), rtol=1e-6)
add("cholesky_upper", lambda x: L.cholesky(x @ x.T + oar.to_tensor(3 * I3), upper=True),
    lambda x: np.linalg.cholesky(spd_np(x)).T, (randn(3, 3),), rtol=1e-6)
add("cholesky_batch", lambda x: oar.cholesky(oar.matmul(x, x, transpose_y=True) + oar.to_tensor(3 * I3)),
    lambda x: np.linalg.cholesky(spd_np(x)), (randn(2, 3, 3),), rtol=1e-6)
add("det", L.det, np.linalg.det, (randn(3, 3),), (randn(2, 3, 3),), rtol=1e-6)
add("slogdet", L.slogdet, lambda x: np.stack(np.linalg.slogdet(x)), (randn(3, 3),), (randn(2, 3, 3),), rtol=1e-6)
add("eigh", lambda x: (lambda w, v: (w, v * v))(*L.eigh(sym(x))),
    lambda x: (lambda w, v: (w, v * v))(*np.linalg.eigh(sym_np(x))), (randn(3, 3),), (randn(2, 4, 4),), rtol=1e-6)
add("eigh_upper", lambda x: (lambda w, v: (w, v * v))(*L.eigh(x + x.T, UPLO="U")),
    lambda x: (lambda w, v: (w, v * v))(*np.linalg.eigh(x + x.T, UPLO="U")), (randn(3, 3),), rtol=1e-6)
add("eigvalsh", lambda x: L.eigvalsh(x + x.T), lambda x: np.linalg.eigvalsh(x + x.T), (randn(4, 4),), rtol=1e-6)
# NumPy returns real arrays when every eigenvalue is real; Paddle (and oar) always return complex ones
add("eig", L.eig, lambda x: tuple(a.astype(np.complex128) for a in np.linalg.eig(x)), (randn(3, 3),), rtol=1e-6)


def _eig_view(w, v):
    """Eigenvalues as (re, im) pairs and |v|^2 of each eigenvector entry (independent of the vectors' phases)."""
    if isinstance(w, np.ndarray):
        return np.stack([w.real, w.imag], -1), np.abs(v) ** 2
    r = oar.as_real(v)
    return oar.as_real(w), (r * r).sum(-1)


add("eig_grad", lambda x: _eig_view(*L.eig(x)), lambda x: _eig_view(*np.linalg.eig(x)), (randn(3, 3),),
    (randn(2, 4, 4),), rtol=1e-6)
add("eigvals", lambda x: oar.as_real(L.eigvals(x)), lambda x: np.stack([np.linalg.eigvals(x).real,
                                                                         np.linalg.eigvals(x).imag], -1),
    (randn(3, 3),), (randn(2, 3, 3),), rtol=1e-6)


def _svd_view(u, s, vh):
    return u * u, s, vh * vh


add("svd", lambda x: _svd_view(*L.svd(x)), lambda x: _svd_view(*np.linalg.svd(x, full_matrices=False)),
    (randn(4, 3),), (randn(3, 4),), (randn(2, 3, 3),), rtol=1e-6, atol=1e-8)
add("svd_full", lambda x: _svd_view(*L.svd(x, full_matrices=True)), lambda x: _svd_view(*np.linalg.svd(x)),
    (randn(3, 3),), rtol=1e-6, atol=1e-8)
add("qr", L.qr, lambda x: tuple(np.linalg.qr(x)), (randn(4, 3),), (randn(3, 3),), (randn(2, 4, 2),), rtol=1e-6,
    atol=1e-8)
add("qr_r", lambda x: L.qr(x, mode="r"), lambda x: np.linalg.qr(x, mode="r"), (randn(4, 3),), rtol=1e-6, atol=1e-8)
add("qr_complete", lambda x: L.qr(x, mode="complete"), lambda x: tuple(np.linalg.qr(x, mode="complete")),
    (randn(4, 3),), grad=False, rtol=1e-6, atol=1e-8)
add("lu", L.lu, _lu_ref, (randn(3, 3),), (randn(4, 4),), rtol=1e-6, atol=1e-8)
add("lu_unpack", lambda x: L.lu_unpack(*L.lu(x)), lambda x: tuple(sla.lu(x)), (randn(3, 3),), rtol=1e-6, atol=1e-8)
add("lu_unpack_wide", lambda x: L.lu_unpack(*L.lu(x)), lambda x: tuple(sla.lu(x)), (randn(4, 3),), (randn(2, 4),),
    grad=False, rtol=1e-6, atol=1e-8)

# ---- solvers and matrix functions ------------------------------------------------------------------------------------
add("solve", L.solve, np.linalg.solve, (well(3, 3), randn(3, 2)), (well(2, 3, 3), randn(3, 2)), rtol=1e-6)
add("solve_vector", L.solve, np.linalg.solve, (well(3, 3), randn(3)), rtol=1e-6)
for _up in (True, False):
    for _tr in (True, False):
        for _unit in (True, False):
            add(f"triangular_solve_{'u' if _up else 'l'}{'t' if _tr else ''}{'1' if _unit else ''}",
                (lambda u, t, n: lambda a, b: L.triangular_solve(a, b, upper=u, transpose=t, unitriangular=n))(
                    _up, _tr, _unit),
                (lambda u, t, n: lambda a, b: _tri_solve(a, b, u, t, n))(_up, _tr, _unit),
                (well(3, 3), randn(3, 2)), rtol=1e-6)
add("cholesky_solve", L.cholesky_solve, lambda b, f: sla.cho_solve((f, True), b),
    (randn(3, 2), np.tril(randn(3, 3)) + 3 * I3), rtol=1e-6)
add("cholesky_solve_upper", lambda b, f: L.cholesky_solve(b, f, upper=True), lambda b, f: sla.cho_solve((f, False), b),
    (randn(3, 2), np.triu(randn(3, 3)) + 3 * I3), rtol=1e-6)
add("inv", L.inv, np.linalg.inv, (well(3, 3),), rtol=1e-6)
add("pinv", L.pinv, np.linalg.pinv, (randn(4, 3),), (randn(3, 4),), (randn(2, 3, 3),), rtol=1e-6, atol=1e-8)
add("lstsq", L.lstsq, _lstsq_ref, (randn(5, 3), randn(5, 2)), grad=False, rtol=1e-6, atol=1e-8)
add("matrix_exp", L.matrix_exp, sla.expm, (0.5 * randn(3, 3),), (0.5 * randn(2, 2, 2),), rtol=1e-6)
add("matrix_power", lambda x: L.matrix_power(x, 3), lambda x: np.linalg.matrix_power(x, 3), (randn(3, 3),))
add("matrix_power_neg", lambda x: L.matrix_power(x, -2), lambda x: np.linalg.matrix_power(x, -2), (well(3, 3),),
    rtol=1e-6)
add("matrix_power_0", lambda x: L.matrix_power(x, 0), lambda x: np.linalg.matrix_power(x, 0), (randn(2, 3, 3),))
add("matrix_rank", L.matrix_rank, lambda x: np.asarray(np.linalg.matrix_rank(x), np.int64),
    (np.outer(randn(4), randn(3)),), (randn(2, 3, 3),))
add("matrix_rank_hermitian", lambda x: L.matrix_rank(x + x.T, hermitian=True),
    lambda x: np.asarray(np.linalg.matrix_rank(x + x.T, hermitian=True), np.int64), (randn(3, 3),))
add("multi_dot", lambda a, b, c: L.multi_dot([a, b, c]), lambda a, b, c: np.linalg.multi_dot([a, b, c]),
    (randn(2, 3), randn(3, 4), randn(4, 5)), (randn(3), randn(3, 4), randn(4)))

# ---- norms and statistics --------------------------------------------------------------------------------------------
add("linalg_norm", L.norm, lambda x: np.asarray(np.linalg.norm(x)), (randn(3, 4),))
add("vector_norm_3", lambda x: L.vector_norm(x, p=3, axis=-1, keepdim=True),
    lambda x: np.linalg.norm(x, 3, axis=-1, keepdims=True), (randn(3, 4),))
add("vector_norm_ninf", lambda x: L.vector_norm(x, p=float("-inf"), axis=0),
    lambda x: np.linalg.norm(x, -np.inf, axis=0), (randn(3, 4),))
for _p in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
    add(f"matrix_norm_{_p}", (lambda p: lambda x: L.matrix_norm(x, p=p))(_p),
        (lambda p: lambda x: np.linalg.norm(x, p, axis=(-2, -1)))(_p), (randn(3, 4),), (randn(2, 3, 3),), rtol=1e-6)
add("norm_matrix_axes_keepdim", lambda x: L.norm(x, p="nuc", axis=[0, 2], keepdim=True),
    lambda x: np.linalg.norm(x, "nuc", axis=(0, 2), keepdims=True), (randn(3, 2, 4),), rtol=1e-6)
add("norm_vector_axis", lambda x: oar.norm(x, p=1, axis=1), lambda x: np.abs(x).sum(1), (randn(3, 4),))
add("norm_two_axes_spectral", lambda x: L.norm(x, p=2, axis=[0, 1]),  # Paddle 3: a matrix norm over two axes
    lambda x: np.linalg.norm(x, 2, axis=(0, 1)), (randn(2, 3, 4),), rtol=1e-6)
add("norm_two_axes_inf", lambda x: L.norm(x, p=float("inf"), axis=[0, 2], keepdim=True),
    lambda x: np.linalg.norm(x, np.inf, axis=(0, 2), keepdims=True), (distinct(2, 3, 4),))
for _p in (None, "fro", "nuc", 1, float("inf"), -2):
    add(f"cond_{_p}", (lambda p: lambda x: L.cond(x, p=p))(_p), (lambda p: lambda x: np.asarray(np.linalg.cond(x, p)))(
        _p), (randn(3, 3),), rtol=1e-6)
add("cov", L.cov, np.cov, (randn(3, 5),), (randn(4),))
add("cov_cols_biased", lambda x: L.cov(x, rowvar=False, ddof=False), lambda x: np.cov(x, rowvar=False, bias=True),
    (randn(5, 3),))
add("cov_weights", lambda x, f, a: L.cov(x, fweights=f, aweights=a), lambda x, f, a: np.cov(x, fweights=f, aweights=a),
    (randn(2, 4), np.array([1, 2, 1, 3]), np.array([0.5, 1.0, 2.0, 1.5])), diff=(0, 2))
add("corrcoef", L.corrcoef, np.corrcoef, (randn(3, 5),), rtol=1e-6)
add("cross", oar.cross, lambda x, y: np.cross(x, y, axis=1), (randn(4, 3), randn(4, 3)))
add("cross_axis0", lambda x, y: oar.cross(x, y, axis=0), lambda x, y: np.cross(x, y, axis=0),
    (randn(3, 2), randn(3, 1)))
add("householder_product", L.householder_product, lambda a, t: sla.lapack.dorgqr(a, t)[0],
    (randn(4, 3), randn(3)), (randn(3, 3), randn(2)), rtol=1e-6)
add("ormqr", lambda a, t, c: L.ormqr(a, t, c), lambda a, t, c: _full_q(a, t) @ c, (randn(4, 2), randn(2), randn(4, 3)),
    rtol=1e-6)
add("ormqr_right_t", lambda a, t, c: L.ormqr(a, t, c, left=False, transpose=True),
    lambda a, t, c: c @ _full_q(a, t).T, (randn(3, 2), randn(2), randn(2, 3)), rtol=1e-6)
add("solve_complex", lambda a, b, c, d: oar.as_real(L.solve(oar.complex(a, b), oar.complex(c, d))),
    lambda a, b, c, d: (lambda z: np.stack([z.real, z.imag], -1))(np.linalg.solve(a + 1j * b, c + 1j * d)),
    (well(3, 3), randn(3, 3), randn(3, 2), randn(3, 2)), rtol=1e-6)


# ---- complex inputs (entering as real and imaginary parts, leaving as (re, im) pairs) --------------------------------
def _ri(z):
    return np.stack([z.real, z.imag], -1)


def _herm(a, b):
    z = oar.complex(a, b)
    return oar.matmul(z, oar.conj(z), transpose_y=True) + oar.to_tensor(3 * I3)


def _herm_np(a, b):
    z = a + 1j * b
    return z @ z.conj().T + 3 * I3


add("det_complex", lambda a, b: oar.as_real(L.det(oar.complex(a, b))), lambda a, b: _ri(np.linalg.det(a + 1j * b)),
    (randn(3, 3), randn(3, 3)), rtol=1e-6)
add("inverse_complex", lambda a, b: oar.as_real(oar.inverse(oar.complex(a, b))),
    lambda a, b: _ri(np.linalg.inv(a + 1j * b)), (well(3, 3), randn(3, 3)), rtol=1e-6)
add("cholesky_complex", lambda a, b: oar.as_real(L.cholesky(_herm(a, b))),
    lambda a, b: _ri(np.linalg.cholesky(_herm_np(a, b))), (randn(3, 3), randn(3, 3)), rtol=1e-6)
add("cholesky_complex_upper", lambda a, b: oar.as_real(L.cholesky(_herm(a, b), upper=True)),
    lambda a, b: _ri(np.linalg.cholesky(_herm_np(a, b)).conj().T), (randn(3, 3), randn(3, 3)), rtol=1e-6)
add("eigh_complex", lambda a, b: (lambda w, v: (w, (oar.as_real(v) ** 2).sum(-1)))(*L.eigh(_herm(a, b))),
    lambda a, b: (lambda w, v: (w, np.abs(v) ** 2))(*np.linalg.eigh(_herm_np(a, b))), (randn(3, 3), randn(3, 3)),
    rtol=1e-6)
add("pinv_complex", lambda a, b: oar.as_real(L.pinv(oar.complex(a, b))), lambda a, b: _ri(np.linalg.pinv(a + 1j * b)),
    (randn(4, 3), randn(4, 3)), rtol=1e-6, atol=1e-8)
add("matrix_exp_complex", lambda a, b: oar.as_real(L.matrix_exp(oar.complex(a, b))),
    lambda a, b: _ri(sla.expm(a + 1j * b)), (0.5 * randn(3, 3), 0.5 * randn(3, 3)), rtol=1e-6)
add("qr_complex", lambda a, b: tuple(oar.as_real(t) for t in L.qr(oar.complex(a, b))),
    lambda a, b: tuple(_ri(t) for t in np.linalg.qr(a + 1j * b)), (randn(4, 3), randn(4, 3)), rtol=1e-6, atol=1e-8)


def _svd_c(a, b, w):
    """A loss blind to the singular vectors' phases: U diag(w) VH, plus S (w real weights)."""
    u, s, vh = L.svd(oar.complex(a, b))
    return oar.as_real(oar.matmul(u * oar.complex(w, w * 0.0), vh)), s


def _svd_c_np(a, b, w):
    u, s, vh = np.linalg.svd(a + 1j * b, full_matrices=False)
    return _ri((u * w) @ vh), s


add("svd_complex", _svd_c, _svd_c_np, (randn(3, 3), randn(3, 3), randn(3)), (randn(4, 3), randn(4, 3), randn(3)),
    (randn(2, 4), randn(2, 4), randn(2)), rtol=1e-6, atol=1e-8)
add("lu_complex", lambda a, b: oar.as_real(L.lu(oar.complex(a, b))[0]), lambda a, b: _ri(sla.lu_factor(a + 1j * b)[0]),
    (randn(3, 3), randn(3, 3)), rtol=1e-6, atol=1e-8)
add("cross_complex", lambda a, b, c, d: oar.as_real(oar.cross(oar.complex(a, b), oar.complex(c, d))),
    lambda a, b, c, d: _ri(np.cross(a + 1j * b, c + 1j * d)), (randn(2, 3), randn(2, 3), randn(2, 3), randn(2, 3)))
