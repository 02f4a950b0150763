"""Convolution and pooling kernels against BLAS: achieved GFLOP/s of each LeNet and ResNet conv layer's forward,
filter gradient and input gradient next to `np.matmul` on the GEMM of the same size, and the whole captured LeNet
training step (its FLOPs counted) against those GEMMs alone.

LeNet: Conv2D(1,20,5)-ReLU-MaxPool2-Conv2D(20,50,5)-ReLU-MaxPool2-Linear(800,500)-ReLU-Linear(500,10), batch 64.
A conv layer's GEMM is ``(N * OH * OW, C * KH * KW) x (C * KH * KW, O)``; forward, filter gradient and input
gradient each do that many multiply-adds.
ResNet (batch 8): the 7x7/2 stem on 3x224x224 and 3x3 convolutions of each stage (64@56, 128@28 /2 from 64@56,
256@14, 512@7), padding 1 (3 for the stem).
    targets: each conv kernel >= 60% of matmul's GFLOP/s (issue 26); the captured step >= 40% of matmul's GFLOP/s.

BLAS threads: pinned to one unless OAR_BENCH_THREADS is set (as bench/train_step.py); with one thread the
timings are process CPU time. Timings are the best of interleaved repeats; on a shared machine run it a few times
and read the ranges.

Run: python bench/kernels.py [--repeat N]
"""
import argparse
import os
import sys
import time
import timeit

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads BLAS
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

# One BLAS thread: process CPU time, which other processes' load on a shared machine does not inflate (the best
# of interleaved repeats is taken as well). More threads: wall time (CPU time would add the threads up).
CLOCK = time.process_time if os.environ["OPENBLAS_NUM_THREADS"] == "1" else time.perf_counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's oar
import train_step  # noqa: E402  (the LeNet model and step of bench/train_step.py)

from oar.kernels import conv as K  # noqa: E402
from oar.kernels import pool as P  # noqa: E402

BATCH = 64
# (name, batch, in channels, input size, out channels, kernel, stride, padding)
CONVS = [("conv1", BATCH, 1, 28, 20, 5, 1, 0), ("conv2", BATCH, 20, 12, 50, 5, 1, 0)]
RESNET = [("stem 7x7/2", 8, 3, 224, 64, 7, 2, 3), ("64@56", 8, 64, 56, 64, 3, 1, 1),
          ("128@28 /2", 8, 64, 56, 128, 3, 2, 1), ("256@14", 8, 256, 14, 256, 3, 1, 1),
          ("512@7", 8, 512, 7, 512, 3, 1, 1)]
FCS = [(800, 500), (500, 10)]


def best(fns, number, repeat):
    """Best seconds per call of each function, timed interleaved."""
    for f in fns:
        f()
    out = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, f in enumerate(fns):
            out[i] = min(out[i], timeit.Timer(f, timer=CLOCK).timeit(number) / number)
    return out


def conv_row(rng, name, n, c, h, o, ks, stride, p, repeat, rows):
    """Appends the three kernel rows of one convolution; returns (matmul seconds, FLOPs) of its GEMM."""
    x = rng.random((n, c, h, h), dtype=np.float32)
    w = rng.random((o, c, ks, ks), dtype=np.float32)
    args = ([stride, stride], [(p, p), (p, p)], [1, 1], 1)
    y = K.conv_forward(x, w, *args)
    g = rng.random(y.shape, dtype=np.float32)
    m, k = n * y.shape[2] * y.shape[3], c * ks * ks
    a, b = rng.random((m, k), dtype=np.float32), rng.random((k, o), dtype=np.float32)
    flops = 2.0 * m * k * o
    number = 3 if flops < 1e9 else 1
    t_mm, t_f, t_gw, t_gx = best([lambda: a @ b, lambda: K.conv_forward(x, w, *args),
                                  lambda: K.conv_grad_filter(x, g, w.shape, *args),
                                  lambda: K.conv_grad_input(w, g, x.shape, *args)], number, repeat)
    mm = flops / t_mm / 1e9
    for what, t in (("forward", t_f), ("filter grad", t_gw), ("input grad", t_gx)):
        gf = flops / t / 1e9
        rows.append(f"{name:10s} {what:12s} {t * 1e3:7.2f} ms {gf:6.1f} GFLOP/s   matmul {mm:6.1f} GFLOP/s   "
                    f"{gf / mm * 100:5.1f}% (target >= 60%)")
    return t_mm, flops, y


def conv_rows(repeat, resnet=True):
    rng = np.random.default_rng(0)
    rows, gemm_time, flops_total = [], 0.0, 0.0
    for name, n, c, h, o, ks, stride, p in CONVS:
        t_mm, flops, y = conv_row(rng, name, n, c, h, o, ks, stride, p, repeat, rows)
        # the step needs forward and filter gradient of both layers, the input gradient of conv2 only
        n_gemms = 3 if name == "conv2" else 2
        gemm_time += n_gemms * t_mm
        flops_total += n_gemms * flops
        pooled = np.maximum(y, 0)
        out, idx = P.max_pool(pooled, [2, 2], [2, 2], [(0, 0), (0, 0)], False)
        t_p, t_pg = best([lambda: P.max_pool(pooled, [2, 2], [2, 2], [(0, 0), (0, 0)], False),
                          lambda: P.max_pool_grad(pooled.shape, idx, out, [2, 2], [2, 2], [(0, 0), (0, 0)], False)],
                         5, repeat)
        rows.append(f"{name} max-pool 2x2 forward {t_p * 1e3:6.2f} ms, backward {t_pg * 1e3:6.2f} ms")
    for i, o in FCS:
        a, b = rng.random((BATCH, i), dtype=np.float32), rng.random((i, o), dtype=np.float32)
        t_mm, = best([lambda: a @ b], 20, repeat)
        gemm_time += 3 * t_mm
        flops_total += 3 * 2.0 * BATCH * i * o
    for spec in RESNET if resnet else ():
        conv_row(rng, *spec, repeat, rows)
    return rows, flops_total, gemm_time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-resnet", action="store_true", help="LeNet shapes only")
    args = ap.parse_args()
    print(f"BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}")
    rows, flops, gemm_time = conv_rows(args.repeat, not args.no_resnet)
    for r in rows:
        print(r)
    model, _, x, y = train_step.setup("b")
    step = train_step.oar_stepper(model, x, y, captured=True)
    t_step, = best([step], 3, args.repeat)
    gf, mm = flops / t_step / 1e9, flops / gemm_time / 1e9
    print(f"captured LeNet step {t_step * 1e3:7.2f} ms for {flops / 1e6:.0f} MFLOP: {gf:5.1f} GFLOP/s; the same GEMMs "
          f"alone {gemm_time * 1e3:.2f} ms ({mm:5.1f} GFLOP/s): {gf / mm * 100:5.1f}% (target >= 40%)")


if __name__ == "__main__":
    main()
