"""Convolution kernels for any number of spatial dims (NC + spatial layout), by im2col + BLAS matmul.

Forward builds the column matrix from a zero-copy `sliding_window_view` (one copy into a contiguous
``(N, G, Cg*K, L)`` array) and multiplies it with the filter. The input gradient multiplies back and
scatters the columns with one strided add per kernel offset (col2im over the kernel window only).
"""
import itertools
import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


class _Scratch(threading.local):
    """Per-thread scratch arrays (column matrices) reused by successive kernel calls instead of allocating megabytes
    per call: a kernel only uses its scratch during the call and never returns it, so reuse is safe in eager and
    static runs alike. A handful of shapes are kept (a network's conv layers); more clears the cache."""

    def __init__(self):
        self.bufs = {}

    def get(self, tag, shape, dtype):
        key = (tag, tuple(shape), np.dtype(dtype))
        b = self.bufs.get(key)
        if b is None:
            if len(self.bufs) >= 16:
                self.bufs.clear()
            b = self.bufs[key] = np.empty(shape, dtype)
        return b


SCRATCH = _Scratch()


def out_sizes(spatial, ksize, strides, paddings, dilations):
    """Output spatial sizes; `paddings` is ``[(before, after), ...]`` per spatial dim."""
    return [(s + pb + pa - (d * (k - 1) + 1)) // st + 1
            for s, k, st, (pb, pa), d in zip(spatial, ksize, strides, paddings, dilations)]


def pad(x, paddings, value=0.0):
    if not any(pb or pa for pb, pa in paddings):
        return x
    return np.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in paddings], constant_values=value)


def windows(xp, ksize, strides, dilations):
    """View ``(N, C, *out, *kernel)`` of the padded input: element [n, c, o.., k..] is the input under
    kernel offset k of output position o."""
    nd = len(ksize)
    eff = [d * (k - 1) + 1 for k, d in zip(ksize, dilations)]
    v = sliding_window_view(xp, eff, axis=tuple(range(2, 2 + nd)))
    sl = (slice(None),) * 2 + tuple(slice(None, None, s) for s in strides) + \
        tuple(slice(None, None, d) for d in dilations)
    return v[sl]


