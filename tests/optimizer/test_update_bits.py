"""The eager and lazy updates of SGD, Momentum, Adam and AdamW equal, bit for bit, a plain NumPy reference written
with the same float operations in the same order (Paddle's formulas), over several steps, in float64 and float32:
the kernels' in-place rewrites (fewer temporaries, fewer Python calls) must not change one rounding."""
import numpy as np
import pytest

import oar
from oar import optimizer as O

RNG = np.random.default_rng(7)
SHAPES = [(6, 5), (5,)]
STEPS = 5


def ref_sgd(lr):
    def f(p, g, st, dt):
        return p - np.asarray(lr, dt) * g
    return f


def ref_momentum(lr, mu, nesterov=False, rescale=1.0):
    def f(p, g, st, dt):
        if rescale != 1.0:
            g = g * rescale
        v = st["v"] = st.get("v", np.zeros_like(p)) * mu + g
        return p - np.asarray(lr, dt) * (v * mu + g if nesterov else v)
    return f


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-8, coeff=0.0):
    def f(p, g, st, dt):
        pow_dt = np.float64 if dt == np.float64 else np.float32
        b1p = st.get("b1p", np.asarray([b1], pow_dt))
        b2p = st.get("b2p", np.asarray([b2], pow_dt))
        rate = float(np.asarray(lr, dt))  # the lr operand is a 0-D array of the parameter's dtype
        if coeff:
            p = p * (1.0 - rate * coeff)
        c2 = (1.0 - float(b2p[0])) ** 0.5
        lr_t = rate * c2 / (1.0 - float(b1p[0]))
        m = st["m"] = st.get("m", np.zeros_like(p)) * b1 + g * (1.0 - b1)
        v = st["v"] = st.get("v", np.zeros_like(p)) * b2 + (g * g) * (1.0 - b2)
        st["b1p"], st["b2p"] = b1p * b1, b2p * b2
        return p - (m / (np.sqrt(v) + eps * c2)) * lr_t
    return f


CASES = {
    "sgd": (lambda ps: O.SGD(0.1, parameters=ps), ref_sgd(0.1)),
    "momentum": (lambda ps: O.Momentum(0.1, momentum=0.8, parameters=ps), ref_momentum(0.1, 0.8)),
    "nesterov": (lambda ps: O.Momentum(0.1, momentum=0.8, parameters=ps, use_nesterov=True, rescale_grad=0.5),
                 ref_momentum(0.1, 0.8, True, 0.5)),
    "adam": (lambda ps: O.Adam(0.01, parameters=ps), ref_adam(0.01)),
    "adam_hyper": (lambda ps: O.Adam(0.01, beta1=0.8, beta2=0.9, epsilon=1e-3, parameters=ps),
                   ref_adam(0.01, 0.8, 0.9, 1e-3)),
    "adamw": (lambda ps: O.AdamW(0.01, parameters=ps, weight_decay=0.05), ref_adam(0.01, coeff=0.05)),
}


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_update_is_bitwise_the_reference(name, dtype, lazy):
    make, ref = CASES[name]
    dt = np.dtype(dtype)
    p0 = [RNG.standard_normal(s).astype(dt) for s in SHAPES]
    grads = [[RNG.standard_normal(s).astype(dt) for s in SHAPES] for _ in range(STEPS)]
    ps = [oar.Parameter(a.copy()) for a in p0]
    opt = make(ps)
    want, states = [a.copy() for a in p0], [{} for _ in p0]
    for s in range(STEPS):
        for p, g in zip(ps, grads[s]):
            p.grad = g.copy()
        if lazy:
            with oar.lazy():
                opt.step()
                opt.clear_grad()
        else:
            opt.step()
            opt.clear_grad()
        want = [ref(w, g, st, dt) for w, g, st in zip(want, grads[s], states)]
        for p, w in zip(ps, want):
            assert p.numpy().dtype == dt
            np.testing.assert_array_equal(p.numpy(), w, err_msg=f"{name} step {s + 1}")
    if name.startswith("adam"):  # the moments too, bit for bit
        for p, st in zip(ps, states):
            m1, m2 = opt._acc[id(p)][:2]
            np.testing.assert_array_equal(m1.numpy(), st["m"])
            np.testing.assert_array_equal(m2.numpy(), st["v"])


def test_lazy_learning_rate_follows_set_lr():
    """Lazy steps reuse the last step's learning-rate tensor only while the rate is unchanged."""
    p, q = oar.Parameter(np.ones(3)), oar.Parameter(np.ones(3))
    lazy_opt, eager_opt = O.SGD(0.5, parameters=[p]), O.SGD(0.5, parameters=[q])
    for lr in (0.5, 0.5, 0.25, 0.125, 0.125):
        lazy_opt.set_lr(lr)
        eager_opt.set_lr(lr)
        p.grad, q.grad = np.ones(3), np.ones(3)
        with oar.lazy():
            lazy_opt.step()
        eager_opt.step()
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    np.testing.assert_array_equal(p.numpy(), 1.0 - 1.5)


def test_momentum_with_a_gradient_wider_than_the_parameter():
    """A float32 gradient on a float16 parameter: the velocity and the step are computed in float32 (as NumPy
    promotes them) and only the results are stored as float16."""
    rng = np.random.default_rng(0)
    p0, g = rng.standard_normal(64).astype(np.float16), rng.standard_normal(64).astype(np.float32) * 3
    p = oar.Parameter(p0.copy())
    opt = O.Momentum(0.1, momentum=0.9, parameters=[p], use_nesterov=True)
    want, v = p0.copy(), np.zeros(64, np.float16)
    for _ in range(3):
        p.grad = g.copy()
        opt.step()
        opt.clear_grad()
        v32 = 0.9 * v + g
        want = (want - np.asarray(0.1, np.float16) * (g + 0.9 * v32)).astype(np.float16)
        v = v32.astype(np.float16)
        np.testing.assert_array_equal(p.numpy(), want)
    np.testing.assert_array_equal(opt._acc[id(p)][0].numpy(), v)
