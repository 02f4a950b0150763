"""Op-table rows for the Paddle 2.x breadth families (special, complex, stat, matrix, rearrange, in-place forms);
imported at the end of `op_table.py`, so every test driven by the table (forward vs NumPy/SciPy, float64 finite
differences, infer_meta, static == eager) covers them."""
import itertools

import numpy as np
import scipy.special as sp

import oar
from op_table import R, add, distinct, ints, pos, randn, unit

__all__ = []  # `op_table` imports this module for its rows only
U = [(3, 4), (2, 3, 4), ()]


def unary(name, fn, ref, gen=randn, **kw):
    add(name, fn, ref, *[(gen(*s),) for s in U], **kw)


def _npf(f):
    return lambda x: np.asarray(f(x), dtype=x.dtype)


def _run_index(x, f):
    run = f.accumulate(x, 1)
    return np.maximum.accumulate(np.where(x == run, np.arange(x.shape[1]), 0), 1)


def _np_diag_embed(x):
    out = np.zeros((3, 2, 3))
    for b in range(2):
        for i in range(3):
            out[i, b, i] = x[b, i]
    return out


def _np_renorm(x, p, axis, max_norm):
    norms = (np.abs(x) ** p).sum(axis=1, keepdims=True) ** (1 / p)
    return x * np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)


def _np_set(x, i, v):
    y = x.copy()
    y[i] = v
    return y


def _np_add_at(x, i, v):
    y = x.copy()
    np.add.at(y, i, v)
    return y


def _np_unique_consecutive(x):
    keep = np.concatenate([[True], x[1:] != x[:-1]])
    starts = np.flatnonzero(keep)
    return x[keep], np.cumsum(keep) - 1, np.diff(np.append(starts, x.size))


# ---- special functions ---------------------------------------------------------------------------------------
unary("lgamma", oar.lgamma, _npf(sp.gammaln), gen=pos)
unary("digamma", oar.digamma, _npf(sp.digamma), gen=pos)
add("digamma_negative", oar.digamma, sp.digamma, (np.array([-0.5, -1.5, -2.3, 0.1, 7.5, 30.0]),), rtol=1e-10)
add("polygamma_1", lambda x: oar.polygamma(x, 1), lambda x: sp.polygamma(1, x), (pos(3, 4),))
add("polygamma_0", lambda x: oar.polygamma(x, 0), sp.digamma, (pos(3),), grad=False)
unary("erfinv", oar.erfinv, _npf(sp.erfinv), gen=unit)
for _n in ("i0", "i0e", "i1", "i1e"):
    unary(_n, getattr(oar, _n), _npf(getattr(sp, _n)))
add("i1_at_zero", oar.i1, sp.i1, (np.array([0.0, 1.0]),))
unary("asinh", oar.asinh, np.arcsinh)
unary("acosh", oar.acosh, np.arccosh, gen=lambda *s: 1.5 + pos(*s))
unary("atanh", oar.atanh, np.arctanh, gen=unit)
unary("logit", oar.logit, _npf(sp.logit), gen=lambda *s: R.uniform(0.1, 0.9, s))
add("logit_eps", lambda x: oar.logit(x, eps=0.2), lambda x: sp.logit(np.clip(x, 0.2, 0.8)),
    (R.uniform(0.05, 0.95, (3, 4)),))
unary("stanh", lambda x: oar.stanh(x, 0.5, 2.0), lambda x: 2.0 * np.tanh(0.5 * x))
unary("frac", oar.frac, lambda x: x - np.trunc(x))
unary("rad2deg", oar.rad2deg, np.rad2deg)
unary("deg2rad", oar.deg2rad, np.deg2rad)
add("deg2rad_int", oar.deg2rad, lambda x: np.deg2rad(x).astype(np.float32), (ints(360, 4),), rtol=1e-6)
add("lerp", lambda x, y: oar.lerp(x, y, 0.3), lambda x, y: x + 0.3 * (y - x), (randn(3, 4), randn(4)))
add("lerp_tensor_weight", oar.lerp, lambda x, y, w: x + w * (y - x), (randn(3, 4), randn(3, 4), unit(3, 4)))
add("logaddexp", oar.logaddexp, np.logaddexp, (randn(3, 4), randn(3, 4)), (randn(3, 1) * 50, randn(4)))
add("heaviside", oar.heaviside, np.heaviside, (np.array([-1.0, 0.0, 2.0, 0.0]), randn(4)), diff=(1,))
add("nextafter", oar.nextafter, np.nextafter, (randn(3, 4), randn(3, 4)), grad=False)
add("ldexp", oar.ldexp, lambda x, e: x * 2.0 ** e, (randn(3, 4), ints(4, 3, 4)))
add("frexp", oar.frexp, lambda x: tuple(a.astype(x.dtype) for a in np.frexp(x)), (randn(3, 4) * 100,), grad=False)
add("gcd", oar.gcd, np.gcd, (ints(30, 3, 4), ints(30, 4)))
add("lcm", oar.lcm, np.lcm, (ints(30, 3, 4), ints(30, 3, 4)))
add("sgn_real", oar.sgn, np.sign, (randn(3, 4),))

