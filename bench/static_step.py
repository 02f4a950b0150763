"""Static-graph training step vs hand-written NumPy (and eager), plus the executor's per-op overhead.

LinearNet (784 -> 10), CrossEntropyLoss, backward, Adam, batch 64: one static Program run by the Executor, against
the same step written by hand in NumPy, measured in the same run. Then a chain of 100 small adds shows the
executor's cost per op beyond the kernel (compared with calling the same NumPy kernels directly).

Run: python bench/static_step.py
"""
import time

import numpy as np

import oar
import oar.nn as nn

B, D_IN, D_OUT = 64, 784, 10


def best(fn, n=200, repeat=5):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t) / n)
    return min(times)


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(D_IN, D_OUT)

    def forward(self, x):
        return self._linear(x)


def numpy_step_factory(w, b):
    state = {"w": w.copy(), "b": b.copy(), "m1w": np.zeros_like(w), "m2w": np.zeros_like(w),
             "m1b": np.zeros_like(b), "m2b": np.zeros_like(b), "b1p": np.float32(0.9), "b2p": np.float32(0.999)}
    lr, b1, b2, eps = np.float32(0.001), np.float32(0.9), np.float32(0.999), np.float32(1e-8)

    def adam(p, g, m1, m2, s):
        state[m1] = b1 * state[m1] + (1 - b1) * g
        state[m2] = b2 * state[m2] + (1 - b2) * g * g
        c2 = np.sqrt(1 - s["b2p"])
        lr_t = lr * c2 / (1 - s["b1p"])
        state[p] = state[p] - lr_t * (state[m1] / (np.sqrt(state[m2]) + eps * c2))

    def step(x, y):
        s = state
        logits = x @ s["w"] + s["b"]
        m = logits.max(1, keepdims=True)
        e = np.exp(logits - m)
        z = e.sum(1, keepdims=True)
        rows = np.arange(x.shape[0])
        loss = -(logits[rows, y[:, 0]] - m[:, 0] - np.log(z[:, 0])).mean()
        g = e / z
        g[rows, y[:, 0]] -= 1
        g /= x.shape[0]
        gw, gb = x.T @ g, g.sum(0)
        adam("w", gw, "m1w", "m2w", s)
        adam("b", gb, "m1b", "m2b", s)
        s["b1p"] *= b1
        s["b2p"] *= b2
        return loss
    return step, state


def main():
    r = np.random.default_rng(0)
    x = r.random((B, D_IN)).astype("float32")
    y = r.integers(0, D_OUT, (B, 1)).astype("int64")

    # static program
    mainp, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    with oar.static.program_guard(mainp, startup):
        xv = oar.static.data("x", [None, D_IN])
        yv = oar.static.data("y", [None, 1], "int64")
        loss = nn.CrossEntropyLoss()(LinearNet()(xv), yv)
        oar.optimizer.Adam(learning_rate=0.001).minimize(loss)
    oar.disable_static()
    exe = oar.static.Executor()
    scope = oar.static.Scope()
    exe.run(startup, scope=scope)
    n_ops = len(mainp.global_block().ops)
    feed = {"x": x, "y": y}
    t_static = best(lambda: exe.run(mainp, feed=feed, fetch_list=[loss], scope=scope))

    # hand-written numpy, from the same initial parameters
    names = [v.name for v in mainp.global_block().vars.values() if v.is_parameter]
    w0 = [scope.vars[n] for n in names if scope.vars[n].ndim == 2][0]
    b0 = [scope.vars[n] for n in names if scope.vars[n].ndim == 1][0]
    np_step, _ = numpy_step_factory(w0, b0)
    t_numpy = best(lambda: np_step(x, y))

    # eager
    oar.seed(0)
    net = LinearNet()
    adam = oar.optimizer.Adam(learning_rate=0.001, parameters=net.parameters())
    loss_fn = nn.CrossEntropyLoss()
    X, Y = oar.to_tensor(x), oar.to_tensor(y)

    def eager_step():
        lo = loss_fn(net(X), Y)
        lo.backward()
        adam.step()
        adam.clear_grad()
    t_eager = best(eager_step)

    print(f"LinearNet train step (batch {B}, {n_ops} static ops):")
    print(f"  numpy hand-written : {t_numpy * 1e6:8.1f} us")
    print(f"  static Executor    : {t_static * 1e6:8.1f} us   ({t_static / t_numpy:.2f}x numpy)")
    print(f"  eager              : {t_eager * 1e6:8.1f} us   ({t_eager / t_numpy:.2f}x numpy)")

    # executor per-op overhead: 100 small adds
    chain, st = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    with oar.static.program_guard(chain, st):
        a = oar.static.data("a", [4])
        one = oar.static.data("one", [4])
        h = a
        for _ in range(100):
            h = oar.add(h, one)
    oar.disable_static()
    av, ov = np.zeros(4, "float32"), np.ones(4, "float32")
    t_chain = best(lambda: exe.run(chain, feed={"a": av, "one": ov}, fetch_list=[h]), n=500)

    def raw():
        v = av
        for _ in range(100):
            v = np.add(v, ov)
        return v
    t_raw = best(raw, n=500)
    print("executor overhead, chain of 100 adds on float32[4]:")
    print(f"  Executor.run       : {t_chain * 1e6:8.1f} us total, {t_chain * 1e6 / 100:.2f} us/op")
    print(f"  raw numpy calls    : {t_raw * 1e6:8.1f} us total, {t_raw * 1e6 / 100:.2f} us/op")
    print(f"  overhead per op    : {(t_chain - t_raw) * 1e6 / 100:.2f} us (includes the fixed per-run cost "
          "spread over 100 ops)")
    one_op, st = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    with oar.static.program_guard(one_op, st):
        o = oar.add(oar.static.data("a", [4]), oar.static.data("one", [4]))
    oar.disable_static()
    t_one = best(lambda: exe.run(one_op, feed={"a": av, "one": ov}, fetch_list=[o]), n=2000)
    print(f"  fixed cost of one Executor.run (1-op program): {t_one * 1e6:.1f} us")


if __name__ == "__main__":
    main()
