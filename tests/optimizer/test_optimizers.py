"""Each optimizer's update against a closed-form NumPy implementation of its algorithm, over several steps."""
import numpy as np
import pytest

import oar
from oar import optimizer as O
from oar.regularizer import L1Decay, L2Decay

RNG = np.random.default_rng(0)
P0 = [RNG.standard_normal((3, 4)), RNG.standard_normal((4,))]
GRADS = [[RNG.standard_normal(p.shape) for p in P0] for _ in range(5)]


def make_params(names=("w", "b")):
    ps = []
    for n, a in zip(names, P0):
        p = oar.Parameter(a.copy())
        p.name = n
        ps.append(p)
    return ps


def run(opt_fn, steps=5, params=None):
    ps = params or make_params()
    opt = opt_fn(ps)
    for s in range(steps):
        for p, g in zip(ps, GRADS[s]):
            p.grad = g.copy()
        opt.step()
        opt.clear_grad()
    return [p.numpy() for p in ps], opt


# ---- NumPy references: state per parameter, one function per algorithm ----------------------------------------

def ref_sgd(p, g, st, t, lr):
    return p - lr * g


def ref_momentum(mu, nesterov):
    def f(p, g, st, t, lr):
        v = st.get("v", 0) * mu + g
        st["v"] = v
        return p - lr * (g + mu * v if nesterov else v)
    return f


def ref_adam(b1=0.9, b2=0.999, eps=1e-8, coeff=0.0):
    def f(p, g, st, t, lr):
        p = p * (1 - lr * coeff)
        m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
        v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
        mhat, vhat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        # Paddle puts eps inside the bias correction: eps_hat = eps * sqrt(1 - b2^t)
        return p - lr * mhat / (np.sqrt(vhat) + eps)
    return f


def ref_adamax(b1=0.9, b2=0.999, eps=1e-8):
    def f(p, g, st, t, lr):
        m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
        u = st["u"] = np.maximum(b2 * st.get("u", 0) + eps, np.abs(g))
        return p - lr / (1 - b1 ** t) * m / u
    return f


def ref_rmsprop(rho=0.95, eps=1e-6, mom=0.0, centered=False):
    def f(p, g, st, t, lr):
        ms = st["ms"] = rho * st.get("ms", 0) + (1 - rho) * g * g
        mg = st["mg"] = rho * st.get("mg", 0) + (1 - rho) * g
        den = ms - mg * mg if centered else ms
        v = st["v"] = mom * st.get("v", 0) + lr * g / np.sqrt(den + eps)
        return p - v
    return f


def ref_adagrad(eps=1e-6, init=0.0):
    def f(p, g, st, t, lr):
        a = st["a"] = st.get("a", init) + g * g
        return p - lr * g / (np.sqrt(a) + eps)
    return f


def ref_adadelta(rho=0.95, eps=1e-6):
    def f(p, g, st, t, lr):
        eg = st["eg"] = rho * st.get("eg", 0) + (1 - rho) * g * g
        dx = -np.sqrt((st.get("ex", 0) + eps) / (eg + eps)) * g
        st["ex"] = rho * st.get("ex", 0) + (1 - rho) * dx * dx
        return p + lr * dx
    return f


def ref_lamb(wd=0.01, b1=0.9, b2=0.999, eps=1e-6):
    def f(p, g, st, t, lr):
        m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
        v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * p
        trust = np.linalg.norm(p) / np.linalg.norm(r)
        return p - lr * trust * r
    return f


def reference(update, lrs=(0.1, 0.1), decay=None, steps=5, lr_sched=None):
    ps = [a.copy() for a in P0]
    states = [{} for _ in ps]
    for s in range(steps):
        for i in range(len(ps)):
            g = GRADS[s][i]
            if decay is not None:
                g = g + decay[i](ps[i])
            lr = lrs[i] * (lr_sched(s) if lr_sched else 1.0)
            ps[i] = update(ps[i], g, states[i], s + 1, lr)
    return ps