# ---- complex ----------------------------------------------------------------------------------------------------
_z = randn(3, 4) + 1j * randn(3, 4)
add("real", oar.real, np.real, (_z,))
add("imag", oar.imag, np.imag, (_z,))
add("conj", oar.conj, np.conj, (_z,))
add("angle", oar.angle, np.angle, (_z,), (randn(5),))
add("complex", oar.complex, lambda a, b: a + 1j * b, (randn(3, 4), randn(4)))
add("complex_parts_grad", lambda a, b: oar.real(oar.complex(a, b)) * oar.imag(oar.complex(b, a)),
    lambda a, b: a * a, (randn(3, 4), randn(3, 4)))
add("as_real_as_complex_grad", lambda x: oar.as_real(oar.as_complex(x) * 1.0), lambda x: x * 1.0, (randn(3, 2),))
add("as_complex", oar.as_complex, lambda x: x[..., 0] + 1j * x[..., 1], (randn(3, 4, 2),))
add("as_real", oar.as_real, lambda z: np.stack([z.real, z.imag], -1), (_z,))
add("polar", oar.polar, lambda r, t: r * np.exp(1j * t), (pos(3), randn(3)), rtol=1e-12)
add("sgn_complex", oar.sgn, lambda z: z / np.abs(z), (_z,))

# ---- statistics -----------------------------------------------------------------------------------------------
add("quantile", lambda x: oar.quantile(x, 0.3, axis=1), lambda x: np.quantile(x, 0.3, axis=1), (distinct(3, 5),))
add("quantile_list_keepdim", lambda x: oar.quantile(x, [0.25, 0.9], axis=[0, 2], keepdim=True),
    lambda x: np.quantile(x, [0.25, 0.9], axis=(0, 2), keepdims=True), (distinct(2, 3, 4),))
for _i in ("lower", "higher", "nearest", "midpoint"):
    add(f"quantile_{_i}", (lambda m: lambda x: oar.quantile(x, 0.4, axis=-1, interpolation=m))(_i),
        (lambda m: lambda x: np.quantile(x, 0.4, axis=-1, method=m))(_i), (distinct(3, 6),))
add("quantile_all", lambda x: oar.quantile(x, 0.5), lambda x: np.quantile(x, 0.5), (distinct(3, 4),))
add("quantile_nan", lambda x: oar.quantile(x, 0.5, axis=1), lambda x: np.quantile(x, 0.5, axis=1),
    (np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 4.0]]),), grad=False)
_xn = distinct(3, 5)
_xn[0, 1] = _xn[2, 4] = _xn[2, 0] = np.nan
add("nanquantile", lambda x: oar.nanquantile(x, [0.2, 0.5], axis=1),
    lambda x: np.nanquantile(x, [0.2, 0.5], axis=1), (_xn,))
add("median", lambda x: oar.median(x, axis=0), lambda x: np.median(x, axis=0), (distinct(4, 3),), (distinct(5, 2),))
add("median_min", lambda x: oar.median(x, axis=1, mode="min")[0], lambda x: np.sort(x, 1)[:, 1], (distinct(3, 4),))
add("nanmedian", lambda x: oar.nanmedian(x, axis=1, keepdim=True), lambda x: np.nanmedian(x, axis=1, keepdims=True),
    (_xn,))
