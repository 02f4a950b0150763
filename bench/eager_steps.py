"""Eager training steps of the peer-benchmark models, this checkout against another (a baseline commit), measured in
the same run: each round runs one fresh process per checkout, alternating, so both see the same machine load.

Steps (the models of `bench/train_step.py` and `bench/eager_overhead.py`, eager only): (a) LinearNet 784->10 batch
16 Adam, (b) LeNet batch 64 Adam, (c) LSTM LM (LSTMCell over T=20 in a Python loop) SGD, (m) the 2-layer MLP of
eager_overhead.py (matmul, add, maximum, mean + backward), (r) resnet18 at 3x32x32, batch 8, Momentum. Each
process reports the best-of-`--repeat` process CPU time per step (one BLAS thread); the parent prints, per step,
the range over rounds for each checkout and the range of the per-round ratio this/baseline.

Run: python bench/eager_steps.py --baseline DIR [--rounds 5] [--repeat 7] [--only a,c,r]
(make DIR with e.g. ``git archive e7712ec | tar -x -C DIR``: the commit before the tape change of issue 26).

Measured 2026-11-27 on the 2-core shared development machine (loaded: compare ratios within one run), ms per step
(range over rounds) and the per-round ratio's median. "before" is e7712ec (the commit before the cycle-free tape),
"tape" 670b5be (the tape alone), "main" e4e7cb6 (the tape plus the view/version-counter, trace-hook and
check_nan_inf dispatch of later merges), "now" this branch (fused recurrent ops, the edges decoded once per walk,
version counters read directly, shape-only saves in one pass, more `grad_reads`):

| step | tape / before (4 rounds) | now / before (5 rounds) | now / main (5 rounds) | now ms |
|---|---|---|---|---|
| (a) LinearNet | 1.09 (1.05-1.17) | 1.14 (1.13-1.15) | 0.96 (0.89-1.03) | 0.133-0.154 |
| (b) LeNet | | 0.91 (0.88-0.92) | 0.99 (0.98-1.02) | 20.2-21.7 |
| (c) LSTM LM | 1.10 (1.06-1.11) | 0.82 (0.81-0.86) | 0.76 (0.73-0.80) | 10.9-12.0 |
| (m) MLP | 1.18 (1.16-1.21) | 1.25 (1.20-1.28) | 0.91 (0.90-0.98) | 0.087-0.097 |

LeNet and the LSTM LM are faster than before the tape; the two smallest steps (LinearNet, 4 ops; MLP, 6 ops) are
not: per recorded op the tape still costs ~0.2-0.4 us more than the old one (an edge tuple and a weak reference per
node instead of strong references; a shape stand-in per shape-only input), and every op ~0.1 us more for the
dispatch checks of the later merges (views, trace hook, check_nan_inf).

Round 2 (issue 26, branch r2-eager), measured the same way on the same machine. "main" is e1f1d13, where the merges
since the table above had brought (a) to 1.20 (1.12-1.23) and (m) to 1.41 (1.36-1.42) of "before" (4 rounds):
`Tensor.clear_grad()` had started to allocate new zero gradients (now zeroed in place, as Paddle), the optimizer's
`clear_grad` imported `jit.recorder` per parameter. "r2" also writes out one- to three-input ops in `apply` and
one- and two-input ops in `Node` (a comprehension is a function call in Python 3.11, ~70 ns), lets shape-only nodes
skip the version loop and look up their shared stand-ins in the walk, and makes the root gradient without `np.ones`:

| step | r2 / before (5 rounds; an earlier run) | r2 / main (5 rounds; an earlier run) | r2 ms |
|---|---|---|---|
| (a) LinearNet | 1.14 (1.14-1.17); 1.15 (1.07-1.19) | 0.91 (0.90-0.94); 0.91 (0.91-0.94) | 0.127-0.133 |
| (b) LeNet | 0.94 (0.85-1.03); 0.87 (0.84-0.89) | 0.98 (0.92-1.02); 1.00 (0.98-1.07) | 18.8-21.1 |
| (c) LSTM LM | 0.86 (0.85-0.89); 0.89 (0.87-0.91) | 0.99 (0.97-1.00); 0.97 (0.95-1.04) | 10.2-11.3 |
| (m) MLP | 1.23 (1.22-1.25); 1.25 (1.24-1.29) | 0.85 (0.84-0.87); 0.87 (0.85-0.90) | 0.086-0.089 |

Where the MLP step's remaining ~17 us over "before" goes (timers around the parts, best of 200 x 50 steps, both
checkouts alternating): the forward is even (19.5 us), `clear_grad` of 4 tensors +1.2 us (zeroing, which "before"
did not do), the backward walk +9 us: its rules +3.5 us (each op ~0.1 us more dispatch: views, device,
check_nan_inf, trace hook), `_graph` decoding edges +0.8 us, leaf delivery +0.9 us, the rest (weak output
references, stand-ins, per-node bookkeeping) ~+4 us. Not recovered: it is what the cycle-free tape costs.

Round 3 (branch r3-python: the Python around the ops; see bench/trace_lazy.py), 3 rounds against main adccaba on
the same loaded machine, ratio this / main per round (median): (a) LinearNet 0.940-0.963 (0.942), 0.123-0.127 ms
against 0.131-0.133 ms; (b) LeNet 0.971-0.995 (0.985), 18.6-19.0 ms; (m) MLP 0.999-1.021 (1.005), 0.087 ms (it
runs no layer, loss or optimizer: only the cheaper `no_grad` of its backward, ~0.5 us, below the noise).

Round 3 (issue 26, branch r3-eager), same machine, 2026-11-27 15:26-15:31 UTC (load average 1.6-7, falling; other
engineers' test suites running), "main" f05461d. The walk keys gradients and consumer counts by node (no `id()` per
edge) and reads each node's `edges` as they are (a per-walk copy only for nodes with a blocked input), calls
single-output rules inline with routing and the count-down in one loop, switches the grad mode without two context
managers; `Tensor.backward` enters without lists and makes its ones directly; kernels on these steps skip
`array_module` calls and NumPy's Python wrappers (`np.swapaxes`, `ndarray.max/min/sum`: the ufuncs' reduce),
the cross entropy picks and subtracts by one flat index per row and makes its unsigned label view once per dtype;
the maximum rule makes one zero; `unbroadcast` compares array shapes without lists. (Accumulating `.grad` in place
was tried and dropped: LeNet's step got 5-10% slower, glibc's mmap threshold, see `Tensor._accumulate`.)

| step | r3 / before: median (range), three runs of 15 or two of 5 rounds | r3 / main (7 rounds) | r3 ms |
|---|---|---|---|
| (a) LinearNet | 1.008 (0.999-1.035); 1.007 (0.98-1.06); 1.000 (0.98-1.04) | 0.894 (0.870-0.922) | 0.111-0.119 |
| (b) LeNet | 0.922 (0.910-0.961); 0.917 (0.909-0.957) | 1.011 (0.939-1.029) | 18.0-19.1 |
| (c) LSTM LM | 0.861 (0.845-0.889); 0.850 (0.840-0.896) | 0.974 (0.944-0.997) | 9.5-10.1 |
| (m) MLP | 1.008 (0.986-1.030); 0.997 (0.96-1.03); 0.993 (0.975-1.019) | 0.817 (0.805-0.831) | 0.069-0.073 |

After merging r3-python and r3-eager into main (15:36 UTC, load average 5-6.6, two other jobs running), against
"before" e7712ec: (a) 0.958-0.984 (median 0.965; 7 rounds), (m) 0.978-1.028 (median 0.996; 7 rounds), (b)
0.949-0.955 (3 rounds), (c) 0.845-0.873 (3 rounds), (r) resnet18 0.39 (64-67 ms against 166-168 ms; 3 runs each,
alternating, before the step was added here: the convolutions as one GEMM of issue 26).

On the session's final commit (r4/r5/r6 merged: lazy plan, recording, `stack` as one op; load average 0.7-1.7):
(a) 0.940-0.970 (median 0.964), (m) 0.974-0.996 (median 0.988), 5 rounds each.

(a) and (m) are at parity with "before" within the run-to-run spread (medians 0.99-1.01), not clearly below it.
What still costs more than "before" in them: `clear_grad` zeroing in place (Paddle's default; "before" dropped the
gradient) ~+1.3 us on the MLP, the weak output references and shape stand-ins of the tape; in (a) also the Python
around the ops outside this branch (`Layer.__call__`, the functional wrappers, the optimizer loop: ~+3 us measured
with timers around the phases).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEPS = ("a", "b", "c", "m", "r")

_CHILD = r"""
import os, sys, json, timeit, time
for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"
root, bench, which, repeat = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
sys.path.insert(0, root)
import numpy as np
import oar
assert os.path.dirname(os.path.dirname(os.path.abspath(oar.__file__))) == os.path.abspath(root), oar.__file__
import importlib.util
spec = importlib.util.spec_from_file_location("train_step_bench", os.path.join(bench, "train_step.py"))
ts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ts)


