"""Accuracy of post-training int8 quantization on a really trained classifier, and its speed, in one run.

A small CNN (conv-bn-relu-pool x2, linear) is trained with oar on Fashion-MNIST (`--train` images, `--epochs`),
saved with oar.jit.save, quantized with oar.quantization.PostTrainingQuantization for each calibration algorithm
(`--calib-batches` batches of 32 training images), and every model is evaluated on the 10,000 test images through
the predictor: float32 native, int8 native, and int8 through ONNX Runtime (Config.enable_onnxruntime()).
Target (issue 13): accuracy drop <= 1 point.

Fashion-MNIST's four IDX files (``train-images-idx3-ubyte.gz`` ...) are read from `--data` (default: the Debian
package ``dataset-fashion-mnist`` location, /usr/share/datasets/fashion-mnist); without them the MNIST test set
shipped in oar/data is split 8,000 / 2,000 instead (the output says which). The exit status is 1 when the target
is not met.

    .venv/bin/python bench/quantization.py [--data DIR] [--train 12000] [--epochs 2]
"""
import argparse
import gzip
import os
import sys
import tempfile
import time
import warnings

THREADS = int(os.environ.get("OAR_BENCH_THREADS", "1"))
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, str(THREADS))

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import oar  # noqa: E402
import oar.nn.functional as F  # noqa: E402
from oar import inference, nn  # noqa: E402
from oar.quantization import PostTrainingQuantization  # noqa: E402
from oar.static import InputSpec  # noqa: E402

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(data_dir, split, mean=0.2860, std=0.3530):
    prefix = "train" if split == "train" else "t10k"
    x = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz")).astype("float32") / 255.0
    y = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz")).astype("int64")
    return ((x - mean) / std)[:, None], y


def load_data(data_dir):
    """(x_train, y_train, x_test, y_test): Fashion-MNIST from `data_dir`, or else the MNIST test set shipped in
    oar/data split 8,000 / 2,000 (so the benchmark always measures something; it says which)."""
    if os.path.isfile(os.path.join(data_dir, "t10k-labels-idx1-ubyte.gz")):
        print(f"data: Fashion-MNIST from {data_dir}")
        return load(data_dir, "train") + load(data_dir, "test")
    shipped = os.path.join(os.path.dirname(oar.__file__), "data")
    print(f"data: Fashion-MNIST not found in {data_dir}; using the MNIST test set shipped in {shipped} "
          "(8,000 images to train, the other 2,000 to test)")
    x, y = load(shipped, "test", 0.1307, 0.3081)
    return x[:8000], y[:8000], x[8000:], y[8000:]


def cnn():
    return nn.Sequential(
        nn.Conv2D(1, 16, 3, padding=1), nn.BatchNorm2D(16), nn.ReLU(), nn.MaxPool2D(2),
        nn.Conv2D(16, 32, 3, padding=1), nn.BatchNorm2D(32), nn.ReLU(), nn.MaxPool2D(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


def train(net, x, y, epochs, batch=64):
    opt = oar.optimizer.Adam(learning_rate=2e-3, parameters=net.parameters())
    rng = np.random.default_rng(0)
    net.train()
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        t, total = time.perf_counter(), 0.0
        for k in range(0, len(x) - batch + 1, batch):
            idx = order[k:k + batch]
            loss = F.cross_entropy(net(oar.to_tensor(x[idx])), oar.to_tensor(y[idx]))
            loss.backward()
            opt.step()
            opt.clear_grad()
            total += float(loss)
        print(f"epoch {epoch}: mean loss {total / (len(x) // batch):.3f} ({time.perf_counter() - t:.0f} s)")
    net.eval()


def accuracy(pred, x, y, batch=500):
    hits = 0
    for k in range(0, len(x), batch):
        hits += int((pred.run([x[k:k + batch]])[0].argmax(1) == y[k:k + batch]).sum())
    return 100.0 * hits / len(x)


def predictor(prefix, ort=False):
    config = inference.Config(prefix)
    config.set_cpu_math_library_num_threads(THREADS)
    if ort:
        config.enable_onnxruntime()
        config.enable_ort_optimization()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return inference.create_predictor(config)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("OAR_FASHION_MNIST", DEFAULT_DATA))
    ap.add_argument("--train", type=int, default=12000)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--calib-batches", type=int, default=8)
    ap.add_argument("--algos", default="abs_max,avg,moving_average,hist,KL")
    args = ap.parse_args()
    try:
        import onnxruntime  # noqa: F401
        use_ort = True
    except ImportError:
        use_ort = False
    oar.seed(0)
    xtr, ytr, xte, yte = load_data(args.data)
    xtr, ytr = xtr[:args.train], ytr[:args.train]
    net = cnn()
    train(net, xtr, ytr, args.epochs)
    with tempfile.TemporaryDirectory(prefix="oar-bench-quantization-") as tmp:
        measure(args, net, os.path.join(tmp, "cnn"), xtr, xte, yte, use_ort)


def measure(args, net, prefix, xtr, xte, yte, use_ort):
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 28, 28], "float32", "x")])
    fp32 = accuracy(predictor(prefix), xte, yte)
    print(f"float32 test accuracy {fp32:.2f}%")
    calib = [xtr[k * 32:(k + 1) * 32] for k in range(args.calib_batches)]
    worst = 0.0
    for algo in args.algos.split(","):
        t = time.perf_counter()
        ptq = PostTrainingQuantization(model_dir=prefix, data_loader=calib, algo=algo, bins=2048)
        ptq.quantize()
        ptq.save_quantized_model(prefix + "_" + algo)
        took = time.perf_counter() - t
        native = accuracy(predictor(prefix + "_" + algo), xte, yte)
        line = f"int8 {algo:15s} native {native:.2f}% (drop {fp32 - native:+.2f})"
        worst = max(worst, fp32 - native)
        if use_ort:
            via_ort = accuracy(predictor(prefix + "_" + algo, ort=True), xte, yte)
            line += f"   onnxruntime {via_ort:.2f}% (drop {fp32 - via_ort:+.2f})"
            worst = max(worst, fp32 - via_ort)
        print(line + f"   (calibration {took:.1f} s)")
    print(f"target: accuracy drop <= 1 point ({'met' if worst <= 1.0 else 'NOT met'}: worst drop {worst:.2f})")
    if worst > 1.0:
        sys.exit(1)


if __name__ == "__main__":
    main()