_xm = np.array([[1.0, 2.0, 2.0, 3.0, 3.0], [5.0, 4.0, 4.0, 4.0, 1.0]])
# ties decide the mode, so finite differences cannot check it (its gradient is take_along_axis's, checked elsewhere)
add("mode", lambda x: oar.mode(x), lambda x: (np.array([2.0, 4.0]), np.array([2, 3])), (_xm,), grad=False)
add("mode_axis0", lambda x: oar.mode(x, axis=0, keepdim=True)[0], lambda x: np.min(x, 0, keepdims=True), (_xm,),
    grad=False)
add("cummax", lambda x: oar.cummax(x, axis=1), lambda x: (np.maximum.accumulate(x, 1), _run_index(x, np.maximum)),
    (distinct(3, 5),))
add("cummin", lambda x: oar.cummin(x, axis=1), lambda x: (np.minimum.accumulate(x, 1), _run_index(x, np.minimum)),
    (distinct(3, 5),))
add("cummax_flat", lambda x: oar.cummax(x)[0], lambda x: np.maximum.accumulate(x.reshape(-1)), (distinct(2, 3),))
add("logcumsumexp", lambda x: oar.logcumsumexp(x, axis=1), lambda x: np.logaddexp.accumulate(x, 1),
    (randn(3, 4),), (randn(2, 3) * 300,))
add("logcumsumexp_flat", oar.logcumsumexp, lambda x: np.logaddexp.accumulate(x.reshape(-1)), (randn(2, 3),))
add("nansum", lambda x: oar.nansum(x, axis=1), lambda x: np.nansum(x, 1), (_xn,))
add("nanmean", lambda x: oar.nanmean(x), lambda x: np.asarray(np.nanmean(x)), (_xn,))
add("count_nonzero", lambda x: oar.count_nonzero(x, axis=0), lambda x: np.count_nonzero(x, 0), (ints(2, 3, 4),))
add("diff", oar.diff, np.diff, (randn(3, 5),))
add("diff_n2_axis0_prepend", lambda x, p: oar.diff(x, n=2, axis=0, prepend=p),
    lambda x, p: np.diff(x, 2, 0, prepend=p), (randn(4, 3), randn(1, 3)))
add("trapezoid", lambda y: oar.trapezoid(y, dx=0.5), lambda y: np.trapezoid(y, dx=0.5), (randn(3, 5),))
add("trapezoid_x", lambda y, x: oar.trapezoid(y, x=x, axis=0), lambda y, x: np.trapezoid(y, x=x, axis=0),
    (randn(5, 3), np.sort(randn(5))))
add("cumulative_trapezoid", oar.cumulative_trapezoid,
    lambda y: np.cumsum((y[..., 1:] + y[..., :-1]) / 2, -1), (randn(3, 5),))
add("histogram", lambda x: oar.histogram(x, bins=5, min=-1, max=1),
    lambda x: np.histogram(x, 5, (-1, 1))[0], (randn(20),))
add("histogram_range_from_data", lambda x: oar.histogram(x, bins=4), lambda x: np.histogram(x, 4)[0], (randn(9),))
add("bincount", oar.bincount, np.bincount, (ints(6, 10),), tags=("dynamic_shape",))
add("bincount_weights", lambda x, w: oar.bincount(x, w, minlength=8), lambda x, w: np.bincount(x, w, 8),
    (ints(6, 10), randn(10)), grad=False, tags=("dynamic_shape",))
add("bucketize", lambda x, s: oar.bucketize(x, s, right=True), lambda x, s: np.searchsorted(s, x, side="right"),
    (randn(3, 4), np.sort(randn(5))))


# ---- matrices ------------------------------------------------------------------------------------------------------
add("tril", lambda x: oar.tril(x, -1), lambda x: np.tril(x, -1), (randn(4, 5),), (randn(2, 3, 3),))
add("triu", lambda x: oar.triu(x, 1), lambda x: np.triu(x, 1), (randn(4, 5),), (randn(2, 3, 3),))
add("tril_indices", lambda: oar.tril_indices(4, 3, -1), lambda: np.stack(np.tril_indices(4, -1, 3)), ())
add("triu_indices", lambda: oar.triu_indices(3, 4, 1), lambda: np.stack(np.triu_indices(3, 1, 4)), ())
add("diagonal", lambda x: oar.diagonal(x, 1, 0, 2), lambda x: np.diagonal(x, 1, 0, 2), (randn(3, 2, 4),))
add("diagonal_neg", lambda x: oar.diagonal(x, -1), lambda x: np.diagonal(x, -1), (randn(4, 3),))
add("diag_vector", lambda x: oar.diag(x, -1), lambda x: np.diag(x, -1), (randn(3),))
add("diag_padding", lambda x: oar.diag(x, padding_value=7.0), lambda x: np.diag(x) + 7.0 * (1 - np.eye(3)),
    (randn(3),))