CASES = [
    (lambda ps: O.SGD(0.1, parameters=ps), ref_sgd),
    (lambda ps: O.Momentum(0.1, momentum=0.8, parameters=ps), ref_momentum(0.8, False)),
    (lambda ps: O.Momentum(0.1, momentum=0.8, parameters=ps, use_nesterov=True), ref_momentum(0.8, True)),
    (lambda ps: O.Adam(0.1, parameters=ps), ref_adam()),
    (lambda ps: O.Adam(0.1, beta1=0.8, beta2=0.9, epsilon=1e-3, parameters=ps), ref_adam(0.8, 0.9, 1e-3)),
    (lambda ps: O.AdamW(0.1, parameters=ps, weight_decay=0.05), ref_adam(coeff=0.05)),
    (lambda ps: O.Adamax(0.1, parameters=ps), ref_adamax()),
    (lambda ps: O.RMSProp(0.1, parameters=ps), ref_rmsprop()),
    (lambda ps: O.RMSProp(0.1, momentum=0.5, centered=True, parameters=ps), ref_rmsprop(mom=0.5, centered=True)),
    (lambda ps: O.Adagrad(0.1, parameters=ps, initial_accumulator_value=0.1), ref_adagrad(init=0.1)),
    (lambda ps: O.Adadelta(0.1, parameters=ps), ref_adadelta()),
    (lambda ps: O.Lamb(0.1, parameters=ps), ref_lamb()),
    (lambda ps: O.Lamb(0.1, lamb_weight_decay=0.1, beta1=0.8, parameters=ps), ref_lamb(wd=0.1, b1=0.8)),
]


@pytest.mark.parametrize("make,ref", CASES)
def test_update_matches_numpy(make, ref):
    got, _ = run(make)
    want = reference(ref)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_adam_eps_matches_paddle_formula():
    """Paddle: lr_t = lr*sqrt(1-b2^t)/(1-b1^t); p -= lr_t * m / (sqrt(v) + eps*sqrt(1-b2^t))."""
    got, _ = run(lambda ps: O.Adam(0.1, epsilon=0.5, parameters=ps), steps=2)
    p, m, v = P0[0].copy(), 0, 0
    for t in (1, 2):
        g = GRADS[t - 1][0]
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        lr_t = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        p = p - lr_t * m / (np.sqrt(v) + 0.5 * np.sqrt(1 - 0.999 ** t))
    np.testing.assert_allclose(got[0], p, rtol=1e-12)


@pytest.mark.parametrize("wd,fn", [(0.1, lambda p: 0.1 * p), (L2Decay(0.2), lambda p: 0.2 * p),
                                   (L1Decay(0.3), lambda p: 0.3 * np.sign(p))])
@pytest.mark.parametrize("make,ref", [(O.SGD, ref_sgd), (O.Adam, ref_adam()),
                                      (lambda lr, **k: O.Momentum(lr, momentum=0.8, **k), ref_momentum(0.8, False))])
def test_weight_decay(make, ref, wd, fn):
    got, _ = run(lambda ps: make(0.1, parameters=ps, weight_decay=wd))
    want = reference(ref, decay=[fn, fn])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_param_regularizer_overrides_optimizer_decay():
    ps = make_params()
    ps[1].regularizer = L1Decay(0.5)
    got, _ = run(lambda q: O.SGD(0.1, parameters=q, weight_decay=0.1), params=ps)
    want = reference(ref_sgd, decay=[lambda p: 0.1 * p, lambda p: 0.5 * np.sign(p)])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_param_groups_and_param_lr():
    ps = make_params()
    ps[0].optimize_attr["learning_rate"] = 2.0
    groups = [{"params": [ps[0]]}, {"params": [ps[1]], "learning_rate": 0.5, "weight_decay": 0.2, "beta1": 0.7}]
    got, _ = run(lambda q: O.Adam(0.1, parameters=groups), params=ps)
    w = reference(ref_adam(), lrs=(0.2, 0.05))[0]
    b = reference(ref_adam(b1=0.7), lrs=(0.2, 0.05), decay=[lambda p: 0 * p, lambda p: 0.2 * p])[1]
    np.testing.assert_allclose(got[0], w, rtol=1e-10)
    np.testing.assert_allclose(got[1], b, rtol=1e-10)


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    got, _ = run(lambda ps: O.AdamW(0.1, parameters=ps, weight_decay=0.05,
                                    apply_decay_param_fun=lambda n: n == "w", lr_ratio=lambda p: 0.5))
    want_w = reference(ref_adam(coeff=0.05), lrs=(0.05, 0.05))[0]
    want_b = reference(ref_adam(), lrs=(0.05, 0.05))[1]
    np.testing.assert_allclose(got[0], want_w, rtol=1e-10)
    np.testing.assert_allclose(got[1], want_b, rtol=1e-10)


