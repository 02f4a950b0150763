"""Run on 2 ranks (mpiexec): SyncBatchNorm under DataParallel against BatchNorm2D on the whole batch in one process.
Each rank writes ``{check: max abs difference}`` to ``<out_dir>/result.<rank>.json``."""
import json
import os
import sys

import numpy as np

import oar
import oar.distributed as dist
import oar.nn as nn

dist.init_parallel_env(timeout=60)
RANK, N = dist.get_rank(), dist.get_world_size()


def model(norm):
    oar.seed(3)
    return nn.Sequential(nn.Conv2D(2, 3, 3, padding=1), norm(3), nn.ReLU())


rng = np.random.default_rng(0)
whole = rng.standard_normal((4 * N, 2, 5, 5)).astype("float32") * 2 + 1  # every rank knows the whole batch
mine = whole[4 * RANK:4 * (RANK + 1)]
weights = rng.standard_normal((4 * N, 3, 5, 5)).astype("float32")

ref = model(nn.BatchNorm2D)
out_ref = ref(oar.to_tensor(whole))
(out_ref * oar.to_tensor(weights)).sum().backward()

net = model(nn.SyncBatchNorm)
dp = oar.DataParallel(net)
out = dp(oar.to_tensor(mine))
(out * oar.to_tensor(weights[4 * RANK:4 * (RANK + 1)])).sum().backward()

res = {
    "output": float(np.abs(out.numpy() - out_ref.numpy()[4 * RANK:4 * (RANK + 1)]).max()),
    # DataParallel averages the ranks' gradients: the whole-batch loss's gradient divided by N
    "conv_grad": float(np.abs(net[0].weight.grad.numpy() * N - ref[0].weight.grad.numpy()).max()),
    "bn_weight_grad": float(np.abs(net[1].weight.grad.numpy() * N - ref[1].weight.grad.numpy()).max()),
    "running_mean": float(np.abs(net[1]._mean.numpy() - ref[1]._mean.numpy()).max()),
    "running_var": float(np.abs(net[1]._variance.numpy() - ref[1]._variance.numpy()).max()),
}
with open(os.path.join(sys.argv[1], f"result.{RANK}.json"), "w") as f:
    json.dump(res, f)
