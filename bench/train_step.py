"""One training step (forward, backward, optimizer step, clear_grad) three ways: oar eager, the same step function
converted by `oar.jit.to_static` (the whole step captured as ONE program, `oar/jit/train_step.py`), and the same
math hand-written in NumPy.

(a) LinearNet: Linear(784 -> 10), batch 16, softmax cross-entropy, Adam.
        targets: captured <= 1.3x NumPy; captured >= 1.8x faster than eager.
(b) LeNet: Conv2D(1,20,5)-ReLU-MaxPool2-Conv2D(20,50,5)-ReLU-MaxPool2-Linear(800,500)-ReLU-Linear(500,10),
    1x28x28, batch 64, Adam.                              targets: eager <= 1.5x NumPy; captured <= eager.
(c) LSTM language model: Embedding(1000, 128) -> LSTMCell(128) over T=20 in a Python loop -> Linear(128, 1000),
    cross-entropy, SGD, batch 16 (no NumPy reference).     target: captured >= 3x faster than eager.
The NumPy reference does the same math with the usual fast NumPy idioms: im2col by `sliding_window_view` and one
BLAS matmul per convolution (forward, weight gradient and input gradient), the input gradient by col2im (one
slice-add per kernel offset), 2x2 max pooling by reshape with a mask backward, and Paddle's Adam update. All run in
float32; the reference's results are checked against oar's once, and the captured step against eager (20 steps).

BLAS threads and clock: all sides call the same OpenBLAS; on a small shared machine its thread pool makes the timing of
mid-sized GEMMs erratic (x10 swings under load), so the bench pins BLAS to one thread unless OAR_BENCH_THREADS
is set (e.g. OAR_BENCH_THREADS=4); with one thread the timings are process CPU time (see CLOCK).

Run: python bench/train_step.py [--repeat N] [--only a|b|c] [--profile a|b|c [--captured]]
"""
import argparse
import os
import sys
import time
import timeit

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads BLAS
    os.environ.setdefault(_v, os.environ.get("OAR_BENCH_THREADS", "1"))

import numpy as np

# One BLAS thread: process CPU time, which other processes' load on a shared machine does not inflate (the best
# of interleaved repeats is taken as well). More threads: wall time (CPU time would add the threads up).
CLOCK = time.process_time if os.environ["OPENBLAS_NUM_THREADS"] == "1" else time.perf_counter
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's oar
import oar  # noqa: E402
import oar.nn as nn

B1, B2, EPS, LR = 0.9, 0.999, 1e-8, 0.001


# ---- the NumPy reference ----------------------------------------------------------------------------------------

class NpAdam:
    """Paddle's Adam on a list of float32 arrays, updated in place."""

    def __init__(self, params):
        self.params = params
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.b1p, self.b2p = np.float32(B1), np.float32(B2)

    def step(self, grads):
        c2 = np.sqrt(1 - self.b2p)
        lr_t = LR * c2 / (1 - self.b1p)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= B1
            m += (1 - B1) * g
            v *= B2
            v += (1 - B2) * (g * g)
            p -= lr_t * (m / (np.sqrt(v) + EPS * c2))
        self.b1p, self.b2p = self.b1p * B1, self.b2p * B2


def np_softmax_ce(logits, labels):
    """Mean cross-entropy with hard labels [N, 1]; returns (loss, dlogits)."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    lab = labels.reshape(-1)
    loss = (np.log(s[:, 0]) - z[np.arange(n), lab]).mean()
    d = e / s
    d[np.arange(n), lab] -= 1
    return loss, d / n


def np_conv(x, w, b):
    """Valid stride-1 conv, NCHW x OIHW -> NCHW, by im2col + one matmul; returns (y, cols)."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    cols = sliding_window_view(x, (kh, kw), axis=(2, 3))            # N C OH OW KH KW
    oh, ow = cols.shape[2], cols.shape[3]
    cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    y = cols @ w.reshape(o, -1).T + b                                # (N OH OW) O
    return y.reshape(n, oh, ow, o).transpose(0, 3, 1, 2), cols


def np_conv_backward(gy, cols, x_shape, w, need_dx):
    n, o, oh, ow = gy.shape
    g2 = gy.transpose(0, 2, 3, 1).reshape(-1, o)                     # (N OH OW) O
    dw = (g2.T @ cols).reshape(w.shape)
    db = g2.sum(axis=0)
    dx = None
    if need_dx:  # col2im: one matmul, then add each kernel offset's slice back
        _, c, kh, kw = w.shape
        dcols = (g2 @ w.reshape(o, -1)).reshape(n, oh, ow, c, kh, kw).transpose(0, 3, 4, 5, 1, 2)
        dx = np.zeros(x_shape, w.dtype)
        for i in range(kh):
            for j in range(kw):
                dx[:, :, i:i + oh, j:j + ow] += dcols[:, :, i, j]
    return dx, dw, db


