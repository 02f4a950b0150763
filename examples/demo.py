"""`make demo`: the seeds' story on real data (MNIST's 10k test set, shipped in oar/data).

LeNet trained with `oar.Model.fit` (Paddle's progress output) -> the same network converted with `to_static`, warm
step times of both measured in this run (the one-off conversion timed on its own) -> `jit.save` -> `jit.load` and
the inference predictor agree -> ONNX export checked with ONNX Runtime (when installed) -> held-out accuracy ->
a loss/accuracy plot (when matplotlib is installed)."""
import os
import sys
import tempfile
import time

# LeNet's matrices are small: one BLAS thread is faster than several, above all on a shared 2-core machine
# (bench/train_step.py pins one thread for the same reason); set before NumPy loads its BLAS. Export to override.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import oar as paddle  # noqa: E402
from oar.static import InputSpec  # noqa: E402
from oar.vision import transforms as T  # noqa: E402

N_TRAIN, BATCH, EPOCHS, TIMED_STEPS = 9000, 32, 6, 20
OUT = os.environ.get("OAR_DEMO_OUT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo_out"))


class History(paddle.callbacks.Callback):
    """Keeps the training loss per step and the evaluation accuracy per epoch (for the plot)."""

    def on_train_begin(self, logs=None):
        self.loss, self.eval_acc = [], []

    def on_train_batch_end(self, step, logs=None):
        self.loss.append(logs["loss"][0])

    def on_eval_end(self, logs=None):
        self.eval_acc.append(logs["acc"])


def data():
    """Train / held-out split of the shipped images; training images get small random shifts (2 px)."""
    normalize = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")   # HW uint8 -> float32 [1, 28, 28]
    train_full = paddle.vision.datasets.MNIST(mode="test", transform=T.Compose([T.RandomCrop(28, padding=2),
                                                                               normalize]), download=False)
    held_full = paddle.vision.datasets.MNIST(mode="test", transform=normalize, download=False)
    idx = np.random.RandomState(0).permutation(len(held_full))
    return paddle.io.Subset(train_full, idx[:N_TRAIN].tolist()), paddle.io.Subset(held_full, idx[N_TRAIN:].tolist())


def section(title):
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


def step_time(net, x, y, steps):
    """(first call s, warm ms/step) of forward + backward + Adam on one batch."""
    opt = paddle.optimizer.Adam(0.001, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    t0 = time.perf_counter()
    step()
    first = time.perf_counter() - t0
    step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return first, (time.perf_counter() - t0) / steps * 1e3


def main():
    t_start = time.perf_counter()
    paddle.seed(0)
    train_ds, test_ds = data()
    section(f"1. LeNet on MNIST ({len(train_ds)} train / {len(test_ds)} held-out images), oar.Model.fit")
    net = paddle.vision.models.LeNet()
    model = paddle.Model(net, InputSpec([None, 1, 28, 28], "float32", "image"), InputSpec([None, 1], "int64", "label"))
    model.summary()
    steps = EPOCHS * (N_TRAIN // BATCH)   # fit steps the schedule after every batch, as Paddle does
    lr = paddle.optimizer.lr.CosineAnnealingDecay(0.003, T_max=steps)
    model.prepare(paddle.optimizer.Adam(lr, parameters=net.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    hist = History()
    t0 = time.perf_counter()
    model.fit(train_ds, test_ds, batch_size=BATCH, epochs=EPOCHS, verbose=1, log_freq=50, callbacks=[hist])
    fit_s = time.perf_counter() - t0
    acc = model.evaluate(test_ds, batch_size=256, verbose=0)["acc"]
    print(f"fit: {fit_s:.1f} s; held-out accuracy {acc:.4f}")

    section("2. the same network converted with paddle.jit.to_static")
    x = paddle.to_tensor(np.stack([train_ds[i][0] for i in range(BATCH)]))
    y = paddle.to_tensor(np.stack([train_ds[i][1] for i in range(BATCH)]))
    eager_net, static_net = paddle.vision.models.LeNet(), paddle.vision.models.LeNet()
    eager_net.set_state_dict(net.state_dict())
    static_net.set_state_dict(net.state_dict())
    static_net = paddle.jit.to_static(static_net)
    e_first, e_ms = step_time(eager_net, x, y, TIMED_STEPS)
    s_first, s_ms = step_time(static_net, x, y, TIMED_STEPS)
    print(f"one training step (forward + backward + Adam), batch {BATCH}, warm, mean of {TIMED_STEPS}:")
    print(f"  {'mode':<12}{'ms/step':>10}{'vs eager':>10}")
    print(f"  {'eager':<12}{e_ms:>10.1f}{1.0:>10.2f}")
    print(f"  {'to_static':<12}{s_ms:>10.1f}{e_ms / s_ms:>9.2f}x")
    print(f"  one-off: first converted step {s_first * 1e3:.0f} ms (conversion + compile + run), "
          f"first eager step {e_first * 1e3:.0f} ms")
    print("  (measured now on this machine; >1x means the converted step is faster)")
    np.testing.assert_allclose(static_net(x).numpy(), eager_net(x).numpy(), rtol=1e-4, atol=1e-5)
    print("  converted outputs == eager outputs after the same updates")

    section("3. paddle.jit.save -> paddle.jit.load -> inference predictor")
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "lenet")
    net.eval()
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 1, 28, 28], "float32", "image")])
    print("saved:", ", ".join(sorted(os.listdir(folder))))
    xs = np.stack([test_ds[i][0] for i in range(256)])
    ref = net(paddle.to_tensor(xs)).numpy()
    loaded = paddle.jit.load(path)
    loaded.eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(xs)).numpy(), ref, rtol=1e-5, atol=1e-5)
    from oar import inference
    predictor = inference.create_predictor(inference.Config(path + ".pdmodel", path + ".pdiparams"))
    (out,) = predictor.run([xs])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    print("jit.load and the predictor agree with the trained network on 256 held-out images")

    section("4. ONNX export")
    onnx_path = paddle.onnx.export(net, os.path.join(folder, "lenet"),
                                   input_spec=[InputSpec([None, 1, 28, 28], "float32", "image")])
    try:
        import onnxruntime as ort
    except ImportError:
        print(f"wrote {os.path.basename(onnx_path)}; onnxruntime not installed, so not run (pip install 'oar-dl[onnx]')")
    else:
        sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
        got = sess.run(None, {sess.get_inputs()[0].name: xs})[0]
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
        print(f"ONNX Runtime {ort.__version__} agrees with oar on 256 held-out images "
              f"(max |diff| {np.abs(got - ref).max():.1e})")

    section("5. result")
    print(f"held-out accuracy: {acc:.4f} (target >= 0.97) -> {'OK' if acc >= 0.97 else 'BELOW TARGET'}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("loss/accuracy plot skipped: matplotlib is not installed (pip install 'oar-dl[plot]')")
    else:
        os.makedirs(OUT, exist_ok=True)
        fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.2))
        a.plot(hist.loss, lw=0.8)
        a.set(title="training loss per step", xlabel="step", yscale="log")
        b.plot(range(1, len(hist.eval_acc) + 1), hist.eval_acc, "o-")
        b.set(title="held-out accuracy per epoch", xlabel="epoch")
        fig.tight_layout()
        fig.savefig(os.path.join(OUT, "training.png"), dpi=100)
        print(f"plot: {os.path.join(OUT, 'training.png')}")
    print(f"demo total: {time.perf_counter() - t_start:.1f} s")
    return 0 if acc >= 0.97 else 1


if __name__ == "__main__":
    sys.exit(main())
