"""Four small whole programs of the shapes users run (issue 26), each for a fixed number of steps in a fresh process,
printing its CPU time (user + system, all threads) and peak RSS. The same code runs on oar and on Paddle
(``--framework paddle``, with a Python that has paddlepaddle installed), so the figures compare like for like:

- ``cifar``: a CIFAR-style conv net (Conv(3,32,3)-ReLU-MaxPool-Conv(32,64,3)-ReLU-MaxPool-Linear(4096,128)-ReLU-
  Linear(128,10)) trained with Adam on random 3x32x32 images through a `DataLoader` (batch 32, 30 steps);
- ``seq2seq``: an LSTM encoder (Embedding(20,32), LSTM(32,64) over 12 steps) and an LSTMCell decoder run by a
  Python loop for 8 steps with teacher forcing, cross-entropy, Adam (batch 32, 20 steps);
- ``retrieval``: a ResNet-18 encoder (eval mode, gradients recorded as a user forgetting `no_grad` would) over
  512 images 3x64x64 in batches of 128, the embeddings kept, then dropped; reports RSS after ``del`` too (no gc);
- ``resnet50``: ResNet-50 training steps (SGD with momentum) on 3x64x64 images, batch 8, 3 steps.

``--busy`` runs a competing busy process (``while True: pass``) beside each program. Threads are each framework's
default (oar: one BLAS thread, `docs/threads.md`). Imports are outside the timed region for both: `import paddle`
loads everything, and the child touches oar's lazily loaded `nn`, `optimizer`, `io`, `vision` before the clock starts
(about 0.04 CPU s that the first table below still counts in oar's figures).

Run: python bench/programs.py [--only NAME] [--busy] [--framework oar|paddle]

Measured 2026-11-27 on the 2-core development machine (shared with other jobs, so wall times mostly measure the
load; CPU s and peak RSS MiB are the figures to compare), one run each; paddlepaddle 3.3.1 (CPU, from the package
index) in /work/paddle_venv on the same machine, same hour. "base" is oar before issue 26 (its default: NumPy's
BLAS with 2 threads), "base, 1 thread" the same code with OPENBLAS_NUM_THREADS=1:

| program | base | base, 1 thread | oar | Paddle 3.3.1 | oar, busy | Paddle, busy |
|---|---|---|---|---|---|---|
| cifar CPU s | 7.45 | 0.83 | 0.94 | 1.71 | 0.93 | 1.77 |
| seq2seq CPU s | 8.78 | 0.21 | 0.21 | 0.16 | 0.23 | 0.19 |
| retrieval CPU s | 37.9 | 3.90 | 4.67 | 8.75 | 3.94 | 8.86 |
| resnet50 CPU s | 25.6 | 2.18 | 1.72 | 3.38 | 1.74 | 3.63 |
| cifar peak RSS | 117 | 117 | 130 | 379 | 130 | 381 |
| seq2seq peak RSS | 55 | 55 | 50 | 317 | 50 | 317 |
| retrieval peak RSS | 1737 | 1736 | 1248 | 1254 | 1247 | 1253 |
| retrieval RSS after del | 1737 | 1736 | 958 | 704 | 958 | 703 |
| resnet50 peak RSS | 553 | 549 | 492 | 692 | 498 | 703 |

With the fused recurrent ops (`oar/ops/nn/rnn.py`) and imports outside the clock for both, measured 2026-11-27
on the same machine, later (its load differs from the hour above: compare within this table only):

| program | oar | Paddle 3.3.1 |
|---|---|---|
| cifar CPU s | 0.954 | 1.612 |
| seq2seq CPU s, 5 runs alternating | 0.114-0.118 | 0.158-0.171 |
| seq2seq CPU s, busy, 3 runs alternating | 0.127-0.132 | 0.167-0.185 |
| retrieval CPU s | 2.971 | 8.148 |
| resnet50 CPU s | 1.363 | 3.448 |
| cifar / seq2seq / retrieval / resnet50 peak RSS | 121 / 53 / 1243 / 480 | 377 / 317 / 1252 / 698 |
| retrieval RSS after del | 528 | 702 |

seq2seq before the fused ops (main at e4e7cb6, same script, 3 runs): 0.166-0.175 CPU s. Counting oar's lazy imports
in the clock (the script before this change), oar measured 0.15-0.16 against Paddle's 0.15-0.16 in 5 alternating
runs at a busier hour.
"""
import argparse
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = ("cifar", "seq2seq", "retrieval", "resnet50")


