"""Run on N ranks: data-parallel steps in which rank 1 fails in the way `sys.argv[2]` names.

raise: an exception; kill: SIGKILL to itself; leave: returns early with exit code 0 (the others wait in the
all-reduce until the collective timeout); exit: sys.exit(3). Each rank writes its pid to ``<dir>/pid.<rank>``."""
import os
import signal
import sys

import numpy as np

import oar
import oar.distributed as dist

out_dir, mode = sys.argv[1], sys.argv[2]
dist.init_parallel_env()
rank = dist.get_rank()
with open(os.path.join(out_dir, f"pid.{rank}"), "w") as f:
    f.write(str(os.getpid()))
model = oar.DataParallel(oar.nn.Linear(4, 2))
opt = oar.optimizer.SGD(0.1, parameters=model.parameters())
for step in range(1000):
    if rank == 1 and step == 3:
        if mode == "raise":
            raise ValueError("boom on purpose")
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "leave":
            break
        if mode == "exit":
            sys.exit(3)
    model(oar.to_tensor(np.ones((2, 4), "float32"))).mean().backward()
    opt.step()
    opt.clear_grad()
