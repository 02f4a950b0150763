"""Run on 2 ranks (mpiexec): `Distill` wrapped in DataParallel against one process distilling on the whole batch.

Every rank builds the same teacher and a student (a different start per rank: DataParallel broadcasts rank 0's),
trains the student with the distillation loss (soft labels + feature L2 through an adapter) plus the label loss on
its slice of each batch, eagerly and with the whole step converted by to_static; the reference trains on the
concatenated batch in one process. Writes ``{variant: max abs parameter difference}`` to
``<out_dir>/result.<rank>.json``."""
import json
import os
import sys

import numpy as np

import oar
import oar.distributed as dist
from oar.slim import Distill

dist.init_parallel_env(timeout=60)
RANK, N = dist.get_rank(), dist.get_world_size()
oar.set_default_dtype("float64")
B, STEPS = 4, 8
CONFIG = [{"loss_function": "soft_label", "layers": [{"layers_name": ["3", "3"], "temperature": 3.0}]},
          {"loss_function": "l2", "layers": [{"layers_name": ["0", "0"], "weight": 0.5, "align_params": {
              "align_type": "1x1conv", "in_channel": 2, "out_channel": 4}}]}]


def net(width, seed):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Conv2D(1, width, 3), oar.nn.ReLU(), oar.nn.Flatten(),
                             oar.nn.Linear(width * 16, 3))


def distiller(seed):
    import copy
    return Distill(copy.deepcopy(CONFIG), net(2, seed), net(4, 99))


def batches():
    g = np.random.default_rng(5)
    for _ in range(STEPS):
        yield g.standard_normal((N * B, 1, 6, 6)), g.integers(0, 3, (N * B, 1))


def loss_of(model, x, y):
    dl, s, _ = model(oar.to_tensor(x))
    return dl + oar.nn.functional.cross_entropy(s, oar.to_tensor(y))


def max_diff(a, b):
    return max(float(np.abs(p.numpy() - q.numpy()).max()) for p, q in zip(a.parameters(), b.parameters()))


def run(convert):
    ref, local = distiller(1), distiller(1 + RANK)
    dp = oar.DataParallel(local)
    opt_ref = oar.optimizer.SGD(0.1, parameters=ref.parameters())
    opt = oar.optimizer.SGD(0.1, parameters=dp.parameters())

    def step(xs, ys):
        loss = loss_of(dp, xs, ys)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    if convert:
        step = oar.jit.to_static(step)
    mine = slice(RANK * B, (RANK + 1) * B)
    for x, y in batches():
        loss_of(ref, x, y).backward()
        opt_ref.step()
        opt_ref.clear_grad()
        step(x[mine], y[mine])
    return max_diff(ref, local)


out = {"eager": run(False), "to_static": run(True)}
with open(os.path.join(sys.argv[1], f"result.{RANK}.json"), "w") as f:
    json.dump(out, f)