def test_lamb_exclude_from_weight_decay():
    got, _ = run(lambda ps: O.Lamb(0.1, parameters=ps, exclude_from_weight_decay_fn=lambda p: p.name == "b"))
    # without decay (and always_adapt=False) Lamb does not apply the trust ratio, as Paddle
    def no_trust(p, g, st, t, lr):
        m = st["m"] = 0.9 * st.get("m", 0) + 0.1 * g
        v = st["v"] = 0.999 * st.get("v", 0) + 0.001 * g * g
        return p - lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-6)
    np.testing.assert_allclose(got[0], reference(ref_lamb())[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], reference(no_trust)[1], rtol=1e-10)


def test_scheduler_drives_lr():
    sched_fn = lambda s: 0.5 ** (s // 2)  # noqa: E731

    def make(ps):
        return O.SGD(O.lr.StepDecay(0.1, step_size=2, gamma=0.5), parameters=ps)
    ps = make_params()
    opt = make(ps)
    for s in range(5):
        for p, g in zip(ps, GRADS[s]):
            p.grad = g.copy()
        opt.step()
        opt._learning_rate.step()
    want = reference(ref_sgd, lr_sched=sched_fn)
    for a, b in zip([p.numpy() for p in ps], want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert opt.get_lr() == pytest.approx(0.1 * 0.5 ** 2)
    with pytest.raises(RuntimeError):
        opt.set_lr(0.3)


def test_set_lr_get_lr():
    opt = O.SGD(0.1, parameters=make_params())
    opt.set_lr(0.25)
    assert opt.get_lr() == 0.25


def test_state_dict_roundtrip_resumes_exactly():
    full, _ = run(lambda ps: O.Adam(O.lr.ExponentialDecay(0.1, 0.9), parameters=ps), steps=5)
    ps = make_params()
    opt = O.Adam(O.lr.ExponentialDecay(0.1, 0.9), parameters=ps)
    for s in range(3):
        for p, g in zip(ps, GRADS[s]):
            p.grad = g.copy()
        opt.step()
        opt._learning_rate.step()
    state = {k: (v.numpy().copy() if hasattr(v, "numpy") else v) for k, v in opt.state_dict().items()}
    assert set(state) == {f"{n}_{a}_0" for n in "wb" for a in ("moment1", "moment2", "beta1_pow_acc",
                                                                "beta2_pow_acc")} | {"LR_Scheduler"}
    params = [p.numpy().copy() for p in ps]
    ps2 = make_params()
    for p, a in zip(ps2, params):
        p.set_value(a)
    opt2 = O.Adam(O.lr.ExponentialDecay(0.1, 0.9), parameters=ps2)
    opt2.set_state_dict(state)  # before the accumulators exist: applied on first use
    assert opt2.get_lr() == pytest.approx(0.1 * 0.9 ** 3)
    for s in range(3, 5):
        for p, g in zip(ps2, GRADS[s]):
            p.grad = g.copy()
        opt2.step()
        opt2._learning_rate.step()
    # the uninterrupted run used a constant-per-step schedule too
    ps3 = make_params()
    opt3 = O.Adam(O.lr.ExponentialDecay(0.1, 0.9), parameters=ps3)
    for s in range(5):
        for p, g in zip(ps3, GRADS[s]):
            p.grad = g.copy()
        opt3.step()
        opt3._learning_rate.step()
    for a, b in zip(ps2, ps3):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_grad_clip_hook_runs_before_update_and_decay():
    seen = []

    def clip(params_grads):
        seen.append(len(params_grads))
        return [(p, g * 0.0 + 1.0) for p, g in params_grads]
    got, _ = run(lambda ps: O.SGD(0.1, parameters=ps, grad_clip=clip, weight_decay=0.5), steps=1)
    assert seen == [2]
    for a, p0 in zip(got, P0):
        np.testing.assert_allclose(a, p0 - 0.1 * (1.0 + 0.5 * p0), rtol=1e-12)


def test_minimize_runs_backward_once_and_clear_grad():
    w = oar.Parameter(np.array([1.0, 2.0]))
    opt = O.SGD(0.5, parameters=[w])
    loss = (w * w).sum()
    opt.minimize(loss)                      # backward + step
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])
    opt.clear_grad()
    np.testing.assert_allclose(w.grad.numpy(), [0.0, 0.0])   # set_to_zero=True by default
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None
    w2 = oar.Parameter(np.array([1.0, 2.0]))
    opt2 = O.SGD(0.5, parameters=[w2])
    loss = (w2 * w2).sum()
    loss.backward()                          # the Paddle idiom: backward, then minimize
    opt2.minimize(loss)
    np.testing.assert_allclose(w2.numpy(), [0.0, 0.0])


