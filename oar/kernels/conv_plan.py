"""Planned 2-D convolution for inference: buffers allocated once per input shape and reused on every run, and the
im2col algorithm chosen by timing the candidates on the first run of that shape.

`ConvRunner(weight, strides, paddings, dilations)` belongs to one convolution of one compiled plan (so two
predictors never share buffers). For each input shape it builds a `_ShapePlan`: a zero-bordered padded input
buffer (only the interior is rewritten per run), a column buffer, and the fastest of the im2col algorithms:

- ``nchw-offsets``: one strided copy per kernel offset into ``(C, kh, kw, L)`` columns, then ``W (O, CK) @ cols``;
- ``nchw-window``: one `np.copyto` of the whole sliding-window view into the same columns;
- ``nhwc``: the input moved to channels-last, one copy per kernel offset into ``(L, kh, kw, C)`` columns (each a
  contiguous run of C values), then ``cols @ W' (kh kw C, O)``; best when the image is small and C large.
- ``direct`` (1x1, stride 1, no padding): no columns at all, ``W (O, C) @ x (C, H W)``.

All algorithms compute the same sums (the same products, added by BLAS in its own order), so the choice changes
results only by float rounding. With ``reuse_output`` the result is
written into a buffer of the plan too (the caller must not hand it out beyond the run). Groups other than 1 are
not planned (`oar.kernels.conv.conv_forward` runs them).

Example:
    >>> r = ConvRunner(np.ones([8, 3, 3, 3], 'float32'), (1, 1), [(1, 1), (1, 1)], (1, 1))
    >>> r(np.ones([1, 3, 5, 5], 'float32')).shape
    (1, 8, 5, 5)
"""
import time

import numpy as np

from .conv import out_sizes

TUNE_REPEAT = 3  # timed runs per candidate on the first call of a shape


class _ShapePlan:
    """Buffers and the chosen algorithm for one input shape."""

    def __init__(self, runner, shape, dtype):
        n, c, h, w = shape
        (pt, pb), (pl, pr) = runner.paddings
        kh, kw = runner.ksize
        self.oh, self.ow = out_sizes((h, w), runner.ksize, runner.strides, runner.paddings, runner.dilations)
        self.n, self.c, self.h, self.w, self.pt, self.pl = n, c, h, w, pt, pl
        self.padded = (pt or pb or pl or pr)
        self.xpad = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype) if self.padded else None
        self.xh = None
        self.cols = None
        self.colsh = None
        ll = self.oh * self.ow
        direct = (kh, kw) == (1, 1) and runner.strides == (1, 1) and not self.padded
        self.candidates = ["direct"] if direct else ["nchw-offsets", "nchw-window", "nhwc"]
        if not direct:
            self.cols = np.empty((n, c, kh, kw, self.oh, self.ow), dtype)
            self.colsh = np.empty((n, self.oh, self.ow, kh, kw, c), dtype)
            self.xh = np.zeros((n, h + pt + pb, w + pl + pr, c), dtype)
        self.ll = ll
        o = runner.o
        self.out = np.empty((n, o, ll), dtype) if runner.reuse_output else None       # NCHW algorithms
        self.outh = np.empty((n * ll, o), dtype) if runner.reuse_output and not direct else None  # nhwc
        self.algo = self.candidates[0] if len(self.candidates) == 1 else None


class ConvRunner:
    """One inference convolution ``(N, C, H, W) -> (N, O, OH, OW)`` with planned buffers (see the module doc)."""

    def __init__(self, weight, strides, paddings, dilations, reuse_output=False):
        self.weight, self.reuse_output = weight, reuse_output
        self.o = weight.shape[0]
        self.ksize = tuple(weight.shape[2:])
        self.strides, self.dilations = tuple(strides), tuple(dilations)
        self.paddings = [tuple(p) for p in paddings]
        self.wm = weight.reshape(self.o, -1)                                     # (O, C kh kw)
        self.wh = np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(-1, self.o))  # (kh kw C, O)
        self.plans = {}

    def __call__(self, x):
        key = (x.shape, x.dtype)
        plan = self.plans.get(key)
        if plan is None:
            plan = self.plans[key] = _ShapePlan(self, x.shape, x.dtype)
        if plan.algo is None:
            plan.algo = self._tune(plan, x)
        return getattr(self, "_" + plan.algo.replace("-", "_"))(plan, x)

    def _tune(self, plan, x):
        best, best_t = None, float("inf")
        for algo in plan.candidates:
            fn = getattr(self, "_" + algo.replace("-", "_"))
            fn(plan, x)
            t = time.perf_counter()
            for _ in range(TUNE_REPEAT):
                fn(plan, x)
            t = time.perf_counter() - t
            if t < best_t:
                best, best_t = algo, t
        return best

    # ---- algorithms --------------------------------------------------------------------------------------
    def _padded(self, plan, x):
        if not plan.padded:
            return x
        plan.xpad[:, :, plan.pt:plan.pt + plan.h, plan.pl:plan.pl + plan.w] = x
        return plan.xpad

    def _offsets(self, plan, src, dst, channels_last):
        """Copies the input under each kernel offset into `dst` (``(N, C, kh, kw, OH, OW)`` or channels last)."""
        (sh, sw), (dh, dw) = self.strides, self.dilations
        eh, ew = sh * (plan.oh - 1) + 1, sw * (plan.ow - 1) + 1
        for i in range(self.ksize[0]):
            for j in range(self.ksize[1]):
                if channels_last:
                    dst[:, :, :, i, j] = src[:, i * dh:i * dh + eh:sh, j * dw:j * dw + ew:sw]
                else:
                    dst[:, :, i, j] = src[:, :, i * dh:i * dh + eh:sh, j * dw:j * dw + ew:sw]

    def _gemm_nchw(self, plan, cols):
        cm = cols.reshape(plan.n, -1, plan.ll)
        if plan.n == 1:
            out = np.matmul(self.wm, cm[0], out=None if plan.out is None else plan.out[0])
        else:
            out = np.matmul(self.wm, cm, out=plan.out)
        return out.reshape(plan.n, self.o, plan.oh, plan.ow)

    def _direct(self, plan, x):
        return self._gemm_nchw(plan, x)

    def _nchw_offsets(self, plan, x):
        self._offsets(plan, self._padded(plan, x), plan.cols, False)
        return self._gemm_nchw(plan, plan.cols)

    def _nchw_window(self, plan, x):
        from .conv import windows
        v = windows(self._padded(plan, x), self.ksize, self.strides, self.dilations)
        np.copyto(plan.cols, v.transpose(0, 1, 4, 5, 2, 3))
        return self._gemm_nchw(plan, plan.cols)

    def _nhwc(self, plan, x):
        plan.xh[:, plan.pt:plan.pt + plan.h, plan.pl:plan.pl + plan.w, :] = x.transpose(0, 2, 3, 1)
        self._offsets(plan, plan.xh, plan.colsh, True)
        out = np.matmul(plan.colsh.reshape(plan.n * plan.ll, -1), self.wh, out=plan.outh)  # (N L, O)
        return out.reshape(plan.n, plan.oh, plan.ow, self.o).transpose(0, 3, 1, 2)
