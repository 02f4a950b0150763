"""Statistics and cumulative ops beyond the plain reductions: median/quantile and their NaN-ignoring forms, mode,
cummax/cummin, logcumsumexp, nansum/nanmean, count_nonzero, diff, trapezoid rules, histogram, bincount, bucketize.

Most are composed from sort / take_along_axis / cumsum, so they get gradients, static mode and export for free;
only the index-producing kernels (mode, cummax/cummin, histogram, bincount) are ops of their own."""

from ..core import dtype as D
from .creation import full
from .common import infer_same, norm_axis, norm_axis1, operand, public_api
from .indexing import take_along_axis
from .logic import any as _any
from .manipulation import concat, flatten, reshape, squeeze, stack, transpose, unsqueeze
from .math import cast, exp, floor, isnan, minimum, maximum, round as _round, where, zeros_like
from .reduction import cumsum, max as _max, sum as _sum
from .registry import apply, defop
from .search import searchsorted, sort
from ..kernels.stat import (bincount as _bincount, cum_index as _cum_index, histogram as _histogram,
                            logcumsumexp as _logcumsumexp, logcumsumexp_grad as _logcumsumexp_grad_impl,
                            median_lower_index as _median_lower_index, mode_index as _mode_index)

_NO_ONNX = "no ONNX operator"  # the onnx_reason of this family's ops


def _to_last(x, axis):
    """Moves the reduced axes (int, list or None = all) to one trailing axis; returns (x, axes) with sorted axes."""
    axes = norm_axis(axis, x.ndim)
    if axes is None:
        return reshape(x, [-1]) if x.ndim != 1 else x, None
    rest = [i for i in range(x.ndim) if i not in axes]
    if list(axes) != list(range(x.ndim - len(axes), x.ndim)):
        x = transpose(x, rest + list(axes))
    if len(axes) > 1:
        x = reshape(x, [0] * len(rest) + [-1])
    return x, axes


def _restore(v, ndim, axes, keepdim):
    """`v` has the reduced axis removed; keepdim puts size-1 dims back where the reduced axes were."""
    if not keepdim:
        return v
    return unsqueeze(v, list(range(ndim)) if axes is None else list(axes)) if (axes or ndim) else v


def _quantile(x, q, axis, keepdim, interpolation, ignore_nan):
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise ValueError(f"quantile: interpolation must be linear, lower, higher, nearest or midpoint, "
                         f"got {interpolation!r}")
    qs = [float(v) for v in (q.tolist() if hasattr(q, "tolist") else q)] if isinstance(q, (list, tuple)) or (
        hasattr(q, "ndim") and q.ndim) else [float(q)]
    if any(not 0 <= v <= 1 for v in qs):
        raise ValueError(f"quantile: q must be in [0, 1], got {q}")
    if x.dtype.kind not in "f":
        x = cast(x, D.default_float())
    ndim = x.ndim
    flat, axes = _to_last(x, axis)
    if flat.shape[-1] == 0:  # an empty lane: one NaN stands for it, so the result is NaN (NumPy's and Paddle's)
        flat = full(flat.shape[:-1] + [1], float("nan"), x.dtype)
    s = sort(flat, axis=-1)  # NaNs sort last
    nan = isnan(flat)
    n = _sum(cast(nan.logical_not() if ignore_nan else zeros_like(flat) == 0, "int64"), axis=-1, keepdim=True)
    last = maximum(n - 1, zeros_like(n))
    outs = []
    for v in qs:
        pos = cast(last, x.dtype) * v
        below = cast(floor(pos), "int64")
        above = minimum(below + 1, last)
        if interpolation == "lower":
            val = take_along_axis(s, below, -1)
        elif interpolation == "higher":
            val = take_along_axis(s, cast(pos.ceil(), "int64"), -1)
        elif interpolation == "nearest":
            val = take_along_axis(s, cast(_round(pos), "int64"), -1)
        elif interpolation == "midpoint":
            val = (take_along_axis(s, below, -1) + take_along_axis(s, cast(pos.ceil(), "int64"), -1)) * 0.5
        else:
            lo, hi = take_along_axis(s, below, -1), take_along_axis(s, above, -1)
            val = lo + (hi - lo) * (pos - floor(pos))
        bad = n == 0 if ignore_nan else _any(nan, axis=-1, keepdim=True)
        val = where(bad, zeros_like(val) + float("nan"), val)
        outs.append(_restore(squeeze(val, -1), ndim, axes, keepdim))
    return stack(outs, 0) if isinstance(q, (list, tuple)) or (hasattr(q, "ndim") and q.ndim) else outs[0]


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The `q`-th quantile(s) of `x` along `axis`; a NaN in a slice gives NaN. A list `q` adds a leading dim.

    Args:
        q: a float in [0, 1] or a list of them.
        axis: int, list of ints or None (all elements).
        interpolation: 'linear', 'lower', 'higher', 'nearest' or 'midpoint' between the two nearest values.

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
        >>> oar.quantile(x, 0.5, axis=1).numpy().tolist()
        [2.5, 6.5]
        >>> oar.quantile(x, [0.0, 1.0]).numpy().tolist()
        [1.0, 8.0]
    """
    return _quantile(x, q, axis, keepdim, interpolation, ignore_nan=False)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """`quantile` that ignores NaNs (an all-NaN slice gives NaN).

    Example:
        >>> oar.nanquantile(oar.to_tensor([1.0, float('nan'), 3.0]), 0.5).item()
        2.0
    """
    return _quantile(x, q, axis, keepdim, interpolation, ignore_nan=True)


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median along `axis`; with an even count, the mean of the two middle values ('avg', a float result) or
    the lower one ('min': the values keep `x`'s dtype and, with an `axis`, come with their indices, as in Paddle).
    A lane holding NaN gives NaN.

    Example:
        >>> oar.median(oar.to_tensor([[1.0, 4.0, 2.0, 3.0]]), axis=1).numpy().tolist()
        [2.5]
        >>> v, i = oar.median(oar.to_tensor([[1, 4, 2, 3]]), axis=1, mode='min')
        >>> v.numpy().tolist(), i.numpy().tolist()
        ([2], [2])
    """
    if _median_interpolation(mode) == "lower":
        return _median_lower(x, axis, keepdim, ignore_nan=False)
    return _quantile(x, 0.5, axis, keepdim, "linear", ignore_nan=False)


