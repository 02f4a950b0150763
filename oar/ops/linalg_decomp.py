"""Matrix decompositions (paddle.linalg): cholesky, det, slogdet, eigh/eigvalsh, eig/eigvals, svd, qr, lu, lu_unpack.

Kernels are NumPy's LAPACK bindings (SciPy's for LU), batched over leading dims. Gradient rules are the standard
matrix-calculus results for real inputs, written with other ops (matmul, inverse, masks) so they also build static
backward programs and higher-order graphs. Eigenvectors and singular vectors are defined up to sign; their
gradients are those of LAPACK's choice (continuous away from repeated eigen/singular values).
"""
from ..core import dtype as D
from .common import public_api, operand, const
from .linalg import matmul, inverse
from .linalg_util import (mT, mH, tri, diag_embed, diagonal, eye_like, square_check, matrix_check,
                          real_grad)
from .manipulation import cast, unsqueeze, stack
from ..kernels.linalg import (cholesky as _cholesky, complex_of as _complex_of, det as _det, eig as _eig, eigh as _eigh,
                              eye as _eye, lu as _lu, pivots_to_perm as _pivots_to_perm, qr as _qr, slogdet as _slogdet,
                              svd as _svd)
from .registry import apply, defop

_NO_ONNX = "no ONNX operator (linear algebra decompositions and solvers)"  # the onnx_reason of this family's ops


# ---- cholesky -----------------------------------------------------------------------------------------------------
def _cholesky_grad(g, out, x, upper):
    # A = L L^H: gA = L^-H Phi(L^H gL) L^-1, Phi = lower triangle with half the diagonal, made Hermitian
    low, gl = (mH(out), mH(g)) if upper else (out, g)
    phi = tri(matmul(mH(low), gl), True)
    phi = phi - 0.5 * diag_embed(diagonal(phi))
    linv = inverse(low)
    s = matmul(matmul(mH(linv), phi), linv)
    return 0.5 * (s + mH(s))


CHOLESKY = defop("cholesky", _cholesky, infer=lambda m, upper: [m[0]], grad=_cholesky_grad,
                 onnx_reason=_NO_ONNX)


def cholesky(x, upper=False, name=None):
    """Cholesky factor of symmetric positive-definite matrices: ``x = L L^T`` (``U^T U`` with `upper`).

    Example:
        >>> a = oar.to_tensor([[4.0, 2.0], [2.0, 5.0]])
        >>> oar.linalg.cholesky(a).numpy().tolist()
        [[2.0, 0.0], [1.0, 2.0]]
    """
    return apply(CHOLESKY, (square_check(x, "cholesky"),), {"upper": bool(upper)})


# ---- det / slogdet ------------------------------------------------------------------------------------------------
def _det_grad(g, out, x):
    return unsqueeze(g * _conj(out), [-1, -2]) * mH(inverse(x))


def _conj(t):
    if t.dtype.kind != "c":
        return t
    from .complex import conj
    return conj(t)


DET = defop("determinant", _det,
            infer=lambda m: [(list(m[0][0][:-2]), m[0][1])], grad=_det_grad,
            onnx_reason=_NO_ONNX)


def det(x, name=None):
    """Determinant of square matrices (batched).

    Example:
        >>> oar.linalg.det(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy().round(6).tolist()
        -2.0
    """
    return apply(DET, (square_check(x, "det"),))


SLOGDET = defop("slogdeterminant", _slogdet, outputs=("sign", "logabsdet"), nondiff_out=(0,),
                infer=lambda m: [(list(m[0][0][:-2]), m[0][1])] * 2,
                grad=real_grad("slogdet")(lambda g, out, x: unsqueeze(g[1], [-1, -2]) * mT(inverse(x))),
                onnx_reason=_NO_ONNX)


def slogdet(x, name=None):
    """Sign and natural log of the absolute determinant, stacked as Paddle 2.x does: shape ``[2, *batch]``.

    Example:
        >>> oar.linalg.slogdet(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype='float64')).numpy().round(4).tolist()
        [-1.0, 0.6931]
    """
    sign, logabs = apply(SLOGDET, (square_check(x, "slogdet"),))
    return stack([sign, cast(logabs, sign.dtype)])  # (a complex input: complex sign, real log)


