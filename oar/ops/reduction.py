"""Reductions: sum, mean, max/min, prod, logsumexp, var/std, cumulative sums and products (norms: linalg_norm.py)."""
import builtins
import math as _math

import numpy as np

from ..core import dtype as D
from .common import infer_same, public_api, norm_axis
from .math import cast, exp, expand_as, maximum, sqrt
from ..kernels.reduction import (cumprod as _cumprod, cumsum as _cumsum, logsumexp as _logsumexp, max as _max,
                                 mean as _mean, mean_grad as _mean_grad, min as _min, prod as _prod, sum as _sum)
from .registry import apply, defop, lowerings


def _keep(g, x, axis, keepdim):
    """Broadcasts a reduced gradient back to `x`'s shape."""
    if not keepdim and axis is not None and g.ndim != x.ndim:
        from .manipulation import unsqueeze
        g = unsqueeze(g, list(axis))
    return expand_as(g, x)


def _infer_reduce(m, axis, keepdim, **kw):
    shape, dt = m[0]
    dt = D.convert_dtype(kw["dtype"]) if kw.get("dtype") else dt
    if axis is None:
        return [([1] * len(shape) if keepdim else [], dt)]
    return [([1 if i in axis else d for i, d in enumerate(shape)] if keepdim else
             [d for i, d in enumerate(shape) if i not in axis], dt)]


def _sum_infer(m, axis, keepdim, dtype):
    out = _infer_reduce(m, axis, keepdim, dtype=dtype)
    if dtype is None and m[0][1].kind in "biu":
        out = [(out[0][0], D.int64)]
    return out