add("diag_matrix", lambda x: oar.diag(x, 1), lambda x: np.diag(x, 1), (randn(3, 4),))
add("diagflat", lambda x: oar.diagflat(x, 1), lambda x: np.diagflat(x, 1), (randn(2, 2),))
add("diag_embed", lambda x: oar.diag_embed(x, 0, 0, 2), _np_diag_embed, (randn(2, 3),))
add("trace", lambda x: oar.trace(x, 1), lambda x: np.asarray(np.trace(x, 1)), (randn(3, 4),))
add("kron", oar.kron, np.kron, (randn(2, 3), randn(3, 2)), (randn(3), randn(2, 2)))
add("tensordot", oar.tensordot, np.tensordot, (randn(2, 3, 4), randn(3, 4, 2)))
add("tensordot_axes", lambda x, y: oar.tensordot(x, y, [[0, 2], [1, 0]]),
    lambda x, y: np.tensordot(x, y, [[0, 2], [1, 0]]), (randn(2, 3, 4), randn(4, 2, 5)))
add("tensordot_same_axes", lambda x, y: oar.tensordot(x, y, [0, 2]),
    lambda x, y: np.tensordot(x, y, [[0, 2], [0, 2]]), (randn(2, 3, 4), randn(2, 5, 4)))
add("inner", oar.inner, np.inner, (randn(2, 4), randn(3, 4)), (randn(4), randn(4)))
add("mv", oar.mv, np.matmul, (randn(3, 4), randn(4)))
add("addmm", lambda i, x, y: oar.addmm(i, x, y, beta=0.5, alpha=2.0), lambda i, x, y: 0.5 * i + 2 * x @ y,
    (randn(3, 2), randn(3, 4), randn(4, 2)))
add("dist", lambda x, y: oar.dist(x, y, 3), lambda x, y: np.asarray(np.sum(np.abs(x - y) ** 3) ** (1 / 3)),
    (randn(3, 4), randn(4)))
add("dist_inf", lambda x, y: oar.dist(x, y, float("inf")), lambda x, y: np.asarray(np.abs(x - y).max()),
    (distinct(3, 4), np.zeros(4)))
add("cdist", oar.cdist, lambda x, y: np.sqrt(((x[:, None] - y[None]) ** 2).sum(-1)), (randn(3, 4), randn(5, 4)))
add("cdist_p1_batch", lambda x, y: oar.cdist(x, y, p=1.0), lambda x, y: np.abs(x[:, :, None] - y[:, None]).sum(-1),
    (randn(2, 3, 4), randn(2, 2, 4)))
add("renorm", lambda x: oar.renorm(x, 2, 0, 1.5), lambda x: _np_renorm(x, 2, 0, 1.5), (randn(3, 4),))
add("vander", lambda x: oar.vander(x, 4), lambda x: np.vander(x, 4), (randn(3),))
add("vander_increasing", lambda x: oar.vander(x, increasing=True), lambda x: np.vander(x, increasing=True),
    (randn(4),))


# ---- rearranging ----------------------------------------------------------------------------------------------------
add("tensor_split", lambda x: oar.tensor_split(x, 3, axis=1), lambda x: tuple(np.array_split(x, 3, 1)),
    (randn(2, 7),))
add("tensor_split_indices", lambda x: oar.tensor_split(x, [1, 3]), lambda x: tuple(np.split(x, [1, 3])),
    (randn(5, 2),))
add("hsplit", lambda x: oar.hsplit(x, 2), lambda x: tuple(np.hsplit(x, 2)), (randn(3, 4),))
add("vsplit", lambda x: oar.vsplit(x, [1]), lambda x: tuple(np.vsplit(x, [1])), (randn(3, 4),))
add("dsplit", lambda x: oar.dsplit(x, 2), lambda x: tuple(np.dsplit(x, 2)), (randn(2, 3, 4),))
add("copysign", oar.copysign, np.copysign, (randn(3, 4), randn(4)), (randn(2, 3), np.array([-0.0, 0.0, 2.0])),
    diff=(0,))
