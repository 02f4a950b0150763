"""Batch-1 latency through the inference predictor vs oar eager, measured in the same run.

Models: a 3-layer MLP (256 -> 512 -> 512 -> 10) and resnet18 on a 3x64x64 image. Each model is saved with
oar.jit.save (eval mode), loaded by oar.inference.create_predictor (inference passes on), and timed against
calling the eager Layer under no_grad. Targets: predictor >= 3x faster than eager on the MLP, no slower on
resnet18.

For the MLP the same forward hand-written in NumPy (three `x @ W + b`, two `np.maximum`) is timed too: it is the
floor for any executor that computes with NumPy/OpenBLAS, so eager / NumPy is the highest speed-up reachable. At
batch 1 the three GEMVs stream 1.5 MB of float32 weights per call, more than one core's L2 cache, so that floor
is memory-bound rather than Python-bound.

    .venv/bin/python bench/inference.py [--repeat N]
"""
import argparse
import os
import sys
import tempfile
import time

# Both sides call the same OpenBLAS; on a small shared machine its thread pool makes mid-sized GEMM timings erratic,
# so BLAS runs on one thread unless OAR_BENCH_THREADS is set (as bench/train_step.py). Set before numpy loads.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import oar  # noqa: E402
from oar import inference, nn  # noqa: E402
from oar.static import InputSpec  # noqa: E402


def best_of(fn, repeat, inner):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - t) / inner)
    return best


def numpy_mlp(net, x):
    """The MLP's forward hand-written in NumPy on the same weights (the floor for the predictor)."""
    ws = [(m.weight.numpy(), m.bias.numpy()) for m in net if isinstance(m, nn.Linear)]

    def run():
        h = x
        for i, (w, b) in enumerate(ws):
            h = h @ w + b
            if i < len(ws) - 1:
                h = np.maximum(h, 0)
        return h
    return run


def measure(name, net, shape, repeat, inner, tmp, reference=None):
    net.eval()
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    xt = oar.to_tensor(x)
    prefix = os.path.join(tmp, name)
    oar.jit.save(net, prefix, input_spec=[InputSpec([None] + list(shape[1:]), "float32", "x")])
    config = inference.Config(prefix)
    config.disable_glog_info()
    pred = inference.create_predictor(config)
    with oar.no_grad():
        want = net(xt).numpy()
    got = pred.run([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def eager():
        with oar.no_grad():
            net(xt)
    t_eager = t_pred = t_ref = float("inf")
    ref = reference(net, x) if reference is not None else None
    if ref is not None:
        np.testing.assert_allclose(ref(), want, rtol=1e-4, atol=1e-4)
    for _ in range(repeat):  # interleaved, best of each: both see the same load on a shared machine
        t_eager = min(t_eager, best_of(eager, 1, inner))
        t_pred = min(t_pred, best_of(lambda: pred.run([x]), 1, inner))
        if ref is not None:
            t_ref = min(t_ref, best_of(ref, 1, inner))
    print(f"{name:10s} eager {t_eager * 1e6:10.1f} us   predictor {t_pred * 1e6:10.1f} us   "
          f"speed-up {t_eager / t_pred:5.2f}x")
    if ref is not None:
        print(f"{'':10s} hand-written NumPy {t_ref * 1e6:8.1f} us   predictor / NumPy {t_pred / t_ref:5.2f}x   "
              f"highest reachable speed-up (eager / NumPy) {t_eager / t_ref:5.2f}x")
    return t_eager / t_pred


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    oar.seed(0)
    tmp = tempfile.mkdtemp()
    mlp = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    r_mlp = measure("mlp", mlp, [1, 256], args.repeat, 200, tmp, reference=numpy_mlp)
    from oar.vision.models import resnet18
    r_res = measure("resnet18", resnet18(), [1, 3, 64, 64], args.repeat, 5, tmp)
    print(f"targets: mlp >= 3x ({'met' if r_mlp >= 3 else 'NOT met'}), "
          f"resnet18 >= 1x ({'met' if r_res >= 1 else 'NOT met'})")


if __name__ == "__main__":
    main()