def test_params_without_grad_or_frozen_are_skipped():
    ps = make_params()
    ps[1].stop_gradient = True
    ps[0].grad = np.ones_like(P0[0])
    O.SGD(0.1, parameters=ps).step()
    np.testing.assert_allclose(ps[0].numpy(), P0[0] - 0.1)
    np.testing.assert_allclose(ps[1].numpy(), P0[1])


def test_float32_params_stay_float32():
    p = oar.Parameter(np.ones((2, 2), np.float32))
    p.grad = np.ones((2, 2), np.float32)
    for cls in (O.SGD, O.Adam, O.Lamb, O.RMSProp, O.Adagrad, O.Adadelta, O.Adamax, O.Momentum, O.AdamW):
        cls(0.1, parameters=[p]).step()
        assert p.numpy().dtype == np.float32


def test_errors():
    with pytest.raises(ValueError, match="parameters must be given"):
        O.SGD(0.1).step()
    with pytest.raises(TypeError, match="learning_rate"):
        O.SGD("fast", parameters=make_params())
    with pytest.raises(ValueError, match="unknown option"):
        O.Adam(0.1, parameters=[{"params": make_params(), "betaa1": 0.3}])


def test_update_ops_are_registered():
    from oar.ops.registry import REGISTRY
    for n in ("sgd_update", "momentum_update", "adam_update", "adamax_update", "rmsprop_update", "adagrad_update",
              "adadelta_update", "lamb_update"):
        assert n in REGISTRY
    ps = make_params()
    opt = O.Adam(0.1, parameters=ps)
    g = oar.to_tensor(np.ones((3, 4)))
    op, inputs, attrs, targets = opt._update_spec(ps[0], g, oar.to_tensor(0.1, dtype="float64"))
    assert op.name == "adam_update" and len(inputs) == 7 and targets[0] is ps[0]
    assert [t.name for t in targets[1:]] == ["w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0", "w_beta2_pow_acc_0"]
    assert attrs == {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}


