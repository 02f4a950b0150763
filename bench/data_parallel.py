"""Data-parallel LeNet training with oar.DataParallel on 1 and 2 MPI ranks, and a paper estimate for more machines.

Each rank trains LeNet (eager, SGD) on its own batch of 64 MNIST-sized images (weak scaling: 2 ranks process twice
the samples per step). Printed: samples/s with 1 and 2 ranks and their ratio (the reference is the 1-rank run in
this same invocation), the gradient bytes all-reduced per step, the time of one such all-reduce alone, and the
time a step spends waiting for the all-reduce after its backward.

The estimate for 8 and 64 machines uses the ring all-reduce model: each of p ranks sends and receives
2 (p-1)/p of the gradient bytes, in 2 (p-1) latency-bound messages, with no overlap with compute (a lower bound
on efficiency: oar starts buckets during the backward).

BLAS is pinned to one thread per rank (as in train_step.py): the machine's cores are shared by the ranks.
Each configuration runs `--repeat` times, alternated, and the best run is kept (the machine may be shared).
Run: python bench/data_parallel.py [--steps N] [--repeat N]
"""
import argparse
import json
import os
import subprocess
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads BLAS
    os.environ.setdefault(_v, "1")

import numpy as np

BATCH = 64
NETWORKS = {"10 Gb/s Ethernet": (1.25e9, 50e-6), "100 Gb/s InfiniBand": (12.5e9, 5e-6)}  # bytes/s, s per message


def rank_main(steps):
    """One rank: timed DataParallel steps; rank 0 prints a JSON line of its measurements."""
    import oar
    import oar.distributed as dist
    from oar.distributed import comm
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    oar.seed(0)
    model = oar.DataParallel(oar.vision.models.LeNet())
    opt = oar.optimizer.SGD(0.01, parameters=model.parameters())
    g = np.random.default_rng(rank)
    x = oar.to_tensor(g.standard_normal((BATCH, 1, 28, 28)).astype("float32"))
    y = oar.to_tensor(g.integers(0, 10, (BATCH,)))
    reducer = model._reducer
    wait_s = [0.0]
    if reducer is not None:  # time spent in the end-of-backward finish (waiting for the all-reduce)
        finish = reducer.finish

        def timed_finish():
            t = time.perf_counter()
            finish()
            wait_s[0] += time.perf_counter() - t
        reducer.finish = timed_finish

    def step():
        loss = oar.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()

    for _ in range(3):
        step()
    if n > 1:
        dist.barrier()
    wait_s[0] = 0.0
    t = time.perf_counter()
    for _ in range(steps):
        step()
    if n > 1:
        dist.barrier()
    elapsed = time.perf_counter() - t
    nbytes = sum(p._data.nbytes for p in model.parameters())
    allreduce_s = 0.0
    if n > 1:  # one all-reduce of all the gradient bytes, alone
        buf = np.ones(nbytes // 4, np.float32)
        group = dist.get_group()
        reps = 50
        t = time.perf_counter()
        for _ in range(reps):
            comm.all_reduce(buf, "sum", group)
        allreduce_s = (time.perf_counter() - t) / reps
    if rank == 0:
        print(json.dumps({"ranks": n, "step_s": elapsed / steps, "samples_per_s": n * BATCH * steps / elapsed,
                          "bytes": nbytes, "allreduce_s": allreduce_s, "wait_s": wait_s[0] / steps}), flush=True)


def run(nprocs, steps):
    from oar.distributed.launch import find_mpiexec
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([find_mpiexec(), "-n", str(nprocs), sys.executable, os.path.abspath(__file__), "--rank",
                          "--steps", str(steps)], env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"{nprocs}-rank run failed:\n{out.stdout}{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def ring_allreduce_s(nbytes, p, bandwidth, latency):
    return 2 * (p - 1) / p * nbytes / bandwidth + 2 * (p - 1) * latency


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each configuration, alternated; best kept")
    ap.add_argument("--rank", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.rank:
        return rank_main(a.steps)
    runs = {1: [], 2: []}
    for _ in range(a.repeat):  # alternated, so a burst of load on the machine hits both configurations
        for n in (1, 2):
            runs[n].append(run(n, a.steps))
    one, two = (max(runs[n], key=lambda r: r["samples_per_s"]) for n in (1, 2))
    two["allreduce_s"] = min(r["allreduce_s"] for r in runs[2])
    print(f"LeNet, batch {BATCH} per rank, {a.steps} steps, best of {a.repeat} alternated runs, cores on this "
          f"machine: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    for r in (one, two):
        print(f"  {r['ranks']} rank(s): {r['samples_per_s']:8.0f} samples/s, step {r['step_s'] * 1e3:6.1f} ms, "
              f"waiting for the all-reduce after backward {r['wait_s'] * 1e3:5.2f} ms/step")
    print(f"  throughput 2 ranks / 1 rank: {two['samples_per_s'] / one['samples_per_s']:.2f}x (ideal 2.00x)")
    print(f"  gradient bytes all-reduced per step: {two['bytes']} ({two['bytes'] / 2**20:.2f} MiB); "
          f"one all-reduce of them alone (2 ranks, shared memory): {two['allreduce_s'] * 1e6:.0f} us")
    compute = one["step_s"]
    print(f"Paper estimate (ring all-reduce, no overlap, compute {compute * 1e3:.1f} ms/step as measured with 1 rank):")
    for name, (bw, lat) in NETWORKS.items():
        for p in (8, 64):
            t = ring_allreduce_s(two["bytes"], p, bw, lat)
            print(f"  {p:2d} machines, {name}: all-reduce {t * 1e3:6.2f} ms/step, efficiency "
                  f"{compute / (compute + t):.2f}, speed-up {p * compute / (compute + t):5.1f}x")


if __name__ == "__main__":
    main()