def np_pool(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    return r.max(axis=(3, 5)), r


def np_pool_backward(gy, r, y):
    """Routes each gradient to its window's maximum. Ties only occur between zeros after ReLU, whose gradient
    the ReLU backward then zeroes, so this equals an argmax-based kernel here."""
    mask = r == y[:, :, :, None, :, None]
    g = mask * gy[:, :, :, None, :, None]
    n, c, oh, ow = y.shape
    return g.reshape(n, c, oh * 2, ow * 2)


class NpLinearNet:
    def __init__(self, w, b):
        self.params = [w.copy(), b.copy()]
        self.opt = NpAdam(self.params)

    def step(self, x, labels):
        w, b = self.params
        logits = x @ w + b
        loss, d = np_softmax_ce(logits, labels)
        self.opt.step([x.T @ d, d.sum(axis=0)])
        return loss


class NpLeNet:
    def __init__(self, params):
        self.params = [p.copy() for p in params]     # w1 b1 w2 b2 wh bh wf bf
        self.opt = NpAdam(self.params)

    def step(self, x, labels):
        w1, b1, w2, b2, wh, bh, wf, bf = self.params
        c1, cols1 = np_conv(x, w1, b1)
        r1 = np.maximum(c1, 0)
        p1, rr1 = np_pool(r1)
        c2, cols2 = np_conv(p1, w2, b2)
        r2 = np.maximum(c2, 0)
        p2, rr2 = np_pool(r2)
        flat = p2.reshape(p2.shape[0], -1)
        hid = flat @ wh + bh
        h = np.maximum(hid, 0)
        logits = h @ wf + bf
        loss, d = np_softmax_ce(logits, labels)
        dwf, dbf = h.T @ d, d.sum(axis=0)
        dh = (d @ wf.T) * (hid > 0)
        dwh, dbh = flat.T @ dh, dh.sum(axis=0)
        dp2 = (dh @ wh.T).reshape(p2.shape)
        dc2 = np_pool_backward(dp2, rr2, p2) * (c2 > 0)
        dp1, dw2, db2 = np_conv_backward(dc2, cols2, p1.shape, w2, True)
        dc1 = np_pool_backward(dp1, rr1, p1) * (c1 > 0)
        _, dw1, db1 = np_conv_backward(dc1, cols1, x.shape, w1, False)
        self.opt.step([dw1, db1, dw2, db2, dwh, dbh, dwf, dbf])
        return loss


# ---- the oar models ---------------------------------------------------------------------------------------------

class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(784, 10)

    def forward(self, x):
        return self._linear(x)


class LeNetCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 20, 5)
        self.conv2 = nn.Conv2D(20, 50, 5)
        self.pool = nn.MaxPool2D(2, 2)
        self.relu = nn.ReLU()
        self.hidden = nn.Linear(800, 500)
        self.fc = nn.Linear(500, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.relu(self.hidden(oar.flatten(x, 1))))


class LSTMLM(nn.Layer):
    def __init__(self, vocab=1000, hidden=128):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        x = self.embedding(tokens)
        h = c = oar.zeros([tokens.shape[0], self.cell.hidden_size])
        outs = []
        for t in range(tokens.shape[1]):
            y, (h, c) = self.cell(x[:, t], (h, c))
            outs.append(y)
        return self.out(oar.stack(outs, 1))


def oar_stepper(model, x, y, captured=False, make_opt=None):
    """The step function (eager), or the same function converted by to_static (`captured`)."""
    loss_fn = nn.CrossEntropyLoss()
    opt = (make_opt or (lambda ps: oar.optimizer.Adam(learning_rate=LR, parameters=ps)))(model.parameters())
    xt, yt = oar.to_tensor(x), oar.to_tensor(y)

    def train_step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    fn = oar.jit.to_static(train_step) if captured else train_step
    return lambda: fn(xt, yt)


