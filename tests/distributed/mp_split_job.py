"""Run on 2 ranks (mpiexec): dist.split with num_partitions = 2, each rank's outputs written to
``<out_dir>/result.<rank>.json`` (test_multiprocess.py checks them against NumPy)."""
import json
import os
import sys

import numpy as np

import oar
import oar.distributed as dist

dist.init_parallel_env(timeout=60)
RANK = dist.get_rank()
oar.seed(100 + RANK)  # different initial weights per rank: split must make rank 0's everyone's
x = oar.to_tensor(np.arange(8, dtype="float32").reshape(2, 4) / 4)
res = {}
for axis in (0, 1):
    for gather in (True, False):
        oar.seed(100 + RANK)
        out = dist.split(x, (4, 6), "linear", axis=axis, num_partitions=2, gather_out=gather,
                         bias_attr=oar.ParamAttr(initializer=oar.nn.initializer.Constant(0.5)))
        res[f"linear_{axis}_{int(gather)}"] = out.numpy().tolist()
oar.seed(100 + RANK)
res["weight"] = oar.nn.Linear(4, 6).weight.numpy().tolist()  # what this rank alone would have made
emb = dist.split(oar.to_tensor(np.array([0, 3, 5], "int64")), (6, 2), "embedding", num_partitions=2)
res["embedding"] = emb.numpy().tolist()
with open(os.path.join(sys.argv[1], f"result.{RANK}.json"), "w") as f:
    json.dump(res, f)
