"""Per-call overhead of a converted Linear(784, 10) on a [16, 784] batch (no_grad forward), measured in the same run
against the eager Linear call: a converted call finds its program with one key (the exact call signature, also
for functions converted with an input_spec) and runs its plan with the parameters read from its scope.

Prints microseconds per call and the ratio to eager.
"""
import os
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

import oar


def best_us(fns, n=2000, rounds=5):
    """Best per-call time (us) of each function; rounds alternate between them so all see the same load."""
    for f in fns:
        for _ in range(200):
            f()
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best[i] = min(best[i], (time.perf_counter() - t0) / n)
    return [b * 1e6 for b in best]


def main():
    x = oar.to_tensor(np.random.default_rng(0).random([16, 784], dtype=np.float32))
    eager = oar.nn.Linear(784, 10)
    plain = oar.jit.to_static(oar.nn.Linear(784, 10))
    spec = oar.jit.to_static(oar.nn.Linear(784, 10), input_spec=[oar.static.InputSpec([None, 784], "float32")])
    with oar.no_grad():
        e, p, s = best_us([lambda: eager(x), lambda: plain(x), lambda: spec(x)])
    print(f"Linear(784, 10) call, no_grad: eager {e:.1f} us, converted {p:.1f} us ({p / e:.2f}x eager), "
          f"converted with input_spec {s:.1f} us ({s / e:.2f}x eager)")


if __name__ == "__main__":
    main()