def im2col(x, ksize, strides, paddings, dilations, groups):
    """Columns ``(N, G, C/G * prod(ksize), prod(out))`` (contiguous) and the output sizes."""
    nd = len(ksize)
    v = windows(pad(x, paddings), ksize, strides, dilations)
    n, c = x.shape[:2]
    osz = list(v.shape[2:2 + nd])
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    vp = v.transpose(perm)
    cols = SCRATCH.get("cols", (n, groups, (c // groups) * int(np.prod(ksize)), int(np.prod(osz))), x.dtype)
    cols.reshape(vp.shape)[...] = vp   # the one copy, into a reused buffer
    return cols, osz


def conv_forward(x, w, strides, paddings, dilations, groups):
    """``out[n, o] = sum_c,k w[o, c, k] * x[n, c, o*stride + k*dilation]`` for weight ``(O, C/G, *ksize)``."""
    ksize = w.shape[2:]
    cols, osz = im2col(x, ksize, strides, paddings, dilations, groups)
    o = w.shape[0]
    wm = w.reshape(groups, o // groups, -1)
    out = np.matmul(wm, cols) if groups > 1 else np.matmul(wm[0], cols[:, 0])
    return out.reshape([x.shape[0], o] + osz)


def col2im(dcols, x_shape, ksize, strides, paddings, dilations):
    """Adds columns ``(N, C, *ksize, *out)`` back into an input-shaped array (the adjoint of `windows`)."""
    nd = len(ksize)
    padded = [s + pb + pa for s, (pb, pa) in zip(x_shape[2:], paddings)]
    osz = dcols.shape[2 + nd:]
    dxp = np.zeros(list(x_shape[:2]) + padded, dcols.dtype)
    for off in itertools.product(*[range(k) for k in ksize]):
        sl = tuple(slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(off, dilations, strides, osz))
        dxp[(slice(None), slice(None)) + sl] += dcols[(slice(None), slice(None)) + off]
    if any(pb or pa for pb, pa in paddings):
        crop = tuple(slice(pb, pb + s) for s, (pb, pa) in zip(x_shape[2:], paddings))
        dxp = dxp[(slice(None), slice(None)) + crop]
    return dxp


def conv_grad_input(w, g, x_shape, strides, paddings, dilations, groups):
    """Gradient of `conv_forward` with respect to its input (also the transposed convolution)."""
    n, o = g.shape[:2]
    ksize = list(w.shape[2:])
    c = w.shape[1] * groups
    osz = list(g.shape[2:])
    wm = w.reshape(groups, o // groups, -1)
    gm = g.reshape(n, groups, o // groups, -1)
    # a contiguous transposed filter keeps the batched matmul on BLAS (a transposed view falls off it)
    dtype = np.result_type(w.dtype, g.dtype)
    if groups > 1:
        dcols = np.matmul(np.ascontiguousarray(wm.transpose(0, 2, 1)), gm,
                          out=SCRATCH.get("dcols", (n, groups, wm.shape[2], gm.shape[3]), dtype))
    else:
        dcols = np.matmul(np.ascontiguousarray(wm[0].T), gm[:, 0],
                          out=SCRATCH.get("dcols", (n, wm.shape[2], gm.shape[3]), dtype))
    dcols = dcols.reshape([n, c] + ksize + osz)
    return col2im(dcols, list(x_shape[:1]) + [c] + list(x_shape[2:]), ksize, strides, paddings, dilations)


def conv_grad_filter(x, g, w_shape, strides, paddings, dilations, groups):
    """Gradient of `conv_forward` with respect to its weight ``(O, C/G, *ksize)``."""
    ksize = w_shape[2:]
    cols, osz = im2col(x, ksize, strides, paddings, dilations, groups)
    n, o = g.shape[:2]
    gm = g.reshape(n, groups, o // groups, -1)
    # one BLAS GEMM per sample (and group), summed: einsum's contraction over (n, l) fell off BLAS here
    if groups == 1:
        dw = np.matmul(gm[:, 0], cols[:, 0].transpose(0, 2, 1)).sum(axis=0)
    else:
        dw = np.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.reshape(w_shape).astype(x.dtype, copy=False)


def unfold(x, kernel_sizes, strides, paddings, dilations):
    """Paddle's unfold (im2col) of ``(N, C, H, W)``: columns ``(N, C*kh*kw, L)``, row ``c*kh*kw + i*kw + j`` holding
    kernel offset (i, j) of channel c at each of the L output positions; `paddings` is
    ``[(top, bottom), (left, right)]``."""
    v = windows(pad(x, paddings), kernel_sizes, strides, dilations)  # (N, C, oh, ow, kh, kw)
    n, c, oh, ow, kh, kw = v.shape
    return np.ascontiguousarray(v.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, oh * ow)


def fold(cols, output_sizes, kernel_sizes, strides, paddings, dilations):
    """Paddle's fold (col2im), the adjoint of `unfold`: columns ``(N, C*kh*kw, L)`` summed into ``(N, C, H, W)``
    where windows overlap."""
    n, ckk, length = cols.shape
    kk = int(np.prod(kernel_sizes))
    osz = out_sizes(output_sizes, kernel_sizes, strides, paddings, dilations)
    if ckk % kk or length != int(np.prod(osz)):
        raise ValueError(f"fold: input of shape {list(cols.shape)} does not hold {kk}-element kernel columns of "
                         f"{osz[0]} x {osz[1]} = {int(np.prod(osz))} positions for output size {list(output_sizes)}")
    c = ckk // kk
    return col2im(cols.reshape([n, c] + list(kernel_sizes) + osz), [n, c] + list(output_sizes), kernel_sizes,
                  strides, paddings, dilations)