add("copysign_int", oar.copysign, lambda x, y: np.where(y < 0, -np.abs(x), np.abs(x)).astype(np.int32),
    (np.array([1, -2, 3, 0], np.int32), np.array([-1, 0, 5, -3], np.int32)))
def _np_segment(x, ids, reduce):
    out = np.zeros((ids.max() + 1,) + x.shape[1:], x.dtype)
    for k in range(ids.max() + 1):
        if (ids == k).any():
            out[k] = reduce(x[ids == k], axis=0)
    return out


_SEG = (distinct(6, 3), np.array([0, 0, 1, 3, 3, 3]))
for _kind, _reduce in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)):
    add(f"segment_{_kind}", getattr(oar.geometric, f"segment_{_kind}"),
        lambda x, i, _r=_reduce: _np_segment(x, i, _r), _SEG, diff=(0,))
add("hstack", lambda a, b: oar.hstack([a, b]), lambda a, b: np.hstack([a, b]), (randn(3, 2), randn(3, 4)),
    (randn(2), randn(3)))
add("vstack", lambda a, b: oar.vstack([a, b]), lambda a, b: np.vstack([a, b]), (randn(3), randn(2, 3)))
add("row_stack", lambda a, b: oar.row_stack([a, b]), lambda a, b: np.vstack([a, b]), (randn(2, 3), randn(1, 3)))
add("dstack", lambda a, b: oar.dstack([a, b]), lambda a, b: np.dstack([a, b]), (randn(3), randn(3)),
    (randn(2, 3), randn(2, 3, 2)))
add("column_stack", lambda a, b: oar.column_stack([a, b]), lambda a, b: np.column_stack([a, b]),
    (randn(3), randn(3, 2)))
add("atleast_3d", lambda a, b: oar.atleast_3d(a, b), lambda a, b: tuple(np.atleast_3d(a, b)), (randn(3), randn(2, 3)))
add("atleast_2d", lambda a: oar.atleast_2d(a), np.atleast_2d, (randn(3),))
add("atleast_1d", lambda a: oar.atleast_1d(a), np.atleast_1d, (np.float64(1.5),))
add("unflatten", lambda x: oar.unflatten(x, 1, [2, -1]), lambda x: x.reshape(3, 2, 2), (randn(3, 4),))
add("view", lambda x: oar.view(x, [4, 3]), lambda x: x.reshape(4, 3), (randn(3, 4),))
add("view_dtype", lambda x: oar.view(x, "int64"), lambda x: x.view(np.int64), (randn(3, 4),))
add("view_as", oar.view_as, lambda x, y: x.reshape(y.shape), (randn(3, 4), randn(2, 6)), diff=(0,))
add("unfold", lambda x: oar.unfold(x, 1, 3, 2), lambda x: np.lib.stride_tricks.sliding_window_view(
    x, 3, axis=1)[:, ::2], (randn(2, 7, 3),))
add("as_strided", lambda x: oar.as_strided(x, [3, 4], [2, 1], 1), lambda x: np.lib.stride_tricks.as_strided(
    x.reshape(-1)[1:], (3, 4), (16, 8)).copy(), (randn(3, 4),))
add("meshgrid", lambda a, b, c: oar.meshgrid(a, b, c), lambda a, b, c: tuple(np.meshgrid(a, b, c, indexing="ij")),
    (randn(2), randn(3), randn(4)))
add("broadcast_tensors", lambda a, b: oar.broadcast_tensors([a, b]), lambda a, b: tuple(np.broadcast_arrays(a, b)),
    (randn(3, 1), randn(4)))
add("crop", lambda x: oar.crop(x, [2, -1], [1, 1]), lambda x: x[1:3, 1:], (randn(4, 5),))
add("multiplex", lambda a, b, i: oar.multiplex([a, b], i), lambda a, b, i: np.where(i == 0, a, b),
    (randn(3, 4), randn(3, 4), np.array([[1], [0], [1]])))
add("index_sample", oar.index_sample, lambda x, i: np.take_along_axis(x, i, 1), (randn(3, 5), ints(5, 3, 4)))
add("index_put", lambda x, i, j, v: oar.index_put(x, (i, j), v),
    lambda x, i, j, v: _np_set(x, (i, j), v), (randn(3, 4), np.array([0, 2]), np.array([1, 3]), randn(2)))
