"""Run on 2 ranks (mpiexec) with ``OAR_DEVICE_BACKEND=fake`` (or ``cuda``: both ranks on GPU 0): DataParallel
training with parameters and gradients on the device, the gradients staged through the host for MPI, against one
process training on the whole batch on the same device; and the collectives on device tensors. Writes
``result.<rank>.json``."""
import json
import os
import sys

import numpy as np

import oar
import oar.distributed as dist
from oar.core import devices
from oar.ops.device import FALLBACK

dist.init_parallel_env(timeout=60)
RANK, N = dist.get_rank(), dist.get_world_size()
oar.set_device("gpu")
B, STEPS = 4, 10


class Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = oar.nn.Conv2D(1, 3, 3)
        self.fc = oar.nn.Linear(3 * 4 * 4, 3)

    def forward(self, x):
        return self.fc(oar.nn.functional.relu(self.conv(x)).flatten(1))


def on_device(ts):
    return all(devices.is_device_array(t._data) for t in ts)


def train(accumulate):
    oar.seed(1)
    ref = Net()
    oar.seed(1 + RANK)  # DataParallel broadcasts rank 0's parameters
    dp = oar.DataParallel(Net(), comm_buffer_size=0.0002, last_comm_buffer_size=0.0001)  # several buckets
    opt_ref = oar.optimizer.Adam(0.01, parameters=ref.parameters())
    opt = oar.optimizer.Adam(0.01, parameters=dp.parameters())
    g = np.random.default_rng(7)
    grads_on_device = True
    for _ in range(STEPS):
        x, y = oar.to_tensor(g.standard_normal((N * B, 1, 6, 6))), oar.to_tensor(g.integers(0, 3, (N * B,)))
        oar.nn.functional.cross_entropy(ref(x), y).backward()
        opt_ref.step()
        opt_ref.clear_grad()
        xs, ys = x[RANK * B:(RANK + 1) * B], y[RANK * B:(RANK + 1) * B]
        h = B // accumulate
        for k in range(accumulate):
            loss = oar.nn.functional.cross_entropy(dp(xs[k * h:(k + 1) * h]), ys[k * h:(k + 1) * h]) / accumulate
            if k < accumulate - 1:
                with dp.no_sync():
                    loss.backward()
            else:
                loss.backward()
        grads_on_device &= on_device([p.grad for p in dp.parameters()])
        opt.step()
        opt.clear_grad()
    diff = max(float(np.abs(p.numpy() - q.numpy()).max()) for p, q in zip(ref.parameters(), dp.parameters()))
    return {"diff": diff, "params_on_device": on_device(dp.parameters()), "grads_on_device": bool(grads_on_device),
            "buckets": dp._reducer.stats["buckets"] if hasattr(dp, "_reducer") else None}


def collectives():
    t = oar.to_tensor([1.0 + RANK, 2.0])
    dist.all_reduce(t)
    b = oar.to_tensor([float(RANK)])
    dist.broadcast(b, src=1)
    parts = []
    dist.all_gather(parts, oar.to_tensor([float(RANK)]))
    return {"all_reduce": t.numpy().tolist(), "broadcast": b.numpy().tolist(),
            "all_gather": [p.numpy().tolist() for p in parts],
            "on_device": on_device([t, b] + parts)}


out = {"plain": train(1), "accumulate": train(2), "collectives": collectives()}
out["fell_back"] = sorted(FALLBACK.seen)  # ops that copied to the host and warned (the collectives stage themselves)
with open(os.path.join(sys.argv[1], f"result.{RANK}.json"), "w") as f:
    json.dump(out, f)