SUM = defop("sum", _sum, infer=_sum_infer,
            grad=lambda g, out, x, axis, keepdim, dtype: cast(_keep(g, x, axis, keepdim), x.dtype), amp="black",
            grad_reads=("x.shape",))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over `axis` (all axes when None).

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> oar.sum(x).item(), oar.sum(x, axis=1, keepdim=True).numpy().tolist()
        (10.0, [[3.0], [7.0]])
    """
    axis = norm_axis(axis, x.ndim)
    return apply(SUM, (x,), {"axis": axis, "keepdim": bool(keepdim), "dtype": D.convert_dtype(dtype).name if dtype
                             else None})


MEAN_GRAD = defop("mean_grad", _mean_grad, inputs=("out_grad", "x"), nondiff=(1,),
                  infer=lambda m, axis, keepdim: [(m[1][0], m[0][1])],
                  grad=lambda gg, out, g, x, axis, keepdim: (mean(gg, axis, keepdim), None))
MEAN = defop("mean", _mean, infer=_infer_reduce,
             grad=lambda g, out, x, axis, keepdim: apply(MEAN_GRAD, (g, x), {"axis": axis, "keepdim": keepdim}),
             amp="black", grad_reads=("x.shape",))


def mean(x, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """Mean over `axis` (all axes when None); `dtype` casts `x` first, `out` receives the result (Paddle 3).

    Example:
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> oar.mean(x).item(), oar.mean(x, axis=0).numpy().tolist()
        (2.5, [2.0, 3.0])
        >>> oar.mean(oar.to_tensor([1, 2]), dtype='float64').item()
        1.5
    """
    if dtype is not None:
        x = cast(x, dtype)
    res = apply(MEAN, (x,), {"axis": None if axis is None else norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})
    if out is not None:
        from .creation import assign
        return assign(res, out)
    return res


def _extreme_grad(g, out, x, axis, keepdim):
    o = _keep(out, x, axis, keepdim)
    mask = cast(x == o, g.dtype)
    count = expand_as(sum(mask, axis=list(axis) if axis else None, keepdim=True), x)
    return _keep(g, x, axis, keepdim) * mask / count


MAX = defop("max", _max,
            infer=_infer_reduce, grad=_extreme_grad)
MIN = defop("min", _min,
            infer=_infer_reduce, grad=_extreme_grad)


def max(x, axis=None, keepdim=False, name=None):
    """Maximum over `axis`; the gradient is shared evenly between tied maxima.

    Example:
        >>> x = oar.to_tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> x.max().item(), oar.max(x, axis=0).numpy().tolist()
        (5.0, [4.0, 5.0])
    """
    return apply(MAX, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def min(x, axis=None, keepdim=False, name=None):
    """Minimum over `axis`.

    Example:
        >>> x = oar.to_tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> x.min().item(), oar.min(x, axis=1).numpy().tolist()
        (1.0, [1.0, 2.0])
    """
    return apply(MIN, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


amax, amin = max, min


PROD = defop("prod", _prod,
             infer=_infer_reduce,
             grad=lambda g, out, x, axis, keepdim: _keep(g * out, x, axis, keepdim) / x, amp="black")


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over `axis` (the gradient assumes no zeros in `x`).

    Example:
        >>> oar.prod(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=1).numpy().tolist()
        [2.0, 12.0]
    """
    if dtype is not None:
        x = cast(x, dtype)
    return apply(PROD, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


LOGSUMEXP = defop("logsumexp", _logsumexp, infer=_infer_reduce,
                  grad=lambda g, out, x, axis, keepdim: _keep(g, x, axis, keepdim) * exp(x - _keep(out, x, axis,
                                                                                                      keepdim)),
                  amp="black")


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``log(sum(exp(x)))`` over `axis`, computed stably.

    Example:
        >>> round(oar.logsumexp(oar.to_tensor([1000.0, 1000.0])).item(), 4)
        1000.6932
    """
    if x.dtype.kind in "iub":  # float math: Paddle gives float32 for integers (NumPy float64)
        x = cast(x, D.default_float())
    return apply(LOGSUMEXP, (x,), {"axis": norm_axis(axis, x.ndim), "keepdim": bool(keepdim)})


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Variance over `axis` (``unbiased`` divides by N-1: NaN for a single element, as in Paddle and NumPy).

    Example:
        >>> x = oar.to_tensor([1.0, 2.0, 3.0, 4.0])
        >>> round(oar.var(x).item(), 4), oar.var(x, unbiased=False).item()
        (1.6667, 1.25)
    """
    ax = norm_axis(axis, x.ndim)
    d = x - mean(x, axis=list(ax) if ax else None, keepdim=True)
    s = sum(d * d, axis=list(ax) if ax else None, keepdim=keepdim)
    ddof = 1 if unbiased else 0
    dims = x.shape if ax is None else [x.shape[a] for a in ax]
    if -1 not in dims:
        count = _math.prod(dims) - ddof
        return s / count if count > 0 else s * float("nan")  # no degrees of freedom left: NaN
    # a dim unknown until a static program runs: count the reduced elements then
    from .manipulation import numel
    n = cast(numel(x), s.dtype) / cast(numel(s), s.dtype)
    return s / maximum(n - ddof, 0.0)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation over `axis`.

    Example:
        >>> x = oar.to_tensor([1.0, 2.0, 3.0, 4.0])
        >>> round(oar.std(x).item(), 4), round(oar.std(x, unbiased=False).item(), 4)
        (1.291, 1.118)
    """
    return sqrt(var(x, axis, unbiased, keepdim))


def _cumsum_infer(m, axis, reverse=False):
    shape, dtype = m[0]
    dtype = D.int64 if dtype.kind in "biu" else dtype
    if axis is None and shape:  # over the flattened input
        return [([-1 if any(d < 0 for d in shape) else _math.prod(shape)], dtype)]
    return [(list(shape) if shape or axis is not None else [1], dtype)]


CUMSUM = defop("cumsum", _cumsum, infer=_cumsum_infer,
               grad=lambda g, out, x, axis, reverse=False: _cumsum_grad(g, x, axis, reverse), amp="black")


def _cumsum_grad(g, x, axis, reverse):
    gx = apply(CUMSUM, (g,), {"axis": axis if axis is not None else 0, "reverse": not reverse})
    if axis is None:
        from .manipulation import reshape
        gx = reshape(gx, x.shape)
    return gx


def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along `axis` (flattened when None).

    Example:
        >>> oar.cumsum(oar.to_tensor([[1, 2], [3, 4]]), axis=1).numpy().tolist()
        [[1, 3], [3, 7]]
        >>> oar.cumsum(oar.to_tensor([[1, 2], [3, 4]])).numpy().tolist()
        [1, 3, 6, 10]
    """
    if dtype is not None:
        x = cast(x, dtype)
    out = apply(CUMSUM, (x,), {"axis": None if axis is None else int(axis) % builtins.max(x.ndim, 1),
                               "reverse": False})
    return out if dtype is None or out.dtype is x.dtype else cast(out, x.dtype)  # an integer scan runs in int64


CUMPROD = defop("cumprod", _cumprod,
                grad=lambda g, out, x, dim: apply(CUMSUM, (g * out,), {"axis": dim, "reverse": True}) / x, amp="black",
                infer=infer_same, onnx_reason="no ONNX operator")


def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along `dim` (gradient assumes no zeros).

    Example:
        >>> oar.cumprod(oar.to_tensor([1.0, 2.0, 3.0]), dim=0).numpy().tolist()
        [1.0, 2.0, 6.0]
    """
    if dtype is not None:
        x = cast(x, dtype)
    if dim is None:
        from .manipulation import flatten
        x, dim = flatten(x), 0
    return apply(CUMPROD, (x,), {"dim": int(dim) % builtins.max(x.ndim, 1)})


# ---- ONNX -------------------------------------------------------------------------------------------------------

def _onnx_reduce(onnx_type, float_only=False, axes_input=True):
    def lower(ctx, op):
        a = op.attrs
        x = ctx.inp(op, "x")
        xdt, odt = ctx.in_meta(op, "x")[1], ctx.out_meta(op)[1]
        if xdt is not odt and (float_only or a.get("dtype") or op.type == "sum"):
            x = ctx.cast(x, odt)
        axis = a.get("axis")
        keep = int(bool(a.get("keepdim", False)))
        if axis is None:
            ctx.node(onnx_type, [x], [ctx.out(op)], keepdims=keep)
        elif axes_input:
            ctx.node(onnx_type, [x, ctx.ints(list(axis))], [ctx.out(op)], keepdims=keep)
        else:
            ctx.node(onnx_type, [x], [ctx.out(op)], keepdims=keep, axes=list(axis))
    return lower


def _onnx_cumsum(ctx, op):
    a = op.attrs
    x, axis = ctx.inp(op, "x"), a["axis"]
    if axis is None:
        x, axis = ctx.node("Reshape", [x, ctx.ints([-1])]), 0
    ctx.node("CumSum", [x, ctx.const(np.asarray(axis, np.int64))], [ctx.out(op)], reverse=int(bool(a.get("reverse"))))


lowerings({
    "sum": _onnx_reduce("ReduceSum"), "mean": _onnx_reduce("ReduceMean", float_only=True, axes_input=False),
    "max": _onnx_reduce("ReduceMax", axes_input=False), "min": _onnx_reduce("ReduceMin", axes_input=False),
    "prod": _onnx_reduce("ReduceProd", axes_input=False),
    "logsumexp": _onnx_reduce("ReduceLogSumExp", axes_input=False),
    "cumsum": _onnx_cumsum,
})


__all__ = public_api(globals())