add("index_put_accumulate", lambda x, i, v: oar.index_put(x, (i,), v, accumulate=True),
    lambda x, i, v: _np_add_at(x, i, v), (randn(3, 4), np.array([0, 2, 0]), randn(3, 4)))
add("take", lambda x, i: oar.take(x, i), lambda x, i: np.take(x, i), (randn(3, 4), np.array([[0, 11], [-1, 5]])))
add("take_wrap", lambda x, i: oar.take(x, i, mode="wrap"), lambda x, i: np.take(x, i, mode="wrap"),
    (randn(3, 4), np.array([13, -14, 2])))
add("take_clip", lambda x, i: oar.take(x, i, mode="clip"), lambda x, i: np.take(x, i, mode="clip"),
    (randn(3, 4), np.array([13, -14, 2])))
add("shard_index", lambda x: oar.shard_index(x, 20, 2, 1), lambda x: np.where(x // 10 == 1, x % 10, -1),
    (ints(20, 4, 1),))
add("unique_consecutive", lambda x: oar.unique_consecutive(x, True, True),
    lambda x: _np_unique_consecutive(x), (np.array([1, 1, 2, 2, 2, 3, 1, 1]),), tags=("dynamic_shape",))
add("logspace", lambda: oar.logspace(0, 3, 4, base=2.0), lambda: np.logspace(0, 3, 4, base=2.0).astype(np.float32), ())


def _np_fill_diagonal(x, value, offset, wrap):
    """Paddle's placement: NumPy's main diagonal (wrapping as NumPy's `wrap`), each entry moved by `offset` along
    its row when that stays in the row."""
    main = np.zeros(x.shape, bool)
    np.fill_diagonal(main, True, wrap=wrap)
    y = x.copy()
    for r, c in np.argwhere(main):
        if 0 <= c + offset < x.shape[1]:
            y[r, c + offset] = value
    return y


# ---- in-place forms: the gradient flows through the rewritten tensor ---------------------------------------------
add("tanh_inplace", lambda x: oar.tanh_(x * 1.0), np.tanh, (randn(3, 4),))
add("lgamma_inplace_method", lambda x: (x * 1.0).lgamma_(), sp.gammaln, (pos(3, 4),))
add("fill_diagonal_inplace", lambda x: (x * 1.0).fill_diagonal_(2.5, offset=-1),
    lambda x: _np_fill_diagonal(x, 2.5, -1, False), (randn(4, 3),))
add("fill_diagonal_inplace_wrap", lambda x: (x * 1.0).fill_diagonal_(-1.0, offset=1, wrap=True),
    lambda x: _np_fill_diagonal(x, -1.0, 1, True), (randn(7, 3),))
add("tril_inplace", lambda x: oar.tril_(x * 1.0), np.tril, (randn(3, 4),))
add("where_inplace", lambda c, x, y: oar.where_(c, x * 1.0, y), np.where, (randn(3, 4) > 0, randn(3, 4), randn(4)))
add("index_put_inplace", lambda x, v: (x * 1.0).index_put_((oar.to_tensor([1]),), v),
    lambda x, v: _np_set(x, ([1],), v), (randn(3, 4), randn(4)))


# ---- Paddle 3 tensor ops: shifts, hypot, index_fill, masked_scatter, cartesian_prod, combinations -------------------

def _np_shift(x, y, left, arithmetic=True):
    """Paddle's shifts element by element with Python ints: a count outside [0, bits) shifts every bit out."""
    bits = x.dtype.itemsize * 8
    low, span = (0, 1 << bits) if x.dtype.kind == "u" else (-(1 << (bits - 1)), 1 << bits)

    def one(a, b):
        a, b = int(a), int(b)
        if not 0 <= b < bits:
            return -1 if (not left and arithmetic and a < 0) else 0
        if left:
            v = a << b
        elif arithmetic:
            v = a >> b
        else:
            v = (a % span) >> b
        return (v - low) % span + low
    return np.vectorize(one, otypes=[x.dtype])(*np.broadcast_arrays(x, y))


_SHIFT_INPUTS = [(np.array([[-9, 5, 7, -1]], "int64"), np.array([[1], [0], [63], [64], [-1]], "int64")),
                 (np.array([-128, -3, 100, 1], "int8"), np.array([1, 7, 8, 3], "int8")),
                 (np.array([200, 3, 255], "uint8"), np.array([1, 9, 7], "uint8")),
                 (np.array([-2147483648, 5], "int32"), np.array([31, 2], "int32"))]
add("bitwise_left_shift", oar.bitwise_left_shift, lambda x, y: _np_shift(x, y, True), *_SHIFT_INPUTS)
add("bitwise_right_shift", oar.bitwise_right_shift, lambda x, y: _np_shift(x, y, False), *_SHIFT_INPUTS)
add("bitwise_right_shift_logical", lambda x, y: oar.bitwise_right_shift(x, y, is_arithmetic=False),
    lambda x, y: _np_shift(x, y, False, False), *_SHIFT_INPUTS)
add("shift_operators", lambda x, y: ((x << y) >> 1, 3 << y, 100 >> y),
    lambda x, y: (_np_shift(_np_shift(x, y, True), np.ones_like(y), False), _np_shift(np.full_like(y, 3), y, True),
                  _np_shift(np.full_like(y, 100), y, False)), (np.array([-9, 5, 7], "int64"), np.array([1, 2, 70])))
add("hypot", oar.hypot, np.hypot, (randn(3, 4), pos(3, 4)), (randn(2, 3, 4), pos(4)), (pos(3, 1), randn(1, 4)))
add("hypot_int", oar.hypot, lambda x, y: np.hypot(x, y).astype(np.float32), (np.array([3, 5]), np.array([4, 12])),
    rtol=1e-6)
add("hypot_inplace", lambda x, y: oar.hypot_(x * 1.0, y), np.hypot, (randn(3, 4), pos(4)))


def _np_index_fill(x, index, axis, value):
    out = np.moveaxis(x.copy(), axis, 0)
    out[index.reshape(-1)] = value
    return np.moveaxis(out, 0, axis)


def _np_masked_scatter(x, mask, value):
    out = np.broadcast_to(x, np.broadcast_shapes(x.shape, mask.shape)).copy()
    mask = np.broadcast_to(mask, out.shape)
    out[mask] = value.reshape(-1)[:mask.sum()]
    return out


add("index_fill", lambda x, i: oar.index_fill(x, i, 0, 2.5), lambda x, i: _np_index_fill(x, i, 0, 2.5),
    (randn(4, 3), np.array([0, -1, 0])), (randn(4, 3), np.array([[2]])))
add("index_fill_tensor", lambda x, i, v: oar.index_fill(x, i, -1, v), lambda x, i, v: _np_index_fill(x, i, 2, v),
    (randn(2, 3, 4), np.array([1, 3], "int32"), randn()))
add("index_fill_int", lambda x, i: x.index_fill(i, 1, 2.7), lambda x, i: _np_index_fill(x, i, 1, 2),
    (ints(9, 3, 4), np.array([3])))
add("index_fill_inplace", lambda x, i: oar.index_fill_(x * 1.0, i, 1, -1.0),
    lambda x, i: _np_index_fill(x, i, 1, -1.0), (randn(3, 4), np.array([0, 2])))
add("masked_scatter", oar.masked_scatter, _np_masked_scatter, (randn(3, 4), randn(3, 4) > 0, randn(12)),
    (randn(1, 4), randn(3, 4) > 0, randn(3, 5)), (randn(3, 4), randn(4) > 0, randn(14)))
add("masked_scatter_inplace", lambda x, m, v: (x * 1.0).masked_scatter_(m, v), _np_masked_scatter,
    (randn(3, 4), randn(3, 4) > 0, randn(12)))
add("cartesian_prod", lambda a, b, c: oar.cartesian_prod([a, b, c]),
    lambda a, b, c: np.array(list(itertools.product(a, b, c))), (randn(2), randn(3), randn(4)))
add("combinations", lambda x: oar.combinations(x, 3), lambda x: np.array(list(itertools.combinations(x, 3))),
    (randn(5),))
add("combinations_replacement", lambda x: x.combinations(with_replacement=True),
    lambda x: np.array(list(itertools.combinations_with_replacement(x, 2))), (randn(4),))
_SPECIAL = np.array([-np.inf, np.inf, np.nan, -np.nan, -0.0, 0.0, -2.5, 3.0])
add("isneginf", oar.isneginf, np.isneginf, (_SPECIAL,), (np.array([-3, 4]),))
add("isposinf", oar.isposinf, np.isposinf, (_SPECIAL,), (np.array([-3, 4]),))
add("isreal", oar.isreal, np.isreal, (_SPECIAL,), (np.array([1 + 0j, 1j, np.nan + 0j]),))
add("signbit", oar.signbit, np.signbit, (_SPECIAL,), (np.array([-3, 4]),), (np.array([200, 0], "uint8"),))
add("sinc", oar.sinc, np.sinc, (randn(3, 4),), (np.array([0.0, 0.5, 1.0, -1.5, 1e-3]),))
# (no gradient row: sinc is composed, and its `where` keeps x, which sinc_ then changes: backward refuses)
add("sinc_inplace", lambda x: oar.sinc_(x * 1.0), np.sinc, (randn(3, 4),), grad=False)
add("bitwise_invert", oar.bitwise_invert, np.invert, (ints(9, 3, 4),), (randn(4) > 0,))
for _n, _r in [("eq", np.equal), ("ne", np.not_equal), ("gt", np.greater), ("ge", np.greater_equal),
               ("lt", np.less), ("le", np.less_equal), ("greater", np.greater), ("less", np.less)]:
    add(_n, getattr(oar, _n), _r, (ints(3, 3, 4), ints(3, 4)))
add("matrix_transpose", oar.matrix_transpose, lambda x: np.swapaxes(x, -1, -2), (randn(2, 3, 4),), (randn(3, 5),))
add("ravel", oar.ravel, np.ravel, (randn(2, 3, 4),), (randn(),))
add("msort", oar.msort, lambda x: np.sort(x, 0), (distinct(4, 3),))
add("argwhere", oar.argwhere, np.argwhere, (randn(3, 4) > 0,), tags=("dynamic_shape",))
add("negative", oar.negative, np.negative, (randn(3, 4),), (ints(5, 3),))
add("positive", oar.positive, np.positive, (randn(3, 4),))
add("reduce_as", oar.reduce_as, lambda x, t: x.sum(axis=(0, 2), keepdims=True)[0], (randn(2, 3, 4), randn(3, 1)),
    diff=(0,))
add("ger", oar.ger, np.outer, (randn(3), randn(4)))
add("vecdot", lambda x, y: oar.vecdot(x, y, axis=0), lambda x, y: (x * y).sum(0), (randn(3, 4), randn(3, 1)))
add("gammaln_inplace", lambda x: oar.gammaln_(x * 1.0), sp.gammaln, (pos(3, 4),), grad=False)
add("reflected_and_xor", lambda x: (6 & x, 6 ^ x, True & (x > 2), True ^ (x > 2)),
    lambda x: (6 & x, 6 ^ x, x > 2, ~(x > 2)), (ints(9, 3, 4),))
add("cat", lambda a, b: oar.cat([a, b], axis=1), lambda a, b: np.concatenate([a, b], 1), (randn(2, 3), randn(2, 2)))
add("concatenate", lambda a, b: oar.concatenate([a, b]), lambda a, b: np.concatenate([a, b]),
    (randn(2, 3), randn(1, 3)))
add("clamp", lambda x: oar.clamp(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), (randn(3, 4),))
add("clamp_inplace", lambda x: (x * 1.0).clamp_(max=0.2), lambda x: np.minimum(x, 0.2), (randn(3, 4),))
add("mul", oar.mul, np.multiply, (randn(3, 4), randn(4)))
add("mul_inplace", lambda x, y: (x * 1.0).mul_(y), np.multiply, (randn(3, 4), randn(4)))
add("true_divide", oar.true_divide, np.true_divide, (randn(3, 4), pos(4)), (np.array([7, -7]), np.array([2, 2])))
add("permute", lambda x: x.permute(2, 0, 1), lambda x: x.transpose(2, 0, 1), (randn(2, 3, 4),))
add("swapaxes", lambda x: oar.swapaxes(x, 0, -1), lambda x: np.swapaxes(x, 0, -1), (randn(2, 3, 4),))
add("swapdims", lambda x: x.swapdims([1, 0]), lambda x: x.T, (randn(2, 3),))
