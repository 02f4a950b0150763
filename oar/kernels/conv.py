"""Convolution kernels for any number of spatial dims (NC + spatial layout), by im2col + one BLAS GEMM per call.

The batch is folded into the GEMM (the forward does so where a sample has fewer than `FOLD_BELOW` output
positions, else one GEMM per sample): columns are laid out ``(G, C/G * prod(ksize), N * prod(out))`` (built by one
copy from a zero-copy `sliding_window_view`), so the forward is ``W (O/G, CK) @ cols (CK, N L)``, the filter
gradient ``g (O/G, N L) @ cols.T`` and the input gradient ``W.T @ g`` followed by col2im (one strided add per
kernel offset, batch innermost) — one large GEMM per group instead of one small GEMM per sample.
"""
import math
import itertools
import threading
import weakref
from collections import OrderedDict

import numpy as np
from .backend import array_module, sliding_window_view

SCRATCH_BYTES = 256 << 20  # per thread: the most scratch memory kept between calls (a larger buffer is never kept)


class _Store(threading.local):
    """One thread's kept buffers (least recently used first)."""

    def __init__(self):
        self.bufs = OrderedDict()
        self.nbytes = 0


class _Scratch:
    """Scratch arrays (column matrices) reused by successive kernel calls instead of allocating and page-faulting
    megabytes per call (first writes to fresh pages cost more than the copies themselves). A kernel only uses its
    scratch during the call and never returns it, so reuse is safe in eager and static runs alike.

    - Per thread, bounded in bytes: a buffer over `SCRATCH_BYTES` is not kept (it dies with the call), and the least
      recently used go first once the kept ones would exceed it; a thread's buffers die with the thread.
    - Kept only while a user lives: users (convolution layers, compiled plans running a convolution, planned
      `ConvRunner`s) hold a `lease()`; when the last lease is dropped every thread's buffers are released, and a call
      made while no lease is held allocates its buffers afresh and keeps none (`docs/memory.md`).
    """

    def __init__(self):
        self._store = _Store()
        self._stores = weakref.WeakSet()  # every thread's store, to release them all with the last lease
        self._leases = 0
        self._lock = threading.Lock()

    @property
    def bufs(self):
        """The calling thread's kept buffers, by (tag, shape, dtype)."""
        return self._store.bufs

    @property
    def leases(self):
        return self._leases

    def lease(self):
        """A `ScratchLease`: buffers are kept while at least one lease lives."""
        return ScratchLease(self)

    def _acquire(self):
        with self._lock:
            self._leases += 1

    def _drop(self):
        with self._lock:
            self._leases -= 1
            if self._leases:
                return
            for st in list(self._stores):  # another thread mid-call keeps its buffer alive until the call returns
                st.bufs, st.nbytes = OrderedDict(), 0

    def get(self, tag, shape, dtype, xp=np):
        st = self._store
        dtype = np.dtype(dtype)
        key = (tag, tuple(shape), dtype, xp.__name__)  # (host and device buffers apart)
        b = st.bufs.get(key)
        if b is not None:
            st.bufs.move_to_end(key)
            return b
        b = xp.empty(shape, dtype)
        if b.nbytes > SCRATCH_BYTES or not self._leases:
            return b
        if not st.bufs:
            self._stores.add(st)
        while st.bufs and st.nbytes + b.nbytes > SCRATCH_BYTES:
            st.nbytes -= st.bufs.popitem(last=False)[1].nbytes
        st.bufs[key] = b
        st.nbytes += b.nbytes
        return b


class ScratchLease:
    """Keeps a `_Scratch` cache's buffers while it lives (held by a user of the cache; copies are leases too)."""

    __slots__ = ("_cache",)

    def __init__(self, cache):
        cache._acquire()
        self._cache = cache

    def __del__(self):
        self._cache._drop()

    def __copy__(self):
        return ScratchLease(self._cache)

    def __deepcopy__(self, memo):
        return ScratchLease(self._cache)

    def __reduce__(self):
        return (ScratchLease, (self._cache,))


SCRATCH = _Scratch()


def out_sizes(spatial, ksize, strides, paddings, dilations):
    """Output spatial sizes; `paddings` is ``[(before, after), ...]`` per spatial dim."""
    return [(s + pb + pa - (d * (k - 1) + 1)) // st + 1
            for s, k, st, (pb, pa), d in zip(spatial, ksize, strides, paddings, dilations)]


def pad(x, paddings, value=0.0):
    xp = array_module(x, paddings)
    if not any(pb or pa for pb, pa in paddings):
        return x
    return xp.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in paddings], constant_values=value)


