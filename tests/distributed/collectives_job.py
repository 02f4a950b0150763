"""Run on N ranks (mpiexec): every collective, eager, in a static program and in a to_static function, against
NumPy. Each rank writes ``{check: max abs error or an error text}`` to ``<out_dir>/result.<rank>.json``."""
import json
import os
import sys

import numpy as np

import oar
import oar.distributed as dist

dist.init_parallel_env(timeout=60)
RANK, N = dist.get_rank(), dist.get_world_size()
SHAPE = [2, 3]


def data(r, dtype="float32"):
    """Rank r's input: known to every rank, so each can compute the expected result."""
    return (np.arange(6).reshape(SHAPE) + 1.5 * r + 1).astype(dtype)


ALL = np.stack([data(r) for r in range(N)])
EXPECTED_REDUCE = {"sum": ALL.sum(0), "max": ALL.max(0), "min": ALL.min(0), "prod": ALL.prod(0),
                   "avg": ALL.mean(0)}


def expected(name):
    """What this rank must hold after collective `name` (the same function checks eager and static runs)."""
    if name.startswith("all_reduce_"):
        return EXPECTED_REDUCE[name[len("all_reduce_"):]]
    if name == "broadcast":
        return data(1)
    if name == "all_gather":
        return ALL
    if name == "reduce":
        return EXPECTED_REDUCE["sum"] if RANK == 1 else data(RANK)
    if name == "scatter":
        return data(0) * 10 + RANK
    if name == "alltoall":  # rank j sends row j*10 + i to rank i
        return np.stack([data(j) * 10 + RANK for j in range(N)])
    if name == "send_recv":
        return data(0) if RANK == 1 else data(RANK)
    raise KeyError(name)


def run(name, x):
    """Collective `name` on this rank's input `x` (Tensor or Variable); returns what the rank ends up with."""
    if name.startswith("all_reduce_"):
        dist.all_reduce(x, op=name[len("all_reduce_"):])
        return x
    if name == "broadcast":
        dist.broadcast(x, src=1)
        return x
    if name == "all_gather":
        parts = []
        dist.all_gather(parts, x)
        return oar.stack(parts)
    if name == "reduce":
        dist.reduce(x, dst=1)
        return x
    if name == "scatter":
        src = [x * 10 + r for r in range(N)] if RANK == 0 else None
        out = oar.zeros_like(x)
        dist.scatter(out, src, src=0)
        return out
    if name == "alltoall":
        out = []
        dist.alltoall([x * 10 + r for r in range(N)], out)
        return oar.stack(out)
    if name == "send_recv":
        if RANK == 0:
            dist.send(x, dst=1)
        elif RANK == 1:
            dist.recv(x, src=0)
        return x
    raise KeyError(name)


NAMES = ["all_reduce_sum", "all_reduce_max", "all_reduce_min", "all_reduce_prod", "all_reduce_avg", "broadcast",
         "all_gather", "reduce", "scatter", "alltoall", "send_recv"]


def check(got, name):
    return float(np.abs(np.asarray(got, np.float64) - expected(name)).max())


def eager(name):
    return check(run(name, oar.to_tensor(data(RANK))).numpy(), name)


def static_program(name):
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", SHAPE, "float32")
            y = run(name, x)
        exe = oar.static.Executor()
        exe.run(startup)
        got = exe.run(main, feed={"x": data(RANK)}, fetch_list=[y])[0]
        ops = [op.type for op in main.global_block().ops]
        assert any(t.startswith("c_") or t.endswith("_v2") for t in ops) or name == "send_recv" and RANK > 1, ops
    finally:
        oar.disable_static()
    return check(got, name)


def converted(name):
    fn = oar.jit.to_static(lambda x: run(name, x), input_spec=[oar.static.InputSpec(SHAPE, "float32")])
    return check(fn(oar.to_tensor(data(RANK))).numpy(), name)