def mlp_step():
    rng = np.random.default_rng(0)
    x = oar.to_tensor(rng.standard_normal((32, 64)).astype(np.float32))
    params = [oar.to_tensor(a, stop_gradient=False) for a in (
        (rng.standard_normal((64, 64)) * 0.1).astype(np.float32), np.zeros(64, np.float32),
        (rng.standard_normal((64, 10)) * 0.1).astype(np.float32), np.zeros(10, np.float32))]
    w1, b1, w2, b2 = params

    def step():
        h = oar.maximum(oar.matmul(x, w1) + b1, 0.0)
        oar.mean(oar.matmul(h, w2) + b2).backward()
        for p in params:
            p.clear_grad()
    return step


def resnet18_step():
    oar.seed(0)
    rng = np.random.default_rng(0)
    net = oar.vision.models.resnet18(num_classes=10)
    opt = oar.optimizer.Momentum(0.01, parameters=net.parameters())
    x = oar.to_tensor(rng.random((8, 3, 32, 32), dtype=np.float32))
    y = oar.to_tensor(rng.integers(0, 10, (8, 1)))
    loss_fn = oar.nn.CrossEntropyLoss()

    def step():
        loss_fn(net(x), y).backward()
        opt.step()
        opt.clear_grad()
    return step


res = {}
for w in which:
    if w == "m":
        step, number = mlp_step(), 500
    elif w == "r":
        step, number = resnet18_step(), 3
    else:
        model, _, x, y = ts.setup(w)
        step, number = ts.oar_stepper(model, x, y, make_opt=ts.make_opt(w)), {"a": 300, "b": 5, "c": 5}[w]
    step()
    res[w] = min(timeit.Timer(step, timer=time.process_time).timeit(number) / number for _ in range(repeat))