MEDIAN_INDEX = defop("median_lower_index", _median_lower_index,
                     infer=lambda m, axis, ignore_nan: [([1 if i == axis else d for i, d in enumerate(m[0][0])],
                                                         D.int64)],
                     differentiable=False, onnx_reason=_NO_ONNX)


def _median_lower(x, axis, keepdim, ignore_nan):
    """mode='min': the lower median picked by index (so the gradient flows through take_along_axis)."""
    if axis is None:  # Paddle returns the value alone
        flat = reshape(x, [-1])
        val = take_along_axis(flat, apply(MEDIAN_INDEX, (flat,), {"axis": 0, "ignore_nan": ignore_nan}), 0)
        return reshape(val, [1] * x.ndim if keepdim else [])
    axis = norm_axis1(axis, x.ndim)
    idx = apply(MEDIAN_INDEX, (x,), {"axis": axis, "ignore_nan": ignore_nan})
    val = take_along_axis(x, idx, axis)
    if not keepdim:
        val, idx = squeeze(val, axis), squeeze(idx, axis)
    return val, idx


def _median_interpolation(mode):
    if mode not in ("avg", "min"):
        raise ValueError(f"median: mode must be 'avg' or 'min', got {mode!r}")
    return "linear" if mode == "avg" else "lower"


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """`median` that ignores NaNs (mode='min' with one `axis` gives values and indices too; several axes are
    reduced as one, giving the value alone, as Paddle).

    Example:
        >>> oar.nanmedian(oar.to_tensor([1.0, float('nan'), 2.0, 4.0])).item()
        2.0
    """
    if isinstance(axis, (list, tuple)) and len(axis) != 1:  # several axes: as one flattened axis, value only
        axes = sorted({a % x.ndim for a in axis})
        rest = [i for i in range(x.ndim) if i not in axes]
        flat = reshape(transpose(x, rest + axes), [x.shape[i] for i in rest] + [-1])
        val = nanmedian(flat, -1, False, mode)
        val = val[0] if isinstance(val, tuple) else val
        return reshape(val, [1 if i in axes else d for i, d in enumerate(x.shape)]) if keepdim else val
    if isinstance(axis, (list, tuple)):
        axis = axis[0]
    if _median_interpolation(mode) == "lower":
        return _median_lower(x, axis, keepdim, ignore_nan=True)
    return _quantile(x, 0.5, axis, keepdim, "linear", ignore_nan=True)


# ---- index-producing kernels: the values are then picked with take_along_axis (which carries the gradient) -------

