"""Eager per-op overhead: oar vs the same computation written directly in NumPy, measured in the same run.

Prints, for a small-tensor `add`, a small `matmul` and a forward+backward step of a 2-layer MLP (matmul, add,
relu as maximum, mean), the time per call in µs for oar and NumPy, the difference and the ratio.
Targets (issue 2): a small op costs at most 4 µs over NumPy's own call; the MLP step stays within 5x.

Run: python bench/eager_overhead.py [--repeat N]
"""
import argparse
import timeit

import numpy as np

import oar


def best_us(fn, ref, number, repeat):
    """Best-of-`repeat` time of one call of `fn` and of `ref`, in µs. The two are timed in alternation so that
    both see the same machine load; the minimum is the least noisy estimate."""
    a, b = [], []
    for _ in range(repeat):
        a.append(timeit.timeit(fn, number=number))
        b.append(timeit.timeit(ref, number=number))
    return min(a) / number * 1e6, min(b) / number * 1e6


def bench_add(repeat):
    a, b = np.ones((4, 4), np.float32), np.ones((4, 4), np.float32)
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    return best_us(lambda: x + y, lambda: a + b, 20000, repeat)


def bench_matmul(repeat):
    a, b = np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    return best_us(lambda: oar.matmul(x, y), lambda: a @ b, 20000, repeat)


def bench_mlp(repeat, batch=32, d_in=64, hidden=64, d_out=10):
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((batch, d_in)).astype(np.float32)
    w1a = (rng.standard_normal((d_in, hidden)) * 0.1).astype(np.float32)
    b1a = np.zeros(hidden, np.float32)
    w2a = (rng.standard_normal((hidden, d_out)) * 0.1).astype(np.float32)
    b2a = np.zeros(d_out, np.float32)

    x = oar.to_tensor(xa)
    params = [oar.to_tensor(p, stop_gradient=False) for p in (w1a, b1a, w2a, b2a)]
    w1, b1, w2, b2 = params

    def oar_step():
        h = oar.maximum(oar.matmul(x, w1) + b1, 0.0)
        loss = oar.mean(oar.matmul(h, w2) + b2)
        loss.backward()
        for p in params:
            p.clear_grad()

    def numpy_step():
        z1 = xa @ w1a + b1a
        h = np.maximum(z1, np.float32(0))
        out = h @ w2a + b2a
        loss = out.mean()
        g_out = np.full(out.shape, 1.0 / out.size, np.float32)
        g_w2 = h.T @ g_out
        g_b2 = g_out.sum(0)
        g_h = g_out @ w2a.T
        g_z1 = g_h * (z1 >= 0)
        g_w1 = xa.T @ g_z1
        g_b1 = g_z1.sum(0)
        return loss, g_w1, g_b1, g_w2, g_b2

    # same numbers first
    oar_loss = oar.mean(oar.matmul(oar.maximum(oar.matmul(x, w1) + b1, 0.0), w2) + b2)
    oar_loss.backward()
    ref = numpy_step()
    np.testing.assert_allclose(w1.grad.numpy(), ref[1], rtol=1e-4, atol=1e-6)
    for p in params:
        p.clear_grad()
    return best_us(oar_step, numpy_step, 300, 3 * repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="timing rounds (min is kept)")
    args = ap.parse_args()
    rows = [("add 4x4", bench_add(args.repeat), 4.0, None),
            ("matmul 8x8", bench_matmul(args.repeat), 4.0, None),
            ("MLP fwd+bwd 32x64x64x10", bench_mlp(args.repeat), None, 5.0)]
    print(f"{'case':<26}{'oar µs':>10}{'numpy µs':>10}{'over µs':>10}{'ratio':>8}   target")
    for name, (o, n), max_over, max_ratio in rows:
        target = f"over <= {max_over:g} µs" if max_over else f"ratio <= {max_ratio:g}x"
        ok = (o - n <= max_over) if max_over else (o / n <= max_ratio)
        print(f"{name:<26}{o:>10.2f}{n:>10.2f}{o - n:>10.2f}{o / n:>8.2f}   {target} {'ok' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
