"""An LSTM cell's elementwise chain (c' = sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c')) run
op by op (one allocating NumPy call per op, as the unfused program), by the `fuse_elementwise` pass's kernel (ufuncs
with out= buffers reused across runs), and by numexpr when it is installed (the question of issue 12: would an
optional dependency clearly win?). Ratios are against the op-by-op run measured in the same process.

Run: python bench/fused_chains.py [--repeat N]
"""
import argparse
import os
import time
import timeit

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_MAX_THREADS"):
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

import oar
import oar.nn.functional as F
from oar.passes import fuse_elementwise
from oar.static import Program, data, program_guard
from oar.graph.builder import static_mode
from oar.graph.executor import compile_program


def cell(f, i, g, o, c):
    c2 = F.sigmoid(f) * c + F.sigmoid(i) * oar.tanh(g)
    return F.sigmoid(o) * oar.tanh(c2), c2


def build(n):
    main = Program()
    with static_mode(), program_guard(main):
        xs = [data(name, [16, n], "float32") for name in "figoc"]
        outs = cell(*xs)
    return main, [x.name for x in xs], [v.name for v in outs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    try:
        import numexpr
        numexpr.set_num_threads(1)
    except ImportError:
        numexpr = None
    for n in (128, 8192):
        prog, feeds, fetch = build(n)
        arrays = [rng.standard_normal([16, n]).astype("float32") for _ in feeds]
        plain = compile_program(prog, feeds, fetch)
        fused = compile_program(fuse_elementwise(prog, keep=fetch), feeds, fetch)
        runs = [lambda: plain.run_trusted(list(arrays)), lambda: fused.run_trusted(list(arrays))]
        if numexpr is not None:
            env = dict(zip("figoc", arrays))
            s = "((tanh({0}*0.5)+1)*0.5)"
            c2 = f"{s.format('f')}*c + {s.format('i')}*tanh(g)"
            runs.append(lambda: (numexpr.evaluate(f"{s.format('o')}*tanh({c2})", env),
                                 numexpr.evaluate(c2, env)))
        for r in runs:
            r()
        number = 200 if n == 128 else 20
        best = [float("inf")] * len(runs)
        for _ in range(args.repeat):
            for k, r in enumerate(runs):
                best[k] = min(best[k], timeit.Timer(r, timer=time.process_time).timeit(number) / number)
        line = (f"[16, {n}]: op by op {best[0] * 1e6:8.1f} us   fused_elementwise {best[1] * 1e6:8.1f} us "
                f"({best[0] / best[1]:4.2f}x)")
        if numexpr is not None:
            line += f"   numexpr {best[2] * 1e6:8.1f} us ({best[0] / best[2]:4.2f}x)"
        else:
            line += "   numexpr not installed"
        print(line)


if __name__ == "__main__":
    main()
