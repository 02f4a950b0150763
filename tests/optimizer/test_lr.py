"""Each LR scheduler against Paddle's formula, epoch by epoch."""
import math

import numpy as np
import pytest

from oar.optimizer import lr as L


def lrs(sched, n=12):
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


def check(sched, formula, n=12):
    np.testing.assert_allclose(lrs(sched, n), [formula(e) for e in range(n)], rtol=1e-12)


def test_step_multistep_exponential_natural_inverse_lambda():
    check(L.StepDecay(0.5, step_size=3, gamma=0.1), lambda e: 0.5 * 0.1 ** (e // 3))
    check(L.MultiStepDecay(0.5, milestones=[2, 5, 9], gamma=0.5),
          lambda e: 0.5 * 0.5 ** sum(e >= m for m in (2, 5, 9)))
    check(L.ExponentialDecay(0.5, gamma=0.9), lambda e: 0.5 * 0.9 ** e)
    check(L.NaturalExpDecay(0.5, gamma=0.1), lambda e: 0.5 * math.exp(-0.1 * e))
    check(L.InverseTimeDecay(0.5, gamma=0.1), lambda e: 0.5 / (1 + 0.1 * e))
    check(L.LambdaDecay(0.5, lambda e: 0.95 ** e), lambda e: 0.5 * 0.95 ** e)
    check(L.MultiplicativeDecay(0.5, lambda e: 0.9), lambda e: 0.5 * 0.9 ** e)


def test_piecewise():
    check(L.PiecewiseDecay([3, 6], [1.0, 0.5, 0.1]), lambda e: 1.0 if e < 3 else (0.5 if e < 6 else 0.1))
    with pytest.raises(ValueError):
        L.PiecewiseDecay([3], [1.0])


def test_polynomial():
    def f(e, cycle, steps=5, lr=0.5, end=0.01, power=2.0):
        if cycle:
            steps = steps * (1 if e == 0 else math.ceil(e / steps))
        else:
            e = min(e, steps)
        return (lr - end) * (1 - e / steps) ** power + end
    check(L.PolynomialDecay(0.5, 5, end_lr=0.01, power=2.0), lambda e: f(e, False))
    check(L.PolynomialDecay(0.5, 5, end_lr=0.01, power=2.0, cycle=True), lambda e: f(e, True))


def test_noam():
    f = lambda e: 1.0 * 512 ** -0.5 * min(1 if e == 0 else e ** -0.5, 4 ** -1.5 * e)  # noqa: E731
    check(L.NoamDecay(d_model=512, warmup_steps=4), f)


def test_cosine_annealing_recursive_and_closed_form():
    T, base, eta = 4, 0.5, 0.05
    got = lrs(L.CosineAnnealingDecay(base, T_max=T, eta_min=eta), 12)
    # Paddle's recursive rule; within the first half period it equals the closed form
    closed = [eta + (base - eta) * (1 + math.cos(math.pi * e / T)) / 2 for e in range(12)]
    np.testing.assert_allclose(got[:T + 1], closed[:T + 1], rtol=1e-12)
    ref, last = [], base
    for e in range(12):
        if e == 0:
            last = base
        elif (e - 1 - T) % (2 * T) == 0:
            last = last + (base - eta) * (1 - math.cos(math.pi / T)) / 2
        else:
            last = (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (last - eta) + eta
        ref.append(last)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    s = L.CosineAnnealingDecay(base, T_max=T, eta_min=eta)
    s.step(3)
    assert s() == pytest.approx(closed[3])


def test_linear_warmup_float_and_scheduler():
    check(L.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5),
          lambda e: 0.5 * e / 4 if e < 4 else 0.5)
    inner = L.StepDecay(0.5, step_size=2, gamma=0.5)
    check(L.LinearWarmup(inner, warmup_steps=3, start_lr=0.1, end_lr=0.5),
          lambda e: 0.1 + 0.4 * e / 3 if e < 3 else 0.5 * 0.5 ** ((e - 3) // 2))


def test_one_cycle():
    total, mx, div, end, pct = 10, 1.0, 25.0, 1e-4, 0.3
    init = mx / div
    cosf = lambda a, b, p: b + (a - b) / 2 * (math.cos(math.pi * p) + 1)  # noqa: E731

    def f(e):
        s1 = pct * total - 1
        if e <= s1:
            return cosf(init, mx, e / s1)
        return cosf(mx, end, (e - s1) / (total - 1 - s1))
    check(L.OneCycleLR(mx, total, divide_factor=div, end_learning_rate=end, phase_pct=pct), f, n=10)
    lin = L.OneCycleLR(mx, total, anneal_strategy="linear", three_phase=True)
    vals = lrs(lin, 10)
    assert vals[0] == pytest.approx(init) and max(vals) == pytest.approx(mx)
    assert vals[-1] == pytest.approx(1e-4)


def test_reduce_on_plateau():
    s = L.ReduceOnPlateau(1.0, patience=2, factor=0.5, cooldown=1)
    got = []
    for m in [5, 4, 4, 4, 4, 4, 4, 4, 3]:
        s.step(m)
        got.append(s())
    # bad epochs at 3,4,5 -> reduce at the third bad epoch; then 1 cooldown epoch, then 3 more bad -> reduce
    assert got == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5]
    s2 = L.ReduceOnPlateau(1.0, mode="max", patience=0, threshold=0.1, threshold_mode="abs")
    s2.step(1.0)
    s2.step(1.05)   # not better by 0.1 -> bad -> reduce
    assert s2() == pytest.approx(0.1)


def test_state_dict_roundtrip():
    a = L.StepDecay(0.5, step_size=2)
    for _ in range(5):
        a.step()
    b = L.StepDecay(0.5, step_size=2)
    b.set_state_dict(a.state_dict())
    assert b.last_epoch == 5 and b() == a()
    w = L.LinearWarmup(L.ExponentialDecay(0.5, 0.9), 2, 0.0, 0.5)
    for _ in range(6):
        w.step()
    w2 = L.LinearWarmup(L.ExponentialDecay(0.5, 0.9), 2, 0.0, 0.5)
    w2.set_state_dict(w.state_dict())
    assert w2() == w() and w2.learning_rate.last_epoch == w.learning_rate.last_epoch


@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_one_cycle_three_phase_formula(strategy):
    total, mx, div, end, pct = 20, 0.8, 10.0, 1e-3, 0.25
    init = mx / div
    if strategy == "cos":
        anneal = lambda a, b, p: b + (a - b) / 2 * (math.cos(math.pi * p) + 1)  # noqa: E731
    else:
        anneal = lambda a, b, p: (b - a) * p + a  # noqa: E731
    s1, s2, s3 = pct * total - 1, 2 * pct * total - 2, total - 1  # Paddle's phase ends

    def f(e):
        if e <= s1:
            return anneal(init, mx, e / s1)
        if e <= s2:
            return anneal(mx, init, (e - s1) / (s2 - s1))
        return anneal(init, end, (e - s2) / (s3 - s2))
    check(L.OneCycleLR(mx, total, divide_factor=div, end_learning_rate=end, phase_pct=pct,
                       anneal_strategy=strategy, three_phase=True), f, n=total)
    with pytest.raises(ValueError, match="phase_pct"):
        L.OneCycleLR(mx, total, phase_pct=0.5, three_phase=True)
    over = L.OneCycleLR(mx, 3)
    for _ in range(3):
        over.step()
    with pytest.raises(ValueError, match="total_steps"):
        over.step()


def test_reduce_on_plateau_rel_modes_and_min_lr():
    s = L.ReduceOnPlateau(1.0, mode="min", patience=0, threshold=0.1, factor=0.5, min_lr=0.3)
    s.step(10.0)
    s.step(9.5)   # needs < 9.0 to improve (rel): bad -> 0.5
    assert s() == 0.5
    s.step(8.0)   # better
    assert s() == 0.5
    s.step(8.0)   # bad -> max(0.25, min_lr 0.3)
    assert s() == 0.3
    m = L.ReduceOnPlateau(1.0, mode="max", patience=0, threshold=0.1, factor=0.5)
    m.step(10.0)
    m.step(10.5)  # needs > 11.0
    assert m() == 0.5
    state = m.state_dict()
    m2 = L.ReduceOnPlateau(1.0, mode="max")
    m2.set_state_dict(state)
    assert m2() == 0.5 and m2.best == 10.0 and m2.last_epoch == 2