# ---- symmetric eigendecomposition -----------------------------------------------------------------------------------
def _eigh_grad(g, out, x, UPLO):
    gw, gv = g
    w, v = out
    diff = unsqueeze(w, -2) - unsqueeze(w, -1)  # [i, j] = w_j - w_i
    n = w.shape[-1]
    off = 1.0 - eye_like(n, w.dtype)
    f = off / (diff + eye_like(n, w.dtype))
    inner = diag_embed(gw) + f * matmul(mH(v), gv)
    a = matmul(matmul(v, inner), mH(v))
    return 0.5 * (a + mH(a))


EIGH = defop("eigh", _eigh,
             outputs=("eigenvalues", "eigenvectors"),
             infer=lambda m, UPLO: [(list(m[0][0][:-1]), _real_of(m[0][1])), m[0]], grad=_eigh_grad,
             onnx_reason=_NO_ONNX)


def _real_of(dt):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(dt, dt)


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO


def eigh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric/Hermitian matrices; reads the `UPLO` triangle.

    Example:
        >>> w, v = oar.linalg.eigh(oar.to_tensor([[2.0, 1.0], [1.0, 2.0]]))
        >>> w.numpy().round(6).tolist()
        [1.0, 3.0]
    """
    return apply(EIGH, (square_check(x, "eigh"),), {"UPLO": _uplo(UPLO)})


def eigvalsh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) of symmetric/Hermitian matrices.

    Example:
        >>> oar.linalg.eigvalsh(oar.to_tensor([[2.0, 1.0], [1.0, 2.0]])).numpy().round(6).tolist()
        [1.0, 3.0]
    """
    return eigh(x, UPLO)[0]


# ---- general eigendecomposition (complex results) --------------------------------------------------------------------
def _eig_infer(m):
    c = _complex_of(D.np_dtype(m[0][1]))
    return [(list(m[0][0][:-1]), c), (m[0][0], c)]


def _eig_grad(g, out, x):
    # gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV))) / conj(E)) V^H, E[i, j] = L_j - L_i; the
    # projection makes the rule independent of each eigenvector's phase (LAPACK normalizes them to unit length)
    from .complex import conj, real
    from .linalg_solve import SOLVE
    gl, gv = g
    lam, v = out
    n = lam.shape[-1]
    vh = conj(mT(v))
    vhgv = matmul(vh, gv)
    vhgv = vhgv - matmul(vh, v * unsqueeze(real(diagonal(vhgv)), -2))
    lc = conj(lam)
    e = unsqueeze(lc, -2) - unsqueeze(lc, -1) + eye_like(n, lam.dtype)
    core = vhgv / e * (1.0 - eye_like(n, lam.dtype)) + diag_embed(gl) + vhgv * eye_like(n, lam.dtype)
    ga = apply(SOLVE, (vh, matmul(core, vh)))
    return real(ga) if x.dtype.kind != "c" else ga


EIG = defop("eig", _eig, outputs=("eigenvalues", "eigenvectors"), infer=_eig_infer, grad=_eig_grad,
            onnx_reason=_NO_ONNX)


def eig(x, name=None):
    """Eigenvalues and eigenvectors (unit length) of general square matrices, as complex tensors.

    Example:
        >>> w, v = oar.linalg.eig(oar.to_tensor([[2.0, 0.0], [0.0, 3.0]]))
        >>> w.numpy().tolist(), w.dtype
        ([(2+0j), (3+0j)], paddle.complex64)
    """
    return apply(EIG, (square_check(x, "eig"),))


def eigvals(x, name=None):
    """Eigenvalues of general square matrices, as a complex tensor.

    Example:
        >>> oar.linalg.eigvals(oar.to_tensor([[0.0, -1.0], [1.0, 0.0]])).numpy().round(6).tolist()
        [1j, -1j]
    """
    return eig(x)[0]


