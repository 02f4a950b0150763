"""Trains LeNet, resnet18 and an LSTM language model for N steps on the GPU and on the CPU, eagerly and as a
converted (`to_static`) whole step, from the same seed and data, and compares the losses and final weights
(float32 tolerance). Part of `tools/gpu_check.sh` (issue 29); ``--backend fake`` runs it on the fake device.

    python tools/gpu_training_check.py --steps 20                 # on a GPU (CuPy)
    python tools/gpu_training_check.py --backend fake --steps 2 --small
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def models(small):
    import oar

    class LSTMLM(oar.nn.Layer):
        def __init__(self, vocab=200, width=64):
            super().__init__()
            self.embed, self.lstm, self.head = oar.nn.Embedding(vocab, width), oar.nn.LSTM(width, width), \
                oar.nn.Linear(width, vocab)

        def forward(self, ids):
            h, _ = self.lstm(self.embed(ids))
            return self.head(h)

    rng = np.random.default_rng(0)
    side = 32 if small else 64
    batch = 4 if small else 32
    return {
        "lenet": (lambda: oar.vision.models.LeNet(num_classes=10),
                  rng.standard_normal((batch, 1, 28, 28)).astype("float32"), rng.integers(0, 10, (batch,))),
        "resnet18": (lambda: oar.vision.models.resnet18(num_classes=10),
                     rng.standard_normal((batch, 3, side, side)).astype("float32"), rng.integers(0, 10, (batch,))),
        "lstm_lm": (LSTMLM, rng.integers(0, 200, (batch, 12)), rng.integers(0, 200, (batch, 12))),
    }


def train(make, x, y, place, steps, converted):
    import oar
    oar.seed(7)
    oar.set_device(place)
    with oar.base.unique_name.guard():
        net = make()
    opt = oar.optimizer.Momentum(0.01, momentum=0.9, parameters=net.parameters())
    xt, yt = oar.to_tensor(x), oar.to_tensor(y)

    def step(xb, yb):
        out = net(xb)
        loss = oar.nn.functional.cross_entropy(out.reshape([-1, out.shape[-1]]), yb.reshape([-1]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    run = oar.jit.to_static(step) if converted else step
    losses = []
    start = time.perf_counter()
    for _ in range(steps):
        losses.append(float(run(xt, yt)))
    elapsed = time.perf_counter() - start
    where = {str(p.place) for p in net.parameters()} | {str(xt.place)}
    if where != {str(oar.CPUPlace() if place == "cpu" else oar.CUDAPlace(0))}:
        sys.exit(f"training on {place!r} left parameters or data on {sorted(where)}")
    return np.array(losses), [p.numpy() for p in net.parameters()], elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cuda", choices=["cuda", "fake"])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--small", action="store_true", help="small inputs (the fake device's dry run)")
    args = ap.parse_args()
    os.environ["OAR_DEVICE_BACKEND"] = args.backend
    warnings.simplefilter("ignore", RuntimeWarning)  # ops that fall back are listed by tools/device_ops.py
    rtol = 1e-5 if args.backend == "fake" else 2e-3
    failed = []
    for name, (make, x, y) in models(args.small).items():
        for converted in (False, True):
            cpu = train(make, x, y, "cpu", args.steps, converted)
            gpu = train(make, x, y, "gpu", args.steps, converted)
            loss_diff = float(np.max(np.abs(cpu[0] - gpu[0]) / np.maximum(np.abs(cpu[0]), 1e-6)))
            w_diff = max(float(np.max(np.abs(a - b))) for a, b in zip(cpu[1], gpu[1]))
            ok = loss_diff <= rtol and np.all(np.isfinite(gpu[0]))
            kind = "converted" if converted else "eager"
            print(f"{name:9s} {kind:9s} {args.steps} steps: loss {cpu[0][-1]:.5f} (cpu) {gpu[0][-1]:.5f} (gpu), "
                  f"max rel loss diff {loss_diff:.2e}, max weight diff {w_diff:.2e}, time cpu {cpu[2]:.2f}s "
                  f"gpu {gpu[2]:.2f}s {'ok' if ok else 'MISMATCH'}")
            if not ok:
                failed.append(f"{name} {kind}")
    from oar.ops.device import FALLBACK
    print(f"ops that fell back to the CPU in these runs: {sorted(FALLBACK.seen) or 'none'}")
    if failed:
        sys.exit(f"GPU training differs from the CPU: {failed}")


if __name__ == "__main__":
    main()