print(json.dumps(res))
"""


def run(root, which, repeat):
    r = subprocess.run([sys.executable, "-c", _CHILD, root, HERE, ",".join(which), str(repeat)],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{root}: {r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", required=True, help="another oar checkout (the commit to compare against)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default=",".join(STEPS))
    args = ap.parse_args()
    which = args.only.split(",")
    ours, base = {w: [] for w in which}, {w: [] for w in which}
    for k in range(args.rounds):
        order = [(ROOT, ours), (args.baseline, base)]
        for root, store in (order if k % 2 == 0 else order[::-1]):
            for w, t in run(root, which, args.repeat).items():
                store[w].append(t)
    print(f"{args.rounds} rounds; ms per step, min-max over rounds; ratio = this / baseline per round")
    for w in which:
        ratios = [a / b for a, b in zip(ours[w], base[w])]
        print(f"  ({w}) this {min(ours[w]) * 1e3:8.3f}-{max(ours[w]) * 1e3:8.3f}   baseline "
              f"{min(base[w]) * 1e3:8.3f}-{max(base[w]) * 1e3:8.3f}   ratio {min(ratios):5.3f}-{max(ratios):5.3f} "
              f"(median {sorted(ratios)[len(ratios) // 2]:5.3f})")


if __name__ == "__main__":
    main()