# ---- singular value decomposition ---------------------------------------------------------------------------------
def _svd_infer(m, full_matrices):
    shape, dt = m[0]
    a, b = shape[-2], shape[-1]
    k = min(a, b) if a >= 0 and b >= 0 else -1
    batch = list(shape[:-2])
    u = batch + [a, a if full_matrices else k]
    return [(u, dt), (batch + [k], _real_of(dt)), (batch + [b if full_matrices else k, b], dt)]


def _svd_grad(g, out, x, full_matrices):
    gu, gs, gvh = g
    u, s, vh = out
    m, n = x.shape[-2], x.shape[-1]
    k = s.shape[-1]
    if full_matrices and m != n:
        raise NotImplementedError("svd gradient with full_matrices=True needs square matrices; "
                                  "use full_matrices=False")
    v, gv = mH(vh), mH(gvh)
    s2 = s * s
    e = unsqueeze(s2, -2) - unsqueeze(s2, -1) + eye_like(k, s.dtype)  # [i, j] = s_j^2 - s_i^2, 1 on the diagonal
    uhgu0 = matmul(mH(u), gu)
    vhgv = matmul(mH(v), gv)
    uhgu, vhgv = uhgu0 - mH(uhgu0), vhgv - mH(vhgv)
    core = (uhgu * unsqueeze(s, -2) + unsqueeze(s, -1) * vhgv) / e + diag_embed(gs)
    if u.dtype.kind == "c":  # complex: the phase part of U^H gU's diagonal (for losses blind to the vectors' phases)
        from .complex import imag, complex as make_complex
        im = imag(diagonal(uhgu0)) / s
        core = core + diag_embed(make_complex(im * 0.0, im))
    if m > k:  # the part of gU outside U's column space
        gusinv = gu / unsqueeze(s, -2)
        core = matmul(u, core) + gusinv - matmul(u, matmul(mH(u), gusinv))
        return matmul(core, vh)
    if n > k:
        sinvgvh = mH(gv) / unsqueeze(s, -1)
        core = matmul(core, vh) + sinvgvh - matmul(matmul(sinvgvh, v), vh)
        return matmul(u, core)
    return matmul(matmul(u, core), vh)


SVD = defop("svd", _svd, outputs=("u", "s", "vh"), infer=_svd_infer, grad=_svd_grad,
            onnx_reason=_NO_ONNX)


def svd(x, full_matrices=False, name=None):
    """Singular value decomposition ``x = U diag(S) VH``; returns ``(U, S, VH)`` with S descending.

    Example:
        >>> u, s, vh = oar.linalg.svd(oar.to_tensor([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]]))
        >>> u.shape, s.numpy().tolist(), vh.shape
        ([3, 2], [3.0, 2.0], [2, 2])
    """
    return apply(SVD, (matrix_check(x, "svd"),), {"full_matrices": bool(full_matrices)})


# ---- QR -------------------------------------------------------------------------------------------------------------
def _qr_infer(m, mode):
    shape, dt = m[0]
    a, b = shape[-2], shape[-1]
    k = a if mode == "complete" else (min(a, b) if a >= 0 and b >= 0 else -1)
    batch = list(shape[:-2])
    return [(batch + [a, k], dt), (batch + [k, b], dt)]


def _qr_grad(g, out, x, mode):
    gq, gr = g
    q, r = out
    m, n = x.shape[-2], x.shape[-1]
    if m < n or (mode == "complete" and m != n):
        raise NotImplementedError(f"qr gradient is implemented for matrices with M >= N in 'reduced' mode "
                                  f"(got shape {x.shape}, mode={mode!r})")
    # gA = (gQ + Q copyltu(M)) R^-H, M = R gR^H - gQ^H Q, copyltu = Hermitian from M's lower part, real diagonal
    mm = matmul(r, mH(gr)) - matmul(mH(gq), q)
    low = tri(mm, True, -1)
    dg = diagonal(mm)
    if dg.dtype.kind == "c":
        from .complex import real
        dg = real(dg)
    copyltu = low + mH(low) + diag_embed(dg)
    b = gq + matmul(q, copyltu)
    return matmul(b, mH(inverse(r)))


QR = defop("qr", _qr, outputs=("q", "r"), infer=_qr_infer, grad=_qr_grad,
           onnx_reason=_NO_ONNX)