def test_set_lr_changes_the_next_updates():
    ps = make_params()
    opt = O.Momentum(0.1, momentum=0.8, parameters=ps)
    ref_ps, states = [a.copy() for a in P0], [{}, {}]
    upd = ref_momentum(0.8, False)
    for s, lr in enumerate([0.1, 0.1, 0.02, 0.02, 0.5]):
        opt.set_lr(lr)
        assert opt.get_lr() == lr
        for p, g in zip(ps, GRADS[s]):
            p.grad = g.copy()
        opt.step()
        ref_ps = [upd(p, g, st, s + 1, lr) for p, g, st in zip(ref_ps, GRADS[s], states)]
    for p, want in zip(ps, ref_ps):
        np.testing.assert_allclose(p.numpy(), want, rtol=1e-12)


def test_groups_with_l1_l2_decay_and_param_attr_lr_from_a_layer():
    """Groups carry their own weight_decay (L1Decay / L2Decay / float); ParamAttr(learning_rate) scales a
    parameter's rate on top of its group's."""
    fc = oar.nn.Linear(4, 3, weight_attr=oar.ParamAttr(learning_rate=0.5))
    fc.to(dtype="float64")
    w0, b0 = fc.weight.numpy().copy(), fc.bias.numpy().copy()
    opt = O.SGD(0.1, parameters=[{"params": [fc.weight], "weight_decay": L1Decay(0.3)},
                                 {"params": [fc.bias], "weight_decay": L2Decay(0.2), "learning_rate": 2.0}])
    gw, gb = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    for _ in range(3):
        fc.weight.grad, fc.bias.grad = gw.copy(), gb.copy()
        opt.step()
        w0 = w0 - 0.1 * 0.5 * (gw + 0.3 * np.sign(w0))
        b0 = b0 - 0.1 * 2.0 * (gb + 0.2 * b0)
    np.testing.assert_allclose(fc.weight.numpy(), w0, rtol=1e-12)
    np.testing.assert_allclose(fc.bias.numpy(), b0, rtol=1e-12)
    with pytest.raises(ValueError, match="more than one parameter group"):
        O.SGD(0.1, parameters=[{"params": [fc.weight]}, {"params": [fc.weight]}])


@pytest.mark.parametrize("make", [lambda ps: O.Momentum(0.1, parameters=ps, use_nesterov=True),
                                  lambda ps: O.AdamW(0.1, parameters=ps), lambda ps: O.Adamax(0.1, parameters=ps),
                                  lambda ps: O.RMSProp(0.1, centered=True, momentum=0.3, parameters=ps),
                                  lambda ps: O.Adagrad(0.1, parameters=ps), lambda ps: O.Adadelta(0.1, parameters=ps),
                                  lambda ps: O.Lamb(0.1, parameters=ps)])
def test_state_dict_through_save_load_resumes_every_optimizer(make, tmp_path):
    """3 steps, save params + optimizer state with oar.save, rebuild, load, 2 more steps == 5 straight steps."""
    straight, _ = run(make, steps=5)
    ps = make_params()
    opt = make(ps)
    for s in range(3):
        for p, g in zip(ps, GRADS[s]):
            p.grad = g.copy()
        opt.step()
    oar.save({"opt": opt.state_dict(), "params": {p.name: p for p in ps}}, str(tmp_path / "ckpt.pdopt"))
    loaded = oar.load(str(tmp_path / "ckpt.pdopt"))
    ps2 = make_params()
    for p in ps2:
        p.set_value(loaded["params"][p.name])
    opt2 = make(ps2)
    opt2.set_state_dict(loaded["opt"])
    for s in range(3, 5):
        for p, g in zip(ps2, GRADS[s]):
            p.grad = g.copy()
        opt2.step()
    for p, want in zip(ps2, straight):
        np.testing.assert_allclose(p.numpy(), want, rtol=1e-12)


def test_adam_moments_keep_their_dtype_with_low_precision_gradients():
    from oar.optimizer.update_ops import _adam
    p, m = np.ones(4, "float32"), np.zeros(4, "float32")
    out = _adam(p, np.ones(4, "float16"), m, m.copy(), np.array([0.9], "float32"), np.array([0.999], "float32"),
                np.array(0.1, "float32"))
    assert [o.dtype for o in out] == [np.float32] * 5