def setup(which):
    rng = np.random.default_rng(0)
    oar.seed(0)
    if which == "a":
        x = rng.random((16, 784), dtype=np.float32)
        y = rng.integers(0, 10, (16, 1)).astype(np.int64)
        model = LinearNet()
        ref = NpLinearNet(model._linear.weight.numpy(), model._linear.bias.numpy())
    elif which == "b":
        x = rng.random((64, 1, 28, 28), dtype=np.float32)
        y = rng.integers(0, 10, (64, 1)).astype(np.int64)
        model = LeNetCNN()
        ref = NpLeNet([p.numpy() for p in (model.conv1.weight, model.conv1.bias, model.conv2.weight,
                                            model.conv2.bias, model.hidden.weight, model.hidden.bias,
                                            model.fc.weight, model.fc.bias)])
    else:
        x = rng.integers(0, 1000, (16, 20)).astype(np.int64)
        y = rng.integers(0, 1000, (16, 20, 1)).astype(np.int64)
        model, ref = LSTMLM(), None
    return model, ref, x, y


def make_opt(which):
    if which == "c":
        return lambda ps: oar.optimizer.SGD(learning_rate=0.1, parameters=ps)
    return None


def check(which):
    """The NumPy reference and oar agree on the loss and the parameters after three steps; 20 captured steps
    give the parameters of 20 eager steps."""
    model, ref, x, y = setup(which)
    step = oar_stepper(model, x, y, make_opt=make_opt(which))
    if ref is not None:
        for _ in range(3):
            lo, ln = float(step()), float(ref.step(x, y))
            np.testing.assert_allclose(lo, ln, rtol=1e-4)
        for p, q in zip(model.parameters(), ref.params):
            np.testing.assert_allclose(p.numpy(), q, rtol=1e-3, atol=1e-5)
    eager_model, _, _, _ = setup(which)
    captured_model, _, _, _ = setup(which)
    eager = oar_stepper(eager_model, x, y, make_opt=make_opt(which))
    captured = oar_stepper(captured_model, x, y, captured=True, make_opt=make_opt(which))
    for _ in range(20):
        eager(), captured()
    for p, q in zip(eager_model.parameters(), captured_model.parameters()):
        np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-5, atol=1e-5)


def measure(which, repeat):
    """Best-of-`repeat` seconds per step: (eager, captured, numpy or None), interleaved."""
    model, ref, x, y = setup(which)
    cmodel, _, _, _ = setup(which)
    steps = [oar_stepper(model, x, y, make_opt=make_opt(which)),
             oar_stepper(cmodel, x, y, captured=True, make_opt=make_opt(which))]
    if ref is not None:
        steps.append(lambda: ref.step(x, y))
    number = {"a": 200, "b": 5, "c": 5}[which]
    for s in steps:
        s()  # warm up (and trace the captured step)
    best = [float("inf")] * len(steps)
    for _ in range(repeat):  # interleaved, best of each: the least noisy estimate on a shared machine
        for i, s in enumerate(steps):
            best[i] = min(best[i], timeit.Timer(s, timer=CLOCK).timeit(number) / number)
    return best + [None] * (3 - len(best))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", choices=["a", "b", "c"])
    ap.add_argument("--profile", choices=["a", "b", "c"])
    ap.add_argument("--captured", action="store_true")
    args = ap.parse_args()
    if args.profile:
        import cProfile
        import pstats
        model, _, x, y = setup(args.profile)
        step = oar_stepper(model, x, y, captured=args.captured, make_opt=make_opt(args.profile))
        step()
        n = 500 if args.profile == "a" else 20
        cProfile.runctx("for _ in range(n): step()", globals(), {"step": step, "n": n}, "/tmp/train_step.prof")
        pstats.Stats("/tmp/train_step.prof").sort_stats("tottime").print_stats(25)
        return
    print(f"BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}")
    names = {"a": "LinearNet 784->10, batch 16, Adam", "b": "LeNet, batch 64, Adam",
             "c": "LSTM LM 1000x128, T=20, batch 16, SGD"}
    for which in ([args.only] if args.only else ["a", "b", "c"]):
        check(which)
        t_eager, t_cap, t_np = measure(which, args.repeat)
        line = f"({which}) {names[which]:38s} eager {t_eager * 1e3:8.3f} ms  captured {t_cap * 1e3:8.3f} ms"
        if t_np is not None:
            line += f"  numpy {t_np * 1e3:8.3f} ms"
        print(line)
        speedup = t_eager / t_cap
        if which == "a":
            print(f"      captured/numpy {t_cap / t_np:5.2f}x (target <= 1.3x)   eager/captured {speedup:5.2f}x "
                  f"(target >= 1.8x)")
        elif which == "b":
            print(f"      eager/numpy {t_eager / t_np:5.2f}x (target <= 1.5x)   captured/numpy {t_cap / t_np:5.2f}x   "
                  f"eager/captured {speedup:5.2f}x")
        else:
            print(f"      eager/captured {speedup:5.2f}x (target >= 3x)")


if __name__ == "__main__":
    main()
