"""`make demo`: what converting a network with `oar.jit.to_static` buys, measured honestly, on real data.

1. the data: MNIST's 10,000 test images, which ship inside oar (oar/data): 9,000 to train on, 1,000 held out;
2. LeNet trained with its whole training step (forward, loss, backward, Adam, clear_grad, LR schedule) captured by
   `to_static` as one program (docs/train_step.md);
3. one training step three ways - eager, only `forward` converted, the whole step captured - timed in interleaved
   rounds, with the median and the range over the rounds (the machine's load moves single timings a lot);
4. the model-file round trip: `jit.save` -> `jit.load`, the inference predictor and ONNX Runtime, each against
   the eager network on the same held-out images (agreement, accuracy, time per batch);
5. one request to the saved model served over HTTP on 127.0.0.1 (`oar.serving`), the server then stopped;
6. a plot (loss curve, accuracy, the timing table) written to a named SVG file (examples/svg_plot.py).

Output files go to examples/demo_out/ (or $OAR_DEMO_OUT); the saved model stays there for `oar serve PATH`.
"""
import json
import os
import statistics
import sys
import time
import urllib.request

# LeNet's matrices are small: one BLAS thread is faster than several, above all on a shared 2-core machine
# (bench/train_step.py pins one thread for the same reason); set before NumPy loads its BLAS. Export to override.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import oar as paddle  # noqa: E402
from oar.static import InputSpec  # noqa: E402
from oar.vision import transforms as T  # noqa: E402
from svg_plot import write_svg  # noqa: E402  (beside this file)

N_TRAIN, BATCH, EPOCHS, LR = 9000, 64, 5, 0.003
ROUNDS, STEPS_PER_ROUND = 7, 8          # step timing: 7 interleaved rounds of 8 warm steps per mode
INFER_ROUNDS, INFER_BATCH = 7, 250      # inference timing: 7 interleaved rounds, 4 batches of 250 each
OUT = os.environ.get("OAR_DEMO_OUT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo_out"))
IMAGE = InputSpec([None, 1, 28, 28], "float32", "image")


def section(title):
    print(f"\n=== {title} " + "=" * max(0, 72 - len(title)))


def data():
    """(train, held-out) Subsets of MNIST's test split, the copy that ships inside oar."""
    normalize = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")   # HW uint8 -> float32 [1, 28, 28]
    mnist = paddle.vision.datasets.MNIST(mode="test", transform=normalize, download=False)
    idx = np.random.RandomState(0).permutation(len(mnist))
    print(f"images: {mnist.image_path}")
    print("  MNIST's TEST split (10,000 images, shipped inside oar; the 60,000-image training split is not shipped)")
    print(f"  shuffled once (seed 0): {N_TRAIN:,} of them to train on, the other {len(mnist) - N_TRAIN:,} held out")
    return paddle.io.Subset(mnist, idx[:N_TRAIN].tolist()), paddle.io.Subset(mnist, idx[N_TRAIN:].tolist())


