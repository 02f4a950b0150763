"""Linear systems and matrix functions (paddle.linalg): solve, triangular_solve, cholesky_solve, inv, pinv, lstsq,
matrix_exp, matrix_power, matrix_rank, multi_dot.

`solve`, `pinv` and `matrix_exp` are ops with gradient rules; the triangular and Cholesky solves, powers and chained
products are built from them, so their gradients come for free.
"""
import numpy as np

from ..core import dtype as D
from .common import public_api, operand
from .linalg import matmul, inverse
from .linalg_util import mT, mH, tri, eye_like, float_operand, square_check, matrix_check
from .manipulation import concat, unsqueeze, squeeze
from .math import unbroadcast
from ..kernels.linalg import expm as _expm, lstsq as _lstsq, matrix_rank as _matrix_rank, pinv as _pinv, solve as _solve
from .registry import apply, defop

_NO_ONNX = "no ONNX operator (linear algebra decompositions and solvers)"  # the onnx_reason of this family's ops


def _solve_infer(m):
    from .common import broadcast_shapes
    (xs, dt), (ys, _) = m
    return [(broadcast_shapes(xs[:-2], ys[:-2]) + [xs[-1], ys[-1]], dt)]


def _solve_grad(g, out, x, y):
    gy = apply(SOLVE, (mH(x), g))
    gx = -matmul(gy, mH(out))
    return unbroadcast(gx, x), unbroadcast(gy, y)


SOLVE = defop("solve", _solve, inputs=("x", "y"), infer=_solve_infer, grad=_solve_grad,
              onnx_reason=_NO_ONNX)


def solve(x, y, name=None):
    """Solves ``x @ out = y`` for square `x` ([..., N, N]); `y` is [..., N, K] or a vector [N].

    Example:
        >>> a = oar.to_tensor([[3.0, 1.0], [1.0, 2.0]])
        >>> oar.linalg.solve(a, oar.to_tensor([9.0, 8.0])).numpy().round(6).tolist()
        [2.0, 3.0]
    """
    x, y = square_check(x, "solve"), float_operand(y)
    if y.ndim == 1:
        return squeeze(apply(SOLVE, (x, unsqueeze(y, -1))), -1)
    return apply(SOLVE, (x, y))


def inv(x, name=None):
    """Inverse of square matrices (``paddle.linalg.inv``, the same op as ``paddle.inverse``).

    Example:
        >>> oar.linalg.inv(oar.to_tensor([[2.0, 0.0], [0.0, 4.0]])).numpy().tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """
    return inverse(square_check(x, "inv"))


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """Solves ``x @ out = y`` (``x^T @ out = y`` with `transpose`) reading only the triangle of `x` that `upper`
    names; `unitriangular` takes its diagonal as ones.

    Example:
        >>> a = oar.to_tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> oar.linalg.triangular_solve(a, oar.to_tensor([[4.0], [8.0]])).numpy().tolist()
        [[1.0], [2.0]]
    """
    x, y = square_check(x, "triangular_solve"), float_operand(y)
    n = x.shape[-1]
    a = tri(x, not upper, 1 if upper else -1) + eye_like(n, x.dtype) if unitriangular else tri(x, not upper)
    return apply(SOLVE, (mT(a) if transpose else a, y))


def cholesky_solve(x, y, upper=False, name=None):
    """Solves ``A @ out = x`` given the Cholesky factor `y` of A (lower, or upper with `upper`).

    Example:
        >>> l = oar.linalg.cholesky(oar.to_tensor([[4.0, 2.0], [2.0, 5.0]]))
        >>> oar.linalg.cholesky_solve(oar.to_tensor([[8.0], [9.0]]), l).numpy().tolist()
        [[1.375], [1.25]]
    """
    z = triangular_solve(y, x, upper=upper, transpose=upper)
    return triangular_solve(y, z, upper=upper, transpose=not upper)


# ---- pseudo-inverse --------------------------------------------------------------------------------------------------
def _pinv_grad(g, p, x, rcond, hermitian):
    # d(A+) for constant rank (Golub & Pereyra), turned into a gradient with conjugate transposes
    m, n = x.shape[-2], x.shape[-1]
    ph, gh = mH(p), mH(g)
    t1 = -matmul(matmul(ph, g), ph)
    t2 = matmul(matmul(eye_like(m, x.dtype) - matmul(x, p), gh), matmul(p, ph))
    t3 = matmul(matmul(ph, p), matmul(gh, eye_like(n, x.dtype) - matmul(p, x)))
    return t1 + t2 + t3