MODE_INDEX = defop("mode_index", _mode_index,
                   infer=lambda m, axis: [([1 if i == axis else d for i, d in enumerate(m[0][0])], D.int64)],
                   differentiable=False, onnx_reason=_NO_ONNX)


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along `axis` (the smallest one on ties) and the index of its last occurrence.

    Example:
        >>> v, i = oar.mode(oar.to_tensor([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 1.0, 1.0]]))
        >>> v.numpy().tolist(), i.numpy().tolist()
        ([2.0, 1.0], [2, 3])
    """
    if x.ndim == 0:
        return x, zeros_like(x, "int64")
    axis = norm_axis1(axis, x.ndim)
    idx = apply(MODE_INDEX, (x,), {"axis": axis})
    val = take_along_axis(x, idx, axis)
    if not keepdim:
        val, idx = squeeze(val, axis), squeeze(idx, axis)
    return val, idx


CUM_INDEX = defop("cum_extreme_index", lambda x, axis, largest: _cum_index(x, axis, largest),
                  infer=lambda m, axis, largest: [(m[0][0], D.int64)],
                  differentiable=False, onnx_reason=_NO_ONNX)


def _cum_extreme(x, axis, dtype, largest):
    if axis is None:
        x, axis = flatten(x), 0
    axis = norm_axis1(axis, x.ndim)
    idx = apply(CUM_INDEX, (x,), {"axis": axis, "largest": largest})
    val = take_along_axis(x, idx, axis) if x.ndim else x
    return val, cast(idx, dtype)


def cummax(x, axis=None, dtype="int64", name=None):
    """Running maximum along `axis` (flattened when None) and the index where each running maximum was reached.

    Example:
        >>> v, i = oar.cummax(oar.to_tensor([1.0, 3.0, 2.0, 5.0]))
        >>> v.numpy().tolist(), i.numpy().tolist()
        ([1.0, 3.0, 3.0, 5.0], [0, 1, 1, 3])
    """
    return _cum_extreme(x, axis, dtype, True)


def cummin(x, axis=None, dtype="int64", name=None):
    """Running minimum along `axis` (flattened when None) and the index where each running minimum was reached.

    Example:
        >>> v, i = oar.cummin(oar.to_tensor([3.0, 1.0, 2.0, 0.0]))
        >>> v.numpy().tolist(), i.numpy().tolist()
        ([3.0, 1.0, 1.0, 0.0], [0, 1, 1, 3])
    """
    return _cum_extreme(x, axis, dtype, False)


def _logcumsumexp_grad_grad(gg, dx, g, x, out, axis):
    """dx_i = exp(x_i) * sum_{j >= i} g_j exp(-out_j); with Q_j = sum_{i <= j} gg_i exp(x_i - out_j), the gradients
    are Q for g, -g Q for out (which reaches x through the forward) and gg dx for x directly."""
    c = _max(x, axis=axis, keepdim=True)  # a shift for range; it cancels, so its own gradient sums to zero
    q = exp(c - out) * cumsum(gg * exp(x - c), axis=axis)
    return q, gg * dx, -g * q


LOGCUMSUMEXP_GRAD = defop("logcumsumexp_grad", _logcumsumexp_grad_impl, inputs=("grad", "x", "out"),
                          infer=lambda m, axis: [m[1]], grad=_logcumsumexp_grad_grad)
LOGCUMSUMEXP = defop("logcumsumexp", _logcumsumexp,
                     grad=lambda g, out, x, axis: apply(LOGCUMSUMEXP_GRAD, (g, x, out), {"axis": axis}),
                     infer=infer_same, onnx_reason=_NO_ONNX)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """``log(cumsum(exp(x)))`` along `axis` (flattened when None), computed without overflow.

    Example:
        >>> [round(v, 4) for v in oar.logcumsumexp(oar.to_tensor([0.0, 0.0, 1000.0])).numpy().tolist()]
        [0.0, 0.6931, 1000.0]
    """
    if dtype is not None:
        x = cast(x, dtype)
    if x.dtype.kind != "f":
        x = cast(x, D.default_float())
    if axis is None or x.ndim == 0:
        x, axis = flatten(x) if x.ndim != 1 else x, 0
    return apply(LOGCUMSUMEXP, (x,), {"axis": norm_axis1(axis, x.ndim)})


# ---- NaN-aware sums, counts, differences ----------------------------------------------------------------------------

def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum that treats NaN as zero.

    Example:
        >>> oar.nansum(oar.to_tensor([1.0, float('nan'), 2.0])).item()
        3.0
    """
    return _sum(where(isnan(x), zeros_like(x), x), axis=axis, dtype=dtype, keepdim=keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over the non-NaN elements.

    Example:
        >>> oar.nanmean(oar.to_tensor([1.0, float('nan'), 3.0])).item()
        2.0
    """
    count = _sum(cast(isnan(x).logical_not(), x.dtype), axis=axis, keepdim=keepdim)
    return nansum(x, axis=axis, keepdim=keepdim) / count


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Number of non-zero elements along `axis` (int64).

    Example:
        >>> oar.count_nonzero(oar.to_tensor([[0, 1, 2], [0, 0, 3]]), axis=1).numpy().tolist()
        [2, 1]
    """
    return _sum(cast(x != 0, "int64"), axis=axis, keepdim=keepdim)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference ``x[i+1] - x[i]`` along `axis`, optionally with values prepended/appended.

    Example:
        >>> oar.diff(oar.to_tensor([1, 4, 9, 16])).numpy().tolist()
        [3, 5, 7]
        >>> oar.diff(oar.to_tensor([1.0, 4.0, 9.0]), n=2).numpy().tolist()
        [2.0]
    """
    axis = norm_axis1(axis, x.ndim)
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = concat([operand(t, x) for t in parts], axis=axis)
    for _ in range(n):
        hi = x[tuple([slice(None)] * axis + [slice(1, None)])]
        lo = x[tuple([slice(None)] * axis + [slice(0, -1)])]
        x = (hi.logical_xor(lo) if x.dtype.kind == "b" else hi - lo)
    return x


def _trapezoid_parts(y, x, dx, axis):
    axis = norm_axis1(axis, y.ndim)
    head = tuple([slice(None)] * axis + [slice(1, None)])
    tail = tuple([slice(None)] * axis + [slice(0, -1)])
    avg = (y[head] + y[tail]) * 0.5
    if x is not None:
        if x.ndim == 1 and y.ndim > 1:
            x = reshape(x, [-1] + [1] * (y.ndim - 1 - axis))
        width = diff(x, axis=-1 if x.ndim == 1 else axis)
        return avg * width, axis
    return avg * (1.0 if dx is None else float(dx)), axis


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Integral of `y` along `axis` by the trapezoid rule, at sample points `x` or with spacing `dx` (default 1).

    Example:
        >>> oar.trapezoid(oar.to_tensor([1.0, 2.0, 3.0])).item()
        4.0
        >>> oar.trapezoid(oar.to_tensor([1.0, 2.0, 3.0]), x=oar.to_tensor([0.0, 1.0, 3.0])).item()
        6.5
    """
    if x is not None and dx is not None:
        raise ValueError("trapezoid: give either x or dx, not both")
    parts, axis = _trapezoid_parts(y, x, dx, axis)
    return _sum(parts, axis=axis)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Running trapezoid-rule integral of `y` along `axis` (one element shorter than `y` along it).

    Example:
        >>> oar.cumulative_trapezoid(oar.to_tensor([1.0, 2.0, 3.0])).numpy().tolist()
        [1.5, 4.0]
    """
    if x is not None and dx is not None:
        raise ValueError("cumulative_trapezoid: give either x or dx, not both")
    parts, axis = _trapezoid_parts(y, x, dx, axis)
    return cumsum(parts, axis=axis)


# ---- counting kernels (no gradient) ------------------------------------------------------------------------------

HISTOGRAM = defop("histogram", _histogram, infer=lambda m, bins, min, max: [([bins], D.int64)],
                  differentiable=False, onnx_reason=_NO_ONNX)


def histogram(input, bins=100, min=0, max=0, name=None):
    """Counts of `input`'s values in `bins` equal-width bins over ``[min, max]`` (the data's range when both are 0).

    Example:
        >>> oar.histogram(oar.to_tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=1, max=4).numpy().tolist()
        [2, 1, 0, 1]
    """
    if max < min:
        raise ValueError(f"histogram: max ({max}) must not be less than min ({min})")
    return apply(HISTOGRAM, (input,), {"bins": int(bins), "min": float(min), "max": float(max)})


BINCOUNT = defop("bincount", _bincount, inputs=("x", "weights"), variadic=True,
                 infer=lambda m, minlength: [([-1], m[1][1] if len(m) > 1 and m[1][1].kind == "f" else D.int64)],
                 differentiable=False, onnx_reason=_NO_ONNX)


def bincount(x, weights=None, minlength=0, name=None):
    """Number of occurrences of each value in the non-negative int tensor `x` (weighted sums with `weights`).

    Example:
        >>> oar.bincount(oar.to_tensor([1, 1, 3])).numpy().tolist()
        [0, 2, 0, 1]
    """
    if x.dtype.kind not in "iu":
        raise TypeError(f"bincount: x must be an integer tensor, got {x.dtype.name}")
    return apply(BINCOUNT, (x,) if weights is None else (x, weights), {"minlength": int(minlength)})


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket index of each value of `x` in the 1-D `sorted_sequence` (as `searchsorted` with the roles swapped).

    Example:
        >>> oar.bucketize(oar.to_tensor([0.5, 2.0, 7.0]), oar.to_tensor([1.0, 2.0, 5.0])).numpy().tolist()
        [0, 1, 3]
    """
    if sorted_sequence.ndim != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got shape {sorted_sequence.shape}")
    return searchsorted(sorted_sequence, x, out_int32=out_int32, right=right)


__all__ = public_api(globals())