def windows(xpad, ksize, strides, dilations):
    """View ``(N, C, *out, *kernel)`` of the padded input: element [n, c, o.., k..] is the input under
    kernel offset k of output position o."""
    nd = len(ksize)
    eff = [d * (k - 1) + 1 for k, d in zip(ksize, dilations)]
    v = sliding_window_view(xpad, eff, axis=tuple(range(2, 2 + nd)))
    sl = (slice(None),) * 2 + tuple(slice(None, None, s) for s in strides) + \
        tuple(slice(None, None, d) for d in dilations)
    return v[sl]


# Below this many output positions per sample the forward folds the batch into one GEMM; from it on, one GEMM per
# sample is as fast on one BLAS thread and writes (N, O, L) directly, without the transposing copy folding needs
# (CIFAR conv1, 3 -> 32 channels at 32x32: 0.86 ms per-sample against 1.06 ms folded, bench/kernels.py shapes).
FOLD_BELOW = 256


def im2col(x, ksize, strides, paddings, dilations, groups, per_sample=False):
    """Columns ``(G, C/G * prod(ksize), N * prod(out))`` (contiguous; rows ordered channel, kernel offset; columns
    sample, output position), or with `per_sample` ``(N, G, C/G * prod(ksize), prod(out))``; and the output
    sizes."""
    nd = len(ksize)
    v = windows(pad(x, paddings), ksize, strides, dilations)
    n, c = x.shape[:2]
    osz = list(v.shape[2:2 + nd])
    rows, ll = (c // groups) * int(math.prod(ksize)), int(math.prod(osz))
    if per_sample:
        vp = v.transpose((0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd)))  # (N, C, *k, *out)
        cols = SCRATCH.get("cols_n", (n, groups, rows, ll), x.dtype, array_module(x))
    else:
        vp = v.transpose((1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd)))  # (C, *k, N, *out)
        cols = SCRATCH.get("cols", (groups, rows, n * ll), x.dtype, array_module(x))
    cols.reshape(vp.shape)[...] = vp   # the one copy
    return cols, osz


def _gemm(a, b, out=None):
    """``a @ b`` per group; with one group a plain 2-D GEMM (one BLAS call)."""
    xp = array_module(a, b)
    if a.shape[0] == 1:
        return xp.matmul(a[0], b[0], out=None if out is None else out[0])[None]
    return xp.matmul(a, b, out=out)