results = {}
for name in NAMES:
    for kind, fn in (("eager", eager), ("static", static_program), ("to_static", converted)):
        try:
            results[f"{kind}:{name}"] = fn(name)
        except Exception as e:  # recorded, so the test names the failing collective
            results[f"{kind}:{name}"] = f"{type(e).__name__}: {e}"
dist.barrier()
# a group of ranks 0 and 2 (or 0 alone): collectives see only its members
g = dist.new_group([0, N - 1])
x = oar.to_tensor(data(RANK))
dist.all_reduce(x, group=g)
want = data(0) + data(N - 1) if RANK in (0, N - 1) and N > 1 else data(RANK)
results["group:all_reduce"] = float(np.abs(x.numpy() - want).max())
results["group:rank"] = [g.rank, dist.get_rank(g), dist.get_world_size(g)]
scalar = oar.to_tensor(float(RANK))  # a 0-d tensor (an averaged loss) stays 0-d
dist.all_reduce(scalar, op=dist.ReduceOp.AVG)
results["scalar"] = [scalar.shape, float(scalar)]
half = oar.to_tensor(data(RANK), dtype="float16")  # MPI has no float16 sum: it travels as float32
dist.all_reduce(half)
results["float16"] = [str(half.dtype), float(np.abs(half.numpy().astype(np.float64) - ALL.sum(0)).max())]
flag = oar.to_tensor([RANK == 1, False])
dist.all_reduce(flag, op=dist.ReduceOp.MAX)  # bool: a logical or
results["bool"] = [str(flag.dtype), flag.numpy().tolist()]
objs = []  # pickled objects of different sizes on each rank
dist.all_gather_object(objs, {"rank": RANK, "pad": "x" * RANK * 7})
results["all_gather_object"] = objs == [{"rank": r, "pad": "x" * r * 7} for r in range(N)]
y = oar.to_tensor(data(RANK))
if RANK == 0:
    dist.isend(y, dst=N - 1).wait()
elif RANK == N - 1:
    dist.irecv(y, src=0).wait()
results["isend_irecv"] = float(np.abs(y.numpy() - (data(0) if RANK == N - 1 else data(RANK))).max())
# the composed collectives (collective_more.py)
got = []
dist.gather(oar.to_tensor(data(RANK)), got, dst=1)
results["gather"] = [t.numpy().tolist() for t in got] == ([data(r).tolist() for r in range(N)] if RANK == 1 else [])
out = oar.zeros(SHAPE)
dist.reduce_scatter(out, [oar.to_tensor(data(RANK) * (i + 1)) for i in range(N)])
results["reduce_scatter"] = float(np.abs(out.numpy() - ALL.sum(0) * (RANK + 1)).max())
# uneven alltoall_single: rank r sends r + j + 1 rows (valued 100 r + j) to rank j
sizes = [RANK + j + 1 for j in range(N)]
rows = np.concatenate([np.full((k, 2), 100 * RANK + j, "float32") for j, k in enumerate(sizes)])
recv_sizes = [r + RANK + 1 for r in range(N)]
out = oar.zeros([sum(recv_sizes), 2])
dist.alltoall_single(out, oar.to_tensor(rows), in_split_sizes=sizes, out_split_sizes=recv_sizes)
want = np.concatenate([np.full((k, 2), 100 * r + RANK, "float32") for r, k in enumerate(recv_sizes)])
results["alltoall_single"] = float(np.abs(out.numpy() - want).max())
box = [{"from": RANK}, "x" * RANK]
dist.broadcast_object_list(box, src=N - 1)
results["broadcast_object_list"] = box == [{"from": N - 1}, "x" * (N - 1)]
mine = []
dist.scatter_object_list(mine, [{"to": r} for r in range(N)] if RANK == 0 else None, src=0)
results["scatter_object_list"] = mine == [{"to": RANK}]
with open(os.path.join(sys.argv[1], f"result.{RANK}.json"), "w") as f:
    json.dump(results, f)
