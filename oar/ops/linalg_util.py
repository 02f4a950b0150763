"""Small matrix helpers for the linear-algebra gradient rules, built from existing ops (so they run eagerly, in
static programs and at higher orders): last-two-axes transpose, triangle masks, diagonals, identities."""
from .common import const, operand
from ..kernels.linalg import eye, tri_ones
from .manipulation import transpose, unsqueeze
from .reduction import sum


def mT(x):
    """Swaps the last two axes (the matrix transpose of a batch)."""
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def mH(x):
    """The conjugate transpose of a batch of matrices (the plain transpose for real ones)."""
    if x.dtype.kind != "c":
        return mT(x)
    from .complex import conj
    return conj(mT(x))


def tri(x, lower, k=0):
    """The lower (``tril(x, k)``) or upper (``triu(x, k)``) triangle of the last two axes, as a masked product."""
    m, n = x.shape[-2], x.shape[-1]
    mask = tri_ones(m, n, k, lower)
    return x * const(mask, x.dtype)


def eye_like(n, dtype):
    return const(eye(n), dtype)


def diag_embed(v):
    """Batch of diagonal matrices with the last axis of `v` on the diagonal."""
    return unsqueeze(v, -1) * eye_like(v.shape[-1], v.dtype)


def diagonal(x):
    """The main diagonal of each matrix of a (square) batch."""
    return sum(x * eye_like(x.shape[-1], x.dtype), axis=-1)


def float_operand(x):
    """Linear algebra is float math: integer and bool matrices are computed in the default float (float32, as
    `exp` of an int; NumPy's float64 leaked out of det/inv/solve/svd, Paddle has no integer kernels)."""
    x = operand(x)
    if x.dtype.kind in "iub":
        from ..core import dtype as D
        from .math import cast
        return cast(x, D.default_float())
    return x


def square_check(x, what):
    x = float_operand(x)
    if x.ndim < 2 or (x.shape[-1] != x.shape[-2] and -1 not in x.shape[-2:]):
        raise ValueError(f"{what} expects square matrices of shape [..., N, N], got shape {x.shape}")
    return x


def matrix_check(x, what):
    x = float_operand(x)
    if x.ndim < 2:
        raise ValueError(f"{what} expects matrices of shape [..., M, N], got shape {x.shape}")
    return x


def real_grad(name):
    """Marks a gradient rule written for real matrices (transposes, not conjugate transposes): complex inputs
    get a clear error instead of a wrong gradient."""
    def wrap(rule):
        def checked(g, out, *inputs, **attrs):
            if any(t.dtype.kind == "c" for t in inputs):
                raise NotImplementedError(f"the gradient of {name} for complex inputs is not implemented")
            return rule(g, out, *inputs, **attrs)
        checked.__name__ = rule.__name__
        return checked
    return wrap