def _rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cifar(paddle, np):
    nn = paddle.nn

    class Images(paddle.io.Dataset):
        def __init__(self, n):
            rng = np.random.default_rng(0)
            self.x = rng.random((n, 3, 32, 32), dtype=np.float32)
            self.y = rng.integers(0, 10, (n, 1)).astype("int64")

        def __getitem__(self, i):
            return self.x[i], self.y[i]

        def __len__(self):
            return len(self.x)

    net = nn.Sequential(nn.Conv2D(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2),
                        nn.Conv2D(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(),
                        nn.Linear(4096, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    loader = paddle.io.DataLoader(Images(32 * 30), batch_size=32, shuffle=True)
    for x, y in loader:
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return float(loss)


def seq2seq(paddle, np):
    nn = paddle.nn
    vocab, hidden, src_len, tgt_len, batch = 20, 64, 12, 8, 32

    class Seq2Seq(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, 32)
            self.enc = nn.LSTM(32, hidden)
            self.dec = nn.LSTMCell(32, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, src, tgt):
            _, (h, c) = self.enc(self.emb(src))
            state, logits = (h[0], c[0]), []
            for t in range(tgt.shape[1]):             # the Python decoding loop, teacher forcing
                y, state = self.dec(self.emb(tgt[:, t]), state)
                logits.append(self.out(y))
            return paddle.stack(logits, axis=1)

    rng = np.random.default_rng(0)
    model = Seq2Seq()
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    for _ in range(20):
        src = paddle.to_tensor(rng.integers(0, vocab, (batch, src_len)).astype("int64"))
        tgt = paddle.to_tensor(rng.integers(0, vocab, (batch, tgt_len)).astype("int64"))
        logits = model(src, tgt)
        loss = nn.functional.cross_entropy(logits.reshape([-1, vocab]), tgt.reshape([-1, 1]))
        loss.backward()
        opt.step()
        opt.clear_grad()
    return float(loss)


def retrieval(paddle, np):
    model = paddle.vision.models.resnet18(num_classes=128)
    model.eval()
    rng = np.random.default_rng(0)
    images = rng.random((512, 3, 64, 64), dtype=np.float32)
    embeddings = [model(paddle.to_tensor(images[i:i + 128])) for i in range(0, 512, 128)]
    before = _rss_mib()
    total = float(sum(float(e.sum()) for e in embeddings))
    del embeddings
    print(f"    retrieval: RSS with the embeddings {before:.0f} MiB, after del (no gc) {_rss_mib():.0f} MiB",
          file=sys.stderr)
    return total


def resnet50(paddle, np):
    model = paddle.vision.models.resnet50(num_classes=10)
    opt = paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9, parameters=model.parameters())
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = paddle.to_tensor(rng.random((8, 3, 64, 64), dtype=np.float32))
        y = paddle.to_tensor(rng.integers(0, 10, (8, 1)).astype("int64"))
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return float(loss)


def child(name, framework):
    """Runs one program in this process and prints ``name cpu_s peak_rss_mib result``."""
    import importlib

    import numpy as np
    if framework == "oar":
        sys.path.insert(0, ROOT)
    paddle = importlib.import_module(framework)
    for module in ("nn", "optimizer", "io", "vision"):  # oar loads these on first use; `import paddle` already did
        getattr(paddle, module)
    paddle.seed(0)
    t = time.process_time()
    r = globals()[name](paddle, np)
    cpu = time.process_time() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name} {cpu:.3f} {peak:.0f} {r:.4f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=PROGRAMS)
    ap.add_argument("--busy", action="store_true", help="run a competing busy process beside each program")
    ap.add_argument("--framework", default="oar", choices=["oar", "paddle"])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.framework)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        print(f"{args.framework}{' beside a busy process' if busy else ''}: program, CPU s (all threads), "
              f"wall s, peak RSS MiB")
        for name in [args.only] if args.only else PROGRAMS:
            t = time.perf_counter()
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name, "--framework",
                                args.framework], capture_output=True, text=True)
            wall = time.perf_counter() - t
            if r.returncode:
                print(f"{name}: failed\n{r.stderr[-2000:]}")
                continue
            n, cpu, peak, _ = r.stdout.split()[-4:]
            print(f"  {n:10s} {float(cpu):8.3f} {wall:8.2f} {float(peak):8.0f}")
            for line in r.stderr.splitlines():
                if line.startswith("    "):
                    print(line)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


if __name__ == "__main__":
    main()
