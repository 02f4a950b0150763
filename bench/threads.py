"""The BLAS thread policy (`oar/kernels/threads.py`) measured: wall time per GEMM of program-sized shapes with 1 and
with N BLAS threads (N = the machine's cores), on an idle machine and beside one competing busy process
(``while True: pass``), as a notebook, a DataLoader worker or another job would be.

Shapes: an LSTM projection (32,128)@(128,512), a CIFAR conv GEMM (32*32*32 = 32768 columns, 27 -> 32 channels,
as (32,27)@(27,32768)), a ResNet conv GEMM (128,1152)@(1152,3136), and Linear(2048,1000) at batch 64.
    target (the policy's reason): with the busy process, 1 thread is not slower than N for the small shapes.

Run: python bench/threads.py [--repeat N]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

from oar.kernels.threads import blas_threads, set_blas_threads

SHAPES = [("lstm proj", (32, 128), (128, 512)), ("cifar conv", (32, 27), (27, 32768)),
          ("resnet conv", (128, 1152), (1152, 3136)), ("linear 2048x1000", (64, 2048), (2048, 1000))]


def per_call(a, b, repeat):
    """Median wall seconds of one GEMM over `repeat` timed batches (wall: the waiting is the point)."""
    n = max(1, int(2e8 / (a.shape[0] * a.shape[1] * b.shape[1]) / repeat))
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(n):
            np.matmul(a, b)
        ts.append((time.perf_counter() - t) / n)
    return sorted(ts)[len(ts) // 2]


def table(repeat, many):
    rng = np.random.default_rng(0)
    rows = []
    for name, sa, sb in SHAPES:
        a, b = rng.random(sa, dtype=np.float32), rng.random(sb, dtype=np.float32)
        got = []
        for n in (1, many):
            set_blas_threads(n)
            np.matmul(a, b)
            got.append(per_call(a, b, repeat))
        rows.append((name, *got))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    before = blas_threads()
    many = max(2, os.cpu_count() or 2)
    try:
        idle = table(args.repeat, many)
        busy_proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            time.sleep(0.5)
            busy = table(args.repeat, many)
        finally:
            busy_proc.kill()
            busy_proc.wait()
    finally:
        set_blas_threads(before)
    print(f"{'GEMM':<18} {'idle 1 thr':>11} {f'idle {many} thr':>11} {'busy 1 thr':>11} {f'busy {many} thr':>11} "
          f"{'busy N/1':>9}")
    for (name, i1, im), (_, b1, bm) in zip(idle, busy):
        print(f"{name:<18} {i1 * 1e6:9.0f}us {im * 1e6:9.0f}us {b1 * 1e6:9.0f}us {bm * 1e6:9.0f}us {bm / b1:8.2f}x")


if __name__ == "__main__":
    main()