PINV = defop("pinv", _pinv, infer=lambda m, rcond, hermitian: [(list(m[0][0][:-2]) + [m[0][0][-1], m[0][0][-2]],
                                                                 m[0][1])], grad=_pinv_grad,
             onnx_reason=_NO_ONNX)


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Moore-Penrose pseudo-inverse (singular values below ``rcond * max(S)`` count as zero).

    Example:
        >>> oar.linalg.pinv(oar.to_tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])).numpy().tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.5, 0.0]]
    """
    return apply(PINV, (matrix_check(x, "pinv"),), {"rcond": float(rcond), "hermitian": bool(hermitian)})


# ---- least squares ---------------------------------------------------------------------------------------------------
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_infer(m, rcond, driver):
    from .common import broadcast_shapes
    (xs, dt), (ys, _) = m
    batch = broadcast_shapes(xs[:-2], ys[:-2])
    k = min(xs[-2], xs[-1]) if xs[-2] >= 0 and xs[-1] >= 0 else -1
    sv = [k] if driver in ("gelsd", "gelss") else [0]
    # residuals exist only for tall full-rank systems: a data-dependent size
    return [(batch + [xs[-1], ys[-1]], dt), (batch + [-1], dt), (batch, D.int32), (batch + sv, dt)]


LSTSQ = defop("lstsq", _lstsq, inputs=("x", "y"), outputs=("solution", "residuals", "rank", "singular_values"),
              infer=_lstsq_infer,
              differentiable=False, onnx_reason=_NO_ONNX)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least-squares solution of ``x @ out = y``: returns ``(solution, residuals, rank, singular_values)``
    (residuals only when M > N and x has full rank; singular values only for the 'gelsd'/'gelss' drivers).
    Not differentiable; for gradients use ``pinv(x) @ y``.

    Example:
        >>> x = oar.to_tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
        >>> sol, res, rank, sv = oar.linalg.lstsq(x, oar.to_tensor([[1.0], [2.0], [3.0]]))
        >>> sol.numpy().round(6).tolist(), rank.item()
        ([[1.0], [1.0]], 2)
    """
    x, y = matrix_check(x, "lstsq"), matrix_check(y, "lstsq")
    driver = driver or "gelsy"
    if driver not in _LSTSQ_DRIVERS:
        raise ValueError(f"lstsq driver must be one of {_LSTSQ_DRIVERS}, got {driver!r}")
    if rcond is None:
        rcond = float(np.finfo(D.np_dtype(x.dtype)).eps * max(x.shape[-2:]))
    return apply(LSTSQ, (x, y), {"rcond": float(rcond), "driver": driver})


# ---- matrix functions ------------------------------------------------------------------------------------------------
def _expm_grad(g, out, x):
    # the adjoint of the Frechet derivative: the top-right block of exp([[A^H, G], [0, A^H]])
    n = x.shape[-1]
    at = mH(x)
    top = concat([at, g], axis=-1)
    bottom = concat([g * 0.0, at], axis=-1)
    from .indexing import slice as _slice
    big = apply(MATRIX_EXP, (concat([top, bottom], axis=-2),))
    return _slice(big, [x.ndim - 2, x.ndim - 1], [0, n], [n, 2 * n])


MATRIX_EXP = defop("matrix_exp", _expm, infer=lambda m: [m[0]], grad=_expm_grad,
                   onnx_reason=_NO_ONNX)


def matrix_exp(x, name=None):
    """Matrix exponential of square matrices (SciPy's Pade approximation with scaling and squaring).

    Example:
        >>> oar.linalg.matrix_exp(oar.to_tensor([[0.0, 1.0], [0.0, 0.0]])).numpy().tolist()
        [[1.0, 1.0], [0.0, 1.0]]
    """
    return apply(MATRIX_EXP, (square_check(x, "matrix_exp"),))


def matrix_power(x, n, name=None):
    """``x`` multiplied by itself `n` times (n < 0 uses the inverse; n == 0 gives identities).

    Example:
        >>> oar.linalg.matrix_power(oar.to_tensor([[1.0, 1.0], [0.0, 1.0]]), 3).numpy().tolist()
        [[1.0, 3.0], [0.0, 1.0]]
    """
    x = square_check(x, "matrix_power")
    n = int(n)
    if n == 0:
        return x * 0.0 + eye_like(x.shape[-1], x.dtype)
    base = inverse(x) if n < 0 else x
    result, n = None, abs(n)
    while n:  # repeated squaring
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


MATRIX_RANK = defop("matrix_rank", _matrix_rank, infer=lambda m, tol, hermitian: [(list(m[0][0][:-2]), D.int64)],
                    differentiable=False, onnx_reason=_NO_ONNX)


def matrix_rank(x, tol=None, hermitian=False, name=None):
    """Number of singular values above `tol` (default ``max(S) * max(M, N) * eps``), as int64.

    Example:
        >>> oar.linalg.matrix_rank(oar.to_tensor([[1.0, 2.0], [2.0, 4.0]])).item()
        1
    """
    x = matrix_check(x, "matrix_rank")
    if tol is not None and not isinstance(tol, (int, float)):
        tol = float(operand(tol).numpy())  # a Paddle Tensor tolerance (eager)
    return apply(MATRIX_RANK, (x,), {"tol": None if tol is None else float(tol), "hermitian": bool(hermitian)})


def multi_dot(x, name=None):
    """Product of a list of matrices (first/last may be vectors), multiplied in the cheapest order.

    Example:
        >>> a, b, c = oar.ones([2, 3]), oar.ones([3, 4]), oar.ones([4])
        >>> oar.linalg.multi_dot([a, b, c]).numpy().tolist()
        [12.0, 12.0]
    """
    xs = [operand(t) for t in x]
    if len(xs) < 2:
        raise ValueError(f"multi_dot needs at least 2 tensors, got {len(xs)}")
    for i, t in enumerate(xs):
        if not (t.ndim == 2 or (t.ndim == 1 and i in (0, len(xs) - 1))):
            raise ValueError(f"multi_dot: tensor {i} has shape {t.shape}; only the first and last may be 1-D, "
                             "the others must be 2-D")
    first_vec, last_vec = xs[0].ndim == 1, xs[-1].ndim == 1
    if first_vec:
        xs[0] = unsqueeze(xs[0], 0)
    if last_vec:
        xs[-1] = unsqueeze(xs[-1], -1)
    out = _chain(xs, _chain_order([t.shape[0] for t in xs] + [xs[-1].shape[1]]), 0, len(xs) - 1)
    if first_vec:
        out = squeeze(out, 0)
    if last_vec:
        out = squeeze(out, -1)
    return out


def _chain_order(dims):
    """The classic matrix-chain dynamic program: split[i][j] is where to split the product of matrices i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(xs, split, i, j):
    if i == j:
        return xs[i]
    k = split[i][j]
    return matmul(_chain(xs, split, i, k), _chain(xs, split, k + 1, j))


__all__ = public_api(globals())
