"""Which convolution algorithm for which shape: every `ConvRunner` candidate (oar/kernels/conv_plan.py) and a
Winograd F(2x2, 3x3) written here in NumPy, timed on resnet18's 3x3 stride-1 convolutions at 3x64x64, batch 1, in
one run. The predictor's runner picks among its candidates by timing them on the first run of a shape; Winograd
is not a candidate because it loses on every shape here (rerun to check on your machine).

    .venv/bin/python bench/conv_algorithms.py
"""
import os
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np  # noqa: E402
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from oar.kernels.conv_plan import ConvRunner, _ShapePlan  # noqa: E402

G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]], np.float32)


def winograd_weights(w):
    """U = G g G^T for every (out, in) filter: (4, 4, O, C)."""
    return np.ascontiguousarray(np.einsum("ik,ockl,jl->ijoc", G, w, G).astype(np.float32))


def _bt(d, axis):  # B^T d along `axis` (size 4): additions only
    d0, d1, d2, d3 = [np.take(d, i, axis=axis) for i in range(4)]
    return np.stack([d0 - d2, d1 + d2, d2 - d1, d1 - d3], axis=axis)


def winograd(x, u, pad=1):
    """3x3, stride 1 convolution by F(2x2, 3x3): 16 GEMMs of (O, C) @ (C, tiles) instead of one of (O, 9C)."""
    n, c, h, w = x.shape
    o = u.shape[2]
    oh, ow = h + 2 * pad - 2, w + 2 * pad - 2
    th, tw = (oh + 1) // 2, (ow + 1) // 2
    xp = np.zeros((n, c, 2 * th + 2, 2 * tw + 2), np.float32)
    xp[:, :, pad:pad + h, pad:pad + w] = x
    d = sliding_window_view(xp, (4, 4), axis=(2, 3))[:, :, ::2, ::2].transpose(4, 5, 1, 0, 2, 3)
    v = _bt(_bt(d, 0), 1).reshape(16, c, -1)
    m = np.matmul(u.reshape(16, o, c), v).reshape(4, 4, o, n, th, tw)
    r = np.stack([m[0] + m[1] + m[2], m[1] - m[2] - m[3]], 0)
    y = np.stack([r[:, 0] + r[:, 1] + r[:, 2], r[:, 1] - r[:, 2] - r[:, 3]], 1)
    return y.transpose(3, 2, 4, 0, 5, 1).reshape(n, o, 2 * th, 2 * tw)[:, :, :oh, :ow]


def best(fn, repeat=5, inner=20):
    fn()
    t_best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        t_best = min(t_best, (time.perf_counter() - t) / inner)
    return t_best


def main():
    rng = np.random.default_rng(0)
    for c, h in [(64, 16), (128, 8), (256, 4), (512, 2)]:
        x = rng.standard_normal((1, c, h, h)).astype("float32")
        w = (rng.standard_normal((c, c, 3, 3)) * 0.05).astype("float32")
        r = ConvRunner(w, (1, 1), [(1, 1), (1, 1)], (1, 1))
        plan = r.plans[(x.shape, x.dtype)] = _ShapePlan(r, x.shape, x.dtype)
        times = {}
        for algo in plan.candidates:
            plan.algo = algo
            times[algo] = best(lambda: r(x))
        u = winograd_weights(w)
        ref = r(x)
        assert np.abs(winograd(x, u) - ref).max() <= 1e-4 * np.abs(ref).max()
        times["winograd"] = best(lambda: winograd(x, u))
        fastest = min(times, key=times.get)
        print(f"C=O={c:3d} {h:2d}x{h:<2d} " + "  ".join(f"{k} {v * 1e6:7.0f} us" for k, v in times.items())
              + f"   fastest: {fastest}; winograd / fastest candidate "
              + f"{times['winograd'] / min(v for k, v in times.items() if k != 'winograd'):.2f}x")


if __name__ == "__main__":
    main()