def conv_forward(x, w, strides, paddings, dilations, groups):
    """``out[n, o] = sum_c,k w[o, c, k] * x[n, c, o*stride + k*dilation]`` for weight ``(O, C/G, *ksize)``."""
    xp = array_module(x, w, strides, paddings, dilations, groups)
    ksize = w.shape[2:]
    n, o = x.shape[0], w.shape[0]
    per_sample = int(math.prod(out_sizes(x.shape[2:], ksize, strides, paddings, dilations))) >= FOLD_BELOW and n > 1
    cols, osz = im2col(x, ksize, strides, paddings, dilations, groups, per_sample)
    if per_sample:  # (G, O/G, CK) @ (N, G, CK, L) -> (N, G, O/G, L): one BLAS GEMM per sample (and group)
        wm = w.reshape(groups, o // groups, -1)
        out = xp.matmul(wm[0], cols[:, 0]) if groups == 1 else xp.matmul(wm, cols)
        return out.reshape([n, o] + osz)
    out = _gemm(w.reshape(groups, o // groups, -1), cols,
                out=SCRATCH.get("out", (groups, o // groups, cols.shape[2]), xp.result_type(x.dtype, w.dtype), xp))
    out = out.reshape([o, n] + osz)                                   # (G, O/G, N L) = (O, N, *out)
    return xp.moveaxis(out, 0, 1).copy()  # a copy even when the view is contiguous (N = 1): `out` is scratch


def _grad_matrix(g, groups, batch_minor=False):
    """``g (N, O, *out)`` as ``(G, O/G, N L)``, or ``(G, O/G, L N)`` with `batch_minor` (one copy)."""
    xp = array_module(g, groups)
    n, o = g.shape[:2]
    gt = xp.moveaxis(g.reshape(n, o, -1), 0, -1 if batch_minor else 1)
    gm = SCRATCH.get("gmat", gt.shape, g.dtype, array_module(g))
    gm[...] = gt
    return gm.reshape(groups, o // groups, -1)


def col2im(dcols, x_shape, ksize, strides, paddings, dilations):
    """Adds columns ``(C, *ksize, *out, N)`` back into an input-shaped ``(N, C, *spatial)`` array (the adjoint of
    `windows`). The batch is the innermost axis, so each kernel offset's strided add runs over rows of
    ``out_width * N`` contiguous values (with stride 1) instead of ``out_width``."""
    xp = array_module(dcols, x_shape, ksize, strides, paddings, dilations)
    nd = len(ksize)
    padded = [s + pb + pa for s, (pb, pa) in zip(x_shape[2:], paddings)]
    osz = dcols.shape[1 + nd:1 + 2 * nd]
    dxp = SCRATCH.get("dxp", [x_shape[1]] + padded + [x_shape[0]], dcols.dtype, array_module(dcols))  # (C, *padded, N)
    dxp[...] = 0
    for off in itertools.product(*[range(k) for k in ksize]):
        sl = tuple(slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(off, dilations, strides, osz))
        dxp[(slice(None),) + sl] += dcols[(slice(None),) + off]
    crop = tuple(slice(pb, pb + s) for s, (pb, pa) in zip(x_shape[2:], paddings))
    return xp.moveaxis(dxp[(slice(None),) + crop], -1, 0).copy()  # always a copy: `dxp` is scratch


def conv_grad_input(w, g, x_shape, strides, paddings, dilations, groups):
    """Gradient of `conv_forward` with respect to its input (also the transposed convolution): one GEMM
    ``W.T (C K, O) @ g (O, L N)``, then col2im."""
    xp = array_module(w, g, x_shape, strides, paddings, dilations, groups)
    n, o = g.shape[:2]
    ksize = list(w.shape[2:])
    c = w.shape[1] * groups
    osz = list(g.shape[2:])
    # a contiguous transposed filter keeps the matmul on BLAS (a transposed 3-d view falls off it)
    wt = xp.ascontiguousarray(w.reshape(groups, o // groups, -1).transpose(0, 2, 1))   # (G, CK, O/G)
    gm = _grad_matrix(g, groups, batch_minor=True)
    dtype = xp.result_type(w.dtype, g.dtype)
    dcols = _gemm(wt, gm, out=SCRATCH.get("dcols", (groups, wt.shape[1], gm.shape[2]), dtype, array_module(gm)))
    dcols = dcols.reshape([c] + ksize + osz + [n])
    return col2im(dcols, [n, c] + list(x_shape[2:]), ksize, strides, paddings, dilations)


def conv_grad_filter(x, g, w_shape, strides, paddings, dilations, groups):
    """Gradient of `conv_forward` with respect to its weight ``(O, C/G, *ksize)``."""
    xp = array_module(x, g, w_shape, strides, paddings, dilations, groups)
    n, o = g.shape[:2]
    if int(math.prod(g.shape[2:])) >= FOLD_BELOW and n > 1:  # as the forward: one GEMM per sample, summed
        cols, _ = im2col(x, w_shape[2:], strides, paddings, dilations, groups, per_sample=True)
        gm = g.reshape(n, groups, o // groups, -1)
        if groups == 1:
            dw = xp.matmul(gm[:, 0], cols[:, 0].transpose(0, 2, 1)).sum(axis=0)
        else:
            dw = xp.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(axis=0)
        return dw.reshape(w_shape).astype(x.dtype, copy=False)
    cols, _ = im2col(x, w_shape[2:], strides, paddings, dilations, groups)
    dw = _gemm(_grad_matrix(g, groups), cols.transpose(0, 2, 1))       # (G, O/G, CK)
    return dw.reshape(w_shape).astype(x.dtype, copy=False)


def unfold(x, kernel_sizes, strides, paddings, dilations):
    """Paddle's unfold (im2col) of ``(N, C, H, W)``: columns ``(N, C*kh*kw, L)``, row ``c*kh*kw + i*kw + j`` holding
    kernel offset (i, j) of channel c at each of the L output positions; `paddings` is
    ``[(top, bottom), (left, right)]``."""
    xp = array_module(x, kernel_sizes, strides, paddings, dilations)
    v = windows(pad(x, paddings), kernel_sizes, strides, dilations)  # (N, C, oh, ow, kh, kw)
    n, c, oh, ow, kh, kw = v.shape
    return xp.ascontiguousarray(v.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, oh * ow)


def fold(cols, output_sizes, kernel_sizes, strides, paddings, dilations):
    """Paddle's fold (col2im), the adjoint of `unfold`: columns ``(N, C*kh*kw, L)`` summed into ``(N, C, H, W)``
    where windows overlap."""
    xp = array_module(cols, output_sizes, kernel_sizes, strides, paddings, dilations)
    n, ckk, length = cols.shape
    kk = int(math.prod(kernel_sizes))
    osz = out_sizes(output_sizes, kernel_sizes, strides, paddings, dilations)
    if ckk % kk or length != int(math.prod(osz)):
        raise ValueError(f"fold: input of shape {list(cols.shape)} does not hold {kk}-element kernel columns of "
                         f"{osz[0]} x {osz[1]} = {int(math.prod(osz))} positions for output size {list(output_sizes)}")
    c = ckk // kk
    batch_minor = xp.moveaxis(cols.reshape([n, c] + list(kernel_sizes) + osz), 0, -1)  # col2im's (C, *k, *out, N)
    return col2im(batch_minor, [n, c] + list(output_sizes), kernel_sizes, strides, paddings, dilations)
