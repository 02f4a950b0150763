"""LinearLR, CyclicLR, CosineAnnealingWarmRestarts and LBFGS (issue 23): schedules against closed forms written from
Paddle's definitions; LBFGS against a NumPy L-BFGS of the same algorithm and on a quadratic it must solve."""
import math

import numpy as np
import pytest

import oar
from oar.optimizer import lr as L


def run(sched, n):
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


def test_linear_lr_is_a_linear_ramp():
    got = run(L.LinearLR(0.5, total_steps=4, start_factor=0.2, end_factor=0.9), 7)
    ref = [0.5 * (0.2 + (0.9 - 0.2) * min(e, 4) / 4) for e in range(7)]
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    with pytest.raises(ValueError, match="start_factor"):
        L.LinearLR(0.5, 4, start_factor=0.0)


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
def test_cyclic_lr(mode):
    up, down, base, top, gamma = 3, 2, 0.1, 1.0, 0.9
    got = run(L.CyclicLR(base, top, up, down, mode=mode, exp_gamma=gamma), 14)
    ref = []
    for it in range(14):
        cycle, pos = it // 5, it % 5
        frac = pos / up if pos <= up else 1 - (pos - up) / down
        scale = {"triangular": 1.0, "triangular2": 0.5 ** cycle, "exp_range": gamma ** it}[mode]
        ref.append(base + (top - base) * frac * scale)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    custom = run(L.CyclicLR(0.0, 1.0, 2, scale_fn=lambda i: 1 / (1 + i), scale_mode="iterations"), 4)
    np.testing.assert_allclose(custom, [0.0, 0.5 / 2, 1.0 / 3, 0.5 / 4])


def test_cosine_annealing_warm_restarts():
    got = run(L.CosineAnnealingWarmRestarts(1.0, T_0=3, T_mult=2, eta_min=0.1), 12)
    ref, t_i, t_cur = [], 3, 0
    for _ in range(12):
        ref.append(0.1 + 0.9 * (1 + math.cos(math.pi * t_cur / t_i)) / 2)
        t_cur += 1
        if t_cur >= t_i:
            t_cur, t_i = t_cur - t_i, t_i * 2
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    s = L.CosineAnnealingWarmRestarts(1.0, T_0=3, T_mult=2)
    s.step(10)  # periods 3, 6, 12: epoch 10 is 1 into the third
    np.testing.assert_allclose(s(), (1 + math.cos(math.pi * 1 / 12)) / 2, rtol=1e-12)
    s.step(2.5)
    np.testing.assert_allclose(s(), (1 + math.cos(math.pi * 2.5 / 3)) / 2, rtol=1e-12)
    with pytest.raises(ValueError, match="T_mult"):
        L.CosineAnnealingWarmRestarts(1.0, 3, T_mult=0)


def rosen(x):
    return float((100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum())


def rosen_grad(x):
    g = np.zeros_like(x)
    g[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200 * (x[1:] - x[:-1] ** 2)
    return g


def lbfgs_ref(x, lr, iters, history):
    """Nocedal & Wright's two-loop L-BFGS with a fixed step (Paddle's first step: min(1, 1/|g|_1) * lr), one call
    to step() of `iters` iterations."""
    g = rosen_grad(x)
    ys_hist = []
    d = t = prev_g = None
    for k in range(iters):
        if k == 0:
            d = -g
        else:
            y, s = g - prev_g, d * t
            if y @ s > 1e-10:
                ys_hist = (ys_hist + [(y, s, 1 / (y @ s))])[-history:]
                h = (y @ s) / (y @ y)
            q, al = -g, []
            for y_, s_, r_ in reversed(ys_hist):
                a = (s_ @ q) * r_
                al.append(a)
                q = q - a * y_
            d = q * h
            for (y_, s_, r_), a in zip(ys_hist, reversed(al)):
                d = d + s_ * (a - (y_ @ d) * r_)
        prev_g = g
        t = min(1.0, 1.0 / np.abs(g).sum()) * lr if k == 0 else lr
        x = x + t * d
        if k != iters - 1:
            g = rosen_grad(x)
    return x


@pytest.mark.parametrize("history", [100, 2])
def test_lbfgs_matches_the_two_loop_recursion(history):
    x0 = np.array([-1.2, 1.0, 0.5])
    w = oar.to_tensor(x0, stop_gradient=False)
    opt = oar.optimizer.LBFGS(learning_rate=0.5, max_iter=6, history_size=history, parameters=[w],
                              tolerance_change=0.0)

    def closure():
        opt.clear_grad()
        loss = (100 * (w[1:] - w[:-1] ** 2) ** 2 + (1 - w[:-1]) ** 2).sum()
        loss.backward()
        return loss
    first = opt.step(closure)
    np.testing.assert_allclose(float(first), rosen(x0), rtol=1e-12)
    np.testing.assert_allclose(w.numpy(), lbfgs_ref(x0, 0.5, 6, history), rtol=1e-10)


def test_lbfgs_strong_wolfe_solves_rosenbrock():
    w = oar.to_tensor(np.array([-1.2, 1.0, 0.5]), stop_gradient=False)
    opt = oar.optimizer.LBFGS(max_iter=100, line_search_fn="strong_wolfe", parameters=[w])

    def closure():
        opt.clear_grad()
        loss = (100 * (w[1:] - w[:-1] ** 2) ** 2 + (1 - w[:-1]) ** 2).sum()
        loss.backward()
        return loss
    for _ in range(5):
        opt.step(closure)
    np.testing.assert_allclose(w.numpy(), [1.0, 1.0, 1.0], atol=1e-5)
    with pytest.raises(NotImplementedError, match="weight_decay"):
        oar.optimizer.LBFGS(parameters=[w], weight_decay=0.1)
