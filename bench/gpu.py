"""GPU training-step time (issue 29): oar on the GPU vs oar on the CPU vs PyTorch eager on the same GPU (when
torch with CUDA is installed), measured in one run.

Cases: resnet18 at batch 64 (3 x SIZE x SIZE, SIZE 224 by default) and LeNet at batch 256 (1 x 28 x 28), one SGD
training step each (forward, cross-entropy, backward, update), eager. Prints ms per step and the ratios
oar-CPU / oar-GPU (target >= 10) and oar-GPU / torch-GPU (target <= 3).

    python bench/gpu.py                 # needs CuPy and a GPU (pip install 'oar-dl[gpu]')
    python bench/gpu.py --dry-run       # the fake device, tiny sizes: checks the script, measures nothing
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def oar_step_time(model, batch, place, steps, warmup):
    import oar
    oar.set_device(place)
    oar.seed(0)
    make, shape, classes = model
    net = make()
    opt = oar.optimizer.SGD(0.01, parameters=net.parameters())
    rng = np.random.default_rng(0)
    x = oar.to_tensor(rng.standard_normal((batch,) + shape).astype("float32"))
    y = oar.to_tensor(rng.integers(0, classes, (batch,)))

    def step():
        loss = oar.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    for _ in range(warmup):
        float(step())
    sync = oar.device.cuda.synchronize if place != "cpu" else (lambda: None)
    sync()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return (time.perf_counter() - start) / steps * 1e3


def torch_step_time(name, batch, size, steps, warmup):
    """ms per PyTorch eager step on the GPU, or None when torch with CUDA (or torchvision for resnet18) is
    missing."""
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        if name == "resnet18":
            import torchvision
            net, shape = torchvision.models.resnet18(num_classes=10), (3, size, size)
        else:
            net = torch.nn.Sequential(
                torch.nn.Conv2d(1, 6, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                torch.nn.Linear(400, 120), torch.nn.Linear(120, 84), torch.nn.Linear(84, 10))
            shape = (1, 28, 28)
    except ImportError:
        return None
    net = net.cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn((batch,) + shape, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    for i in range(warmup + steps):
        if i == warmup:
            torch.cuda.synchronize()
            start = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=224, help="resnet18 input side")
    ap.add_argument("--steps", type=int, default=10, help="timed GPU steps (the CPU runs max(2, steps // 5))")
    ap.add_argument("--dry-run", action="store_true", help="the fake device and tiny sizes: no measurement")
    args = ap.parse_args()
    if args.dry_run:
        os.environ["OAR_DEVICE_BACKEND"] = "fake"
    import oar
    if not args.dry_run and oar.device.cuda.device_count() == 0:
        sys.exit("bench/gpu.py: no GPU (CuPy with a CUDA device is needed; pip install 'oar-dl[gpu]')")
    warnings.simplefilter("ignore", RuntimeWarning)
    size = 32 if args.dry_run else args.size
    cases = {"resnet18": ((lambda: oar.vision.models.resnet18(num_classes=10), (3, size, size), 10),
                          2 if args.dry_run else 64),
             "lenet": ((lambda: oar.vision.models.LeNet(num_classes=10), (1, 28, 28), 10),
                       4 if args.dry_run else 256)}
    steps, cpu_steps = (1, 1) if args.dry_run else (args.steps, max(2, args.steps // 5))
    device = "fake device (dry run: these times measure nothing)" if args.dry_run else \
        f"GPU 0 ({oar.core.devices.load().xp.cuda.runtime.getDeviceProperties(0)['name'].decode()})"
    print(f"oar training step, eager, SGD; {device}")
    print(f"{'case':22s} {'oar cpu ms':>11s} {'oar gpu ms':>11s} {'torch gpu ms':>13s} {'cpu/gpu':>8s} "
          f"{'oar/torch':>10s}")
    for name, (model, batch) in cases.items():
        cpu = oar_step_time(model, batch, "cpu", cpu_steps, 1)
        gpu = oar_step_time(model, batch, "gpu", steps, 2)
        torch_ms = None if args.dry_run else torch_step_time(name, batch, size, steps, 3)
        torch_text = f"{torch_ms:13.2f}" if torch_ms else f"{'n/a':>13s}"
        ratio = f"{gpu / torch_ms:10.2f}" if torch_ms else f"{'n/a':>10s}"
        print(f"{name + ' b' + str(batch):22s} {cpu:11.2f} {gpu:11.2f} {torch_text} {cpu / gpu:8.2f} {ratio}")
    print("targets: cpu/gpu >= 10, oar/torch <= 3")


if __name__ == "__main__":
    main()
