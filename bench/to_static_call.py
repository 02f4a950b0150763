"""Per-call overhead of converted calls (no_grad forward), measured in the same run against the eager calls:

- Linear(784, 10) on a [16, 784] batch: the program is found with one key (the exact call signature, also for
  functions converted with an input_spec); its guards (the global `F`, `self.weight`, `self.bias`) are checked
  by one generated function before the plan runs with the parameters read from its scope;
- a Layer whose forward reads a float attribute, a global and a closure cell, and appends to a list it owns
  (guards of every kind, and a side effect replayed after each run);
- a Layer keeping a bounded history (append, pop past 8 items) and scaling by its length: the list is guarded
  by its identity and length (it is read only through `len()`), so warm calls do not trace again;
- the first call (conversion + tracing + run) of the seeds' LinearNet, with the import of `oar.jit` it starts (the
  package is imported on first use) timed apart. Without cached bytecode (PYTHONDONTWRITEBYTECODE=1, a read-only
  install) that import compiles oar.jit's source and is most of the first call.

Prints microseconds per call, the overhead over eager (converted - eager) and the ratio to eager.
"""
import importlib
import os
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

import oar

OFFSET = 0.5


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


def _make_guarded():
    bias = 0.25

    class Guarded(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = oar.nn.Linear(784, 10)
            self.scale = 2.0
            self.seen = []

        def forward(self, x):
            y = self.fc(x) * self.scale + OFFSET + bias
            self.seen.append(1)   # (reading the list too, e.g. its len, would retrace every call: guards compare
            return y              # a read list by its contents, and the append changes them; docs/dy2static.md)
    return Guarded


class History(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(784, 10)
        self.seen = []

    def forward(self, x):
        self.seen.append(1)
        if len(self.seen) > 8:
            self.seen.pop(0)
        return self.fc(x) * len(self.seen)


class LinearNet(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = oar.nn.Linear(784, 10)

    def forward(self, x):
        return self._linear(x)


def main():
    x = oar.to_tensor(np.random.default_rng(0).random([16, 784], dtype=np.float32))
    net = LinearNet()
    c0, t0 = time.process_time(), time.perf_counter()
    importlib.import_module("oar.jit")  # imported on first use: part of the first call, timed apart
    t1 = time.perf_counter()
    oar.jit.to_static(net)(x)
    t2, c2 = time.perf_counter(), time.process_time()
    import_ms, call_ms, cpu_ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3, (c2 - c0) * 1e3
    eager = oar.nn.Linear(784, 10)
    plain = oar.jit.to_static(oar.nn.Linear(784, 10))
    spec = oar.jit.to_static(oar.nn.Linear(784, 10), input_spec=[oar.static.InputSpec([None, 784], "float32")])
    guarded_cls = _make_guarded()
    g_eager, g_conv = guarded_cls(), oar.jit.to_static(guarded_cls())
    h_eager, h_conv = History(), oar.jit.to_static(History())
    with oar.no_grad():
        e, p, s, ge, gc, he, hc = best_us([lambda: eager(x), lambda: plain(x), lambda: spec(x), lambda: g_eager(x),
                                           lambda: g_conv(x), lambda: h_eager(x), lambda: h_conv(x)])
    print(f"Linear(784, 10) call, no_grad: eager {e:.1f} us, converted {p:.1f} us (+{p - e:.2f} us, {p / e:.2f}x "
          f"eager), converted with input_spec {s:.1f} us (+{s - e:.2f} us, {s / e:.2f}x eager)")
    print(f"guarded forward (attribute, global, closure, list side effect), no_grad: eager {ge:.1f} us, converted "
          f"{gc:.1f} us (+{gc - ge:.2f} us, {gc / ge:.2f}x eager)")
    print(f"bounded history read by len(), no_grad: eager {he:.1f} us, converted {hc:.1f} us (+{hc - he:.2f} us, "
          f"{hc / he:.2f}x eager; traced {len(h_conv.forward.retrace_reasons) + 1} times)")
    print(f"first call (conversion + tracing + run) LinearNet: {import_ms + call_ms:.1f} ms (target <= 50 ms): "
          f"importing oar.jit {import_ms:.1f} ms, converting, tracing and running {call_ms:.1f} ms; "
          f"{cpu_ms:.1f} ms of CPU time (what a loaded machine does not inflate)")


if __name__ == "__main__":
    main()