def qr(x, mode="reduced", name=None):
    """QR decomposition ``x = Q R``; `mode` 'reduced' (default), 'complete', or 'r' (returns only R).

    Example:
        >>> q, r = oar.linalg.qr(oar.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        >>> q.shape, r.shape, np.allclose((q @ r).numpy(), [[1, 2], [3, 4], [5, 6]], atol=1e-5)
        ([3, 2], [2, 2], True)
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = apply(QR, (matrix_check(x, "qr"),), {"mode": "reduced" if mode == "r" else mode})
    return r if mode == "r" else (q, r)


# ---- LU ------------------------------------------------------------------------------------------------------------
def _lu_infer(m):
    shape, dt = m[0]
    a, b = shape[-2], shape[-1]
    k = min(a, b) if a >= 0 and b >= 0 else -1
    return [m[0], (list(shape[:-2]) + [k], D.int32), (list(shape[:-2]), D.int32)]


def _lu_grad(g, out, x):
    glu = g[0]
    lu_mat, piv = out[0], out[1]
    m, n = x.shape[-2], x.shape[-1]
    if m != n:
        raise NotImplementedError(f"lu gradient is implemented for square matrices (got shape {x.shape})")
    low = tri(lu_mat, True, -1) + eye_like(n, lu_mat.dtype)
    up = tri(lu_mat, False)
    # A = P L U: gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H
    phi = tri(matmul(mH(low), tri(glu, True, -1)), True, -1) + tri(matmul(tri(glu, False), mH(up)), False)
    ga = matmul(matmul(mH(inverse(low)), phi), mH(inverse(up)))
    return matmul(_perm_matrix(piv, n, x.dtype), ga)


LU = defop("lu", _lu, outputs=("lu", "pivots", "infos"), nondiff_out=(1, 2), infer=_lu_infer, grad=_lu_grad,
           onnx_reason=_NO_ONNX)


def lu(x, pivot=True, get_infos=False, name=None):
    """LU factorization with partial pivoting: returns ``(LU, Pivots)`` (and ``Infos`` with `get_infos`);
    L (unit lower) and U are packed in one matrix, pivots are LAPACK's 1-based row swaps (see `lu_unpack`).

    Example:
        >>> lu_mat, piv = oar.linalg.lu(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype='float64'))
        >>> lu_mat.numpy().round(4).tolist(), piv.numpy().tolist()
        ([[3.0, 4.0], [0.3333, 0.6667]], [2, 2])
    """
    if not pivot:
        raise NotImplementedError("lu without pivoting is GPU-only in Paddle; on CPU use pivot=True")
    out = apply(LU, (matrix_check(x, "lu"),))
    return out if get_infos else out[:2]


PIVOTS_TO_PERM = defop("lu_pivots_to_permutation", _pivots_to_perm, inputs=("pivots",),
                       infer=lambda m, n, dtype: [(list(m[0][0][:-1]) + [n, n], D.convert_dtype(dtype))],
                       differentiable=False, onnx_reason="not lowered yet")


def _perm_matrix(piv, n, dtype):
    return apply(PIVOTS_TO_PERM, (piv,), {"n": int(n), "dtype": D.convert_dtype(dtype).name})


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """Unpacks `lu`'s result: ``(P, L, U)`` with ``A = P @ L @ U``.

    Args:
        x: the packed LU matrices; y: the pivots.

    Example:
        >>> a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> p, l, u = oar.linalg.lu_unpack(*oar.linalg.lu(a))
        >>> (p @ l @ u).numpy().round(6).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    x = matrix_check(x, "lu_unpack")
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    p = l_ = u = None
    if unpack_ludata:
        from .indexing import slice as _slice
        low = tri(x, True, -1)
        low = _slice(low, [x.ndim - 1], [0], [k]) + const(_eye(m, k), x.dtype)
        u = _slice(tri(x, False), [x.ndim - 2], [0], [k])
        l_ = low
    if unpack_pivots:
        p = _perm_matrix(operand(y), m, x.dtype)
    return p, l_, u


__all__ = public_api(globals())