def make_step(net, lr, convert):
    """A training step (forward, loss, backward, Adam, clear_grad, and the LR schedule when `lr` is one); with
    `convert`, the whole step is captured by to_static as one program."""
    opt = paddle.optimizer.Adam(lr, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()

    def train_step(x, y):
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if isinstance(lr, paddle.optimizer.lr.LRScheduler):
            lr.step()
        return loss
    return paddle.jit.to_static(train_step) if convert else train_step


def accuracy(logits, labels):
    return float((np.asarray(logits).argmax(1) == np.asarray(labels).reshape(-1)).mean())


def train(train_ds, held_x, held_y):
    section("2. LeNet trained with its whole training step captured by to_static")
    net = paddle.vision.models.LeNet()
    steps = EPOCHS * (N_TRAIN // BATCH)
    sched = paddle.optimizer.lr.CosineAnnealingDecay(LR, T_max=steps)
    train_step = make_step(net, sched, convert=True)
    loader = paddle.io.DataLoader(train_ds, batch_size=BATCH, shuffle=True, drop_last=True)
    losses, accs = [], []
    t0 = time.perf_counter()
    for epoch in range(1, EPOCHS + 1):
        net.train()
        for x, y in loader:
            losses.append(float(train_step(x, y)))
        net.eval()
        accs.append(accuracy(net(paddle.to_tensor(held_x)).numpy(), held_y))
        print(f"epoch {epoch}/{EPOCHS}: mean loss {np.mean(losses[-(N_TRAIN // BATCH):]):.4f}, "
              f"held-out accuracy {accs[-1]:.4f}  ({time.perf_counter() - t0:.1f} s)")
    assert train_step.concrete_program.train is not None   # the step was captured whole, not only its forward
    print(f"{len(losses)} steps of batch {BATCH}, each ONE program run: forward, backward and the Adam updates")
    return net, losses, accs


def time_steps(trained, x, y):
    """ms per warm step of eager / forward-converted / whole-step-captured training, interleaved rounds."""
    section("3. one training step three ways, interleaved rounds")
    modes = {}
    one_off = {}
    for name, convert_forward, capture in (("eager", False, False), ("to_static(net)", True, False),
                                           ("whole step", False, True)):
        net = paddle.vision.models.LeNet()
        net.set_state_dict(trained.state_dict())
        if convert_forward:
            net = paddle.jit.to_static(net)
        step = make_step(net, 1e-4, capture)
        t0 = time.perf_counter()
        step(x, y)                          # the one-off: conversion and compile for the converted modes
        one_off[name] = time.perf_counter() - t0
        step(x, y)
        modes[name] = step
    times = {name: [] for name in modes}
    for r in range(ROUNDS):
        order = list(modes) if r % 2 == 0 else list(modes)[::-1]   # no mode always runs first or last
        for name in order:
            t0 = time.perf_counter()
            for _ in range(STEPS_PER_ROUND):
                modes[name](x, y)
            times[name].append((time.perf_counter() - t0) / STEPS_PER_ROUND * 1e3)
    print(f"forward + loss + backward + Adam on a batch of {BATCH}, ms per step; {ROUNDS} rounds of "
          f"{STEPS_PER_ROUND} steps, the modes interleaved in each round")
    print(f"  {'mode':<16}{'median':>8}{'range':>16}{'speed vs eager (median, range)':>36}{'first step':>13}")
    rows = []
    for name, ts in times.items():
        ratios = [e / t for e, t in zip(times["eager"], ts)]   # per round: the same moment's load on both
        row = (name, statistics.median(ts), min(ts), max(ts), statistics.median(ratios), min(ratios), max(ratios),
               one_off[name] * 1e3)
        rows.append(row)
        print(f"  {name:<16}{row[1]:>8.1f}{f'{row[2]:.1f} - {row[3]:.1f}':>16}"
              f"{f'{row[4]:.2f}x  ({row[5]:.2f} - {row[6]:.2f})':>36}{row[7]:>10.0f} ms")
    print("  >1x: faster than eager. 'first step' includes tracing and compiling for the converted modes.")
    return rows


def timed(fns, x):
    """{name: [ms per batch of INFER_BATCH, one per round]} of each fn over x, interleaved rounds."""
    times = {name: [] for name in fns}
    batches = [x[i:i + INFER_BATCH] for i in range(0, len(x), INFER_BATCH)]
    for r in range(INFER_ROUNDS):
        for name in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
            t0 = time.perf_counter()
            for b in batches:
                fns[name](b)
            times[name].append((time.perf_counter() - t0) / len(batches) * 1e3)
    return times


def round_trip(net, held_x, held_y):
    """jit.save -> jit.load, predictor, ONNX Runtime against eager on the held-out images; returns the prefix."""
    section("4. the model files: jit.save -> jit.load, the predictor, ONNX Runtime")
    os.makedirs(OUT, exist_ok=True)
    prefix = os.path.join(OUT, "lenet")
    net.eval()
    paddle.jit.save(net, prefix, input_spec=[IMAGE])
    print(f"saved: {prefix}.pdmodel, {prefix}.pdiparams")
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    from oar import inference
    predictor = inference.create_predictor(inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    fns = {"eager": lambda b: net(paddle.to_tensor(b)).numpy(),
           "jit.load": lambda b: loaded(paddle.to_tensor(b)).numpy(),
           "predictor": lambda b: predictor.run([b])[0]}
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
        print("ONNX Runtime: not installed, so not compared (pip install 'oar-dl[onnx]')")
    else:
        onnx_path = paddle.onnx.export(net, prefix, input_spec=[IMAGE])
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1           # as NumPy's BLAS here: one thread each
        sess = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        feed = sess.get_inputs()[0].name
        fns[f"ONNX Runtime {ort.__version__}"] = lambda b: sess.run(None, {feed: b})[0]
        print(f"exported: {onnx_path}")
    ref = fns["eager"](held_x)
    times = timed(fns, held_x)
    print(f"the {len(held_x):,} held-out images, batches of {INFER_BATCH}; ms per batch over {INFER_ROUNDS} "
          "interleaved rounds")
    print(f"  {'runs the model':<22}{'max |diff| vs eager':>20}{'accuracy':>10}{'median':>9}{'range':>15}"
          f"{'vs eager':>10}")
    e_med = statistics.median(times["eager"])
    for name, fn in fns.items():
        out = fn(held_x)
        diff = float(np.abs(out - ref).max())
        tol = 1e-4 if name.startswith("ONNX") else 1e-5
        np.testing.assert_allclose(out, ref, rtol=tol, atol=tol, err_msg=name)
        ts = times[name]
        print(f"  {name:<22}{diff:>20.1e}{accuracy(out, held_y):>10.4f}{statistics.median(ts):>9.2f}"
              f"{f'{min(ts):.2f} - {max(ts):.2f}':>15}{e_med / statistics.median(ts):>9.2f}x")
    return prefix, ref


def serve(prefix, held_x, held_y, ref):
    section("5. one request to the saved model served over HTTP (oar.serving)")
    try:
        from oar.serving import ServedModel, Server
        server = Server({"lenet": ServedModel("lenet", prefix)}, host="127.0.0.1", port=0)
    except ImportError:
        print("serving skipped: uvicorn/starlette are not installed (pip install 'oar-dl[serve]')")
        return
    x = held_x[:4]
    body = {"inputs": [{"name": "image", "shape": list(x.shape), "datatype": "FP32", "data": x.ravel().tolist()}]}
    with server:
        url = f"{server.url}/v2/models/lenet/infer"
        req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            answer = json.loads(r.read())
    out = answer["outputs"][0]
    got = np.asarray(out["data"], "float32").reshape(out["shape"])
    np.testing.assert_allclose(got, ref[:4], rtol=1e-5, atol=1e-5)
    diff = np.abs(got - ref[:4]).max()
    print(f"POST {url}: 4 held-out images (labels {held_y[:4].reshape(-1).tolist()}) -> {out['name']} "
          f"{out['shape']}, digits {got.argmax(1).tolist()}, same as eager (max |diff| {diff:.1e})")
    print(f"server on {server.url} stopped")


def plot(losses, accs, rows):
    path = os.path.join(OUT, "demo.svg")
    write_svg(path, losses, accs, f"one training step, batch {BATCH}: ms per step over {ROUNDS} interleaved rounds",
              ["mode", "median", "range", "speed vs eager (range)", "first step"],
              [[r[0], f"{r[1]:.1f} ms", f"{r[2]:.1f} - {r[3]:.1f}", f"{r[4]:.2f}x ({r[5]:.2f} - {r[6]:.2f})",
                f"{r[7]:.0f} ms"] for r in rows])
    print(f"plot (loss curve, accuracy per epoch, step timing table): {path}")


def main():
    t_start = time.perf_counter()
    paddle.seed(0)
    np.random.seed(0)  # the DataLoader's shuffle draws from NumPy's global generator, as Paddle's does
    section("1. the data: MNIST, as shipped inside oar")
    train_ds, held_ds = data()
    held_x = np.stack([held_ds[i][0] for i in range(len(held_ds))])
    held_y = np.stack([held_ds[i][1] for i in range(len(held_ds))])
    net, losses, accs = train(train_ds, held_x, held_y)
    x = paddle.to_tensor(np.stack([train_ds[i][0] for i in range(BATCH)]))
    y = paddle.to_tensor(np.stack([train_ds[i][1] for i in range(BATCH)]))
    rows = time_steps(net, x, y)
    prefix, ref = round_trip(net, held_x, held_y)
    serve(prefix, held_x, held_y, ref)
    section("6. result")
    acc = accs[-1]
    print(f"held-out accuracy: {acc:.4f} (target >= 0.97) -> {'OK' if acc >= 0.97 else 'BELOW TARGET'}")
    plot(losses, accs, rows)
    print(f"saved model: {prefix}   next: oar serve {prefix}   (or: oar inspect {prefix})")
    print(f"demo total: {time.perf_counter() - t_start:.1f} s")
    return 0 if acc >= 0.97 else 1


if __name__ == "__main__":
    sys.exit(main())
