"""paddle.distribution against scipy.stats: log_prob, entropy, mean, variance (float64), sample moments,
reparameterized gradients by finite differences, KL divergences by numerical integration, static == eager."""
import numpy as np
import pytest
from scipy import integrate, special, stats

import oar
from oar import distribution as D


def t(a):
    return oar.to_tensor(np.asarray(a, np.float64))


# name: (oar distribution, scipy frozen distribution, points to evaluate, support is discrete)
CASES = {
    "Normal": (lambda: D.Normal(t([0.5, -1.0]), t([1.5, 0.7])), stats.norm([0.5, -1.0], [1.5, 0.7]),
               [[0.3, -2.0], [2.0, 0.1]], False),
    "Uniform": (lambda: D.Uniform(t([0.0, -1.0]), t([2.0, 3.0])), stats.uniform([0.0, -1.0], [2.0, 4.0]),
                [[0.3, -0.5], [1.9, 2.9]], False),
    "Exponential": (lambda: D.Exponential(t([0.5, 2.0])), stats.expon(scale=[2.0, 0.5]), [[0.3, 1.0], [4.0, 0.1]],
                    False),
    "Gamma": (lambda: D.Gamma(t([2.0, 0.7]), t([1.5, 3.0])), stats.gamma([2.0, 0.7], scale=[1 / 1.5, 1 / 3.0]),
              [[0.3, 1.0], [4.0, 0.1]], False),
    "Beta": (lambda: D.Beta(t([2.0, 0.7]), t([1.5, 3.0])), stats.beta([2.0, 0.7], [1.5, 3.0]),
             [[0.3, 0.6], [0.9, 0.05]], False),
    "Laplace": (lambda: D.Laplace(t([0.5, -1.0]), t([1.5, 0.7])), stats.laplace([0.5, -1.0], [1.5, 0.7]),
                [[0.3, -2.0], [2.0, 0.1]], False),
    "Gumbel": (lambda: D.Gumbel(t([0.5, -1.0]), t([1.5, 0.7])), stats.gumbel_r([0.5, -1.0], [1.5, 0.7]),
               [[0.3, -2.0], [2.0, 0.1]], False),
    "Cauchy": (lambda: D.Cauchy(t([0.5, -1.0]), t([1.5, 0.7])), stats.cauchy([0.5, -1.0], [1.5, 0.7]),
               [[0.3, -2.0], [2.0, 0.1]], False),
    "StudentT": (lambda: D.StudentT(t([3.0, 5.5]), t([0.5, -1.0]), t([1.5, 0.7])),
                 stats.t([3.0, 5.5], [0.5, -1.0], [1.5, 0.7]), [[0.3, -2.0], [2.0, 0.1]], False),
    "LogNormal": (lambda: D.LogNormal(t([0.5, -1.0]), t([0.5, 0.7])),
                  stats.lognorm([0.5, 0.7], scale=np.exp([0.5, -1.0])), [[0.3, 2.0], [2.0, 0.1]], False),
    "Bernoulli": (lambda: D.Bernoulli(t([0.3, 0.8])), stats.bernoulli([0.3, 0.8]), [[0.0, 1.0], [1.0, 0.0]], True),
    "Binomial": (lambda: D.Binomial(t([10.0, 4.0]), t([0.3, 0.8])), stats.binom([10, 4], [0.3, 0.8]),
                 [[0.0, 3.0], [7.0, 4.0]], True),
    "Poisson": (lambda: D.Poisson(t([0.5, 4.0])), stats.poisson([0.5, 4.0]), [[0.0, 3.0], [2.0, 7.0]], True),
}


def _lp(frozen, x, discrete):
    return frozen.logpmf(x) if discrete else frozen.logpdf(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_scipy(name):
    make, ref, points, discrete = CASES[name]
    d = make()
    for p in points:
        np.testing.assert_allclose(d.log_prob(t(p)).numpy(), _lp(ref, np.asarray(p), discrete), rtol=1e-9,
                                   atol=1e-12, err_msg=f"{name}.log_prob")
        np.testing.assert_allclose(d.prob(t(p)).numpy(), np.exp(_lp(ref, np.asarray(p), discrete)), rtol=1e-9)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-7, err_msg=f"{name}.entropy")
    if name != "Cauchy":
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-9, err_msg=f"{name}.mean")
        np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-9, err_msg=f"{name}.variance")
    else:
        with pytest.raises(ValueError, match="no mean"):
            _ = d.mean


@pytest.mark.parametrize("name", sorted(set(CASES) - {"Cauchy", "StudentT"}))
def test_sample_moments(name):
    make, ref, _, _ = CASES[name]
    oar.seed(3)
    s = make().sample([20000])
    assert s.shape == [20000, 2] and s.dtype == oar.float64
    x = s.numpy()
    np.testing.assert_allclose(x.mean(0), ref.mean(), atol=5 * np.sqrt(ref.var() / 20000).max() + 1e-3)
    np.testing.assert_allclose(x.var(0), ref.var(), rtol=0.08, atol=1e-3)


def test_cauchy_and_student_t_sample_quantiles():
    oar.seed(5)
    for d, ref in [(D.Cauchy(0.5, 1.5), stats.cauchy(0.5, 1.5)), (D.StudentT(3.0, 0.5, 1.5), stats.t(3.0, 0.5, 1.5))]:
        x = d.sample([20000]).numpy()
        np.testing.assert_allclose(np.quantile(x, [0.25, 0.5, 0.75]), ref.ppf([0.25, 0.5, 0.75]), atol=0.08)


def test_sample_is_reproducible_and_shaped():
    d = D.Normal(t([[0.0], [1.0]]), t([1.0, 2.0, 3.0]))
    assert d.batch_shape == (2, 3)
    oar.seed(1)
    a = d.sample([4]).numpy()
    oar.seed(1)
    b = d.sample([4]).numpy()
    assert a.shape == (4, 2, 3) and np.array_equal(a, b)


def test_default_dtype_from_python_numbers():
    d = D.Normal(0.0, 1.0)
    assert d.loc.dtype == oar.float32 and d.sample([3]).dtype == oar.float32
    assert d.log_prob(oar.to_tensor([0.0])).dtype == oar.float32


# ---- multivariate --------------------------------------------------------------------------------------------------

def test_dirichlet():
    c = [1.5, 2.0, 0.7]
    d, ref = D.Dirichlet(t(c)), stats.dirichlet(c)
    x = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), ref.logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-12)
    oar.seed(0)
    s = d.sample([5000]).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(s.mean(0), ref.mean(), atol=0.02)


def test_multinomial():
    p = np.array([0.2, 0.3, 0.5])
    d, ref = D.Multinomial(5, t(p)), stats.multinomial(5, p)
    for x in ([1, 1, 3], [0, 0, 5], [2, 3, 0]):
        np.testing.assert_allclose(d.log_prob(t(x)).numpy(), ref.logpmf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    oar.seed(0)
    s = d.sample([4000]).numpy()
    assert s.shape == (4000, 3) and (s.sum(-1) == 5).all()
    np.testing.assert_allclose(s.mean(0), ref.mean(), atol=0.08)


def test_categorical_follows_paddle():
    logits = np.array([[0.2, 0.5, 1.3], [1.0, 1.0, 2.0]])
    d = D.Categorical(t(logits))
    probs = logits / logits.sum(-1, keepdims=True)  # Paddle: probs/log_prob normalize by the sum
    np.testing.assert_allclose(d.probs(oar.to_tensor([2, 0])).numpy(), [[probs[0, 2], probs[0, 0]],
                                                                        [probs[1, 2], probs[1, 0]]])
    np.testing.assert_allclose(d.log_prob(oar.to_tensor([[1], [2]])).numpy(), np.log([[probs[0, 1]], [probs[1, 2]]]))
    soft = special.softmax(logits, -1)  # ... while entropy, KL and sampling use softmax
    np.testing.assert_allclose(d.entropy().numpy(), stats.entropy(soft, axis=-1), rtol=1e-12)
    oar.seed(0)
    s = d.sample([6000]).numpy()
    assert s.shape == (6000, 2) and s.dtype == np.int64
    np.testing.assert_allclose([(s[:, 1] == k).mean() for k in range(3)], soft[1], atol=0.03)
    q = D.Categorical(t([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]))
    qs = special.softmax([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], -1)
    np.testing.assert_allclose(D.kl_divergence(d, q).numpy()[:, 0], (soft * np.log(soft / qs)).sum(-1), rtol=1e-12)


def test_geometric_follows_paddle():
    # Paddle 3.3.1 counts failures before the first success: pmf(0) = p, mean (1 - p) / p, cdf(2) = 1 - 0.7^3
    d = D.Geometric(t(0.3))
    np.testing.assert_allclose(d.pmf(0).item(), 0.3, rtol=1e-6)
    np.testing.assert_allclose(d.pmf(2).item(), 0.147, rtol=1e-6)
    np.testing.assert_allclose(d.log_pmf(3).item(), np.log(0.7 ** 3 * 0.3), rtol=1e-6)
    np.testing.assert_allclose(d.cdf(2).item(), 0.657, rtol=1e-6)
    ref = stats.geom(0.3, loc=-1)  # support 0, 1, 2, ...
    np.testing.assert_allclose([d.mean.item(), d.variance.item()], [ref.mean(), ref.var()])
    np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)
    oar.seed(0)
    s = d.sample([20000]).numpy()
    assert s.min() == 0 and np.all(s == np.round(s))
    np.testing.assert_allclose(s.mean(), ref.mean(), rtol=0.05)
    # the true KL (by summing the pmfs); Paddle 3.3.1 returns the Bernoulli KL 0.0823 here (docs/numerics.md)
    k = np.arange(400)
    pk, qk = 0.7 ** k * 0.3, 0.5 ** (k + 1)
    np.testing.assert_allclose(d.kl_divergence(D.Geometric(t(0.5))).item(), np.sum(pk * np.log(pk / qk)), rtol=1e-5)
    with pytest.raises(ValueError, match="probs"):
        D.Geometric(1.5)


# ---- gradients ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "StudentT", "Laplace", "Gumbel", "LogNormal", "Binomial"])
def test_log_prob_and_entropy_gradients(name):
    """d/dparams of log_prob + entropy by finite differences (float64)."""
    make, _, points, _ = CASES[name]
    base = make()
    params = {k: v for k, v in vars(base).items() if isinstance(v, oar.Tensor) and k in
              ("loc", "scale", "concentration", "rate", "alpha", "beta", "df", "probs")}
    x = t(points[0])

    def value(**over):
        d = make()
        for k, v in over.items():
            setattr(d, k, v)
            if name == "LogNormal":
                setattr(d._base, k, v)
        return d.log_prob(x).sum() + d.entropy().sum()

    for k, v in params.items():
        leaf = oar.to_tensor(v.numpy(), stop_gradient=False)
        (g,) = oar.grad(value(**{k: leaf}), [leaf])
        num = np.zeros(v.shape)
        for i in range(v.numpy().size):
            hi, lo = v.numpy().copy(), v.numpy().copy()
            hi.flat[i] += 1e-6
            lo.flat[i] -= 1e-6
            num.flat[i] = (value(**{k: t(hi)}).item() - value(**{k: t(lo)}).item()) / 2e-6
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-7, err_msg=f"{name}: d/d{k}")


@pytest.mark.parametrize("make", [lambda s: D.Normal(s, s * 2), lambda s: D.Exponential(s), lambda s: D.Laplace(s, s),
                                  lambda s: D.Gumbel(s, s), lambda s: D.Uniform(s, s * 3), lambda s: D.Cauchy(s, s),
                                  lambda s: D.LogNormal(s, s)])
def test_rsample_gradient_matches_finite_differences(make):
    """With the same random draw, d(sum of samples)/d(param) equals finite differences."""
    p = oar.to_tensor(np.array([0.7, 1.3]), stop_gradient=False)
    oar.seed(11)
    (g,) = oar.grad(make(p).rsample([5]).sum(), [p])
    num = []
    for i in range(2):
        vals = []
        for eps in (1e-6, -1e-6):
            q = np.array([0.7, 1.3])
            q[i] += eps
            oar.seed(11)
            vals.append(make(t(q)).rsample([5]).sum().item())
        num.append((vals[0] - vals[1]) / 2e-6)
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-5)


# ---- KL divergences ------------------------------------------------------------------------------------------------

def _kl_numeric(p, q, lo, hi):
    def f(x):
        lp = p.logpdf(x)
        return 0.0 if np.exp(lp) == 0 else np.exp(lp) * (lp - q.logpdf(x))
    return integrate.quad(f, lo, hi, limit=200)[0]


@pytest.mark.parametrize("pair", [
    (D.Normal(0.3, 1.2), D.Normal(-0.5, 0.8), stats.norm(0.3, 1.2), stats.norm(-0.5, 0.8), -np.inf, np.inf),
    (D.Exponential(1.5), D.Exponential(0.4), stats.expon(scale=1 / 1.5), stats.expon(scale=2.5), 0, np.inf),
    (D.Gamma(2.0, 1.5), D.Gamma(3.0, 0.7), stats.gamma(2.0, scale=1 / 1.5), stats.gamma(3.0, scale=1 / 0.7), 0,
     np.inf),
    (D.Beta(2.0, 1.5), D.Beta(0.9, 3.0), stats.beta(2.0, 1.5), stats.beta(0.9, 3.0), 0, 1),
    (D.Laplace(0.3, 1.2), D.Laplace(-0.5, 0.8), stats.laplace(0.3, 1.2), stats.laplace(-0.5, 0.8), -40, 40),
    (D.Gumbel(0.3, 1.2), D.Gumbel(-0.5, 0.8), stats.gumbel_r(0.3, 1.2), stats.gumbel_r(-0.5, 0.8), -np.inf, np.inf),
    (D.Cauchy(0.3, 1.2), D.Cauchy(-0.5, 0.8), stats.cauchy(0.3, 1.2), stats.cauchy(-0.5, 0.8), -np.inf, np.inf),
    (D.Uniform(0.2, 0.7), D.Uniform(0.0, 1.0), stats.uniform(0.2, 0.5), stats.uniform(0.0, 1.0), 0.2, 0.7),
    (D.LogNormal(0.3, 0.6), D.LogNormal(-0.2, 0.9), stats.lognorm(0.6, scale=np.exp(0.3)),
     stats.lognorm(0.9, scale=np.exp(-0.2)), 0, np.inf),
], ids=lambda v: type(v).__name__ if isinstance(v, D.Distribution) else "")
def test_kl_continuous(pair):
    p, q, sp, sq, lo, hi = pair
    np.testing.assert_allclose(D.kl_divergence(p, q).item(), _kl_numeric(sp, sq, lo, hi), rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(p.kl_divergence(q).item(), D.kl_divergence(p, q).item())


def _kl_discrete(p, q, ks):
    lp, lq = p.logpmf(ks), q.logpmf(ks)
    keep = lp > -np.inf
    return np.sum(np.exp(lp[keep]) * (lp[keep] - lq[keep]))


def test_kl_discrete():
    ks = np.arange(0, 200)
    cases = [(D.Poisson(t(2.5)), D.Poisson(t(4.0)), stats.poisson(2.5), stats.poisson(4.0)),
             (D.Binomial(t(8.0), t(0.3)), D.Binomial(t(8.0), t(0.6)), stats.binom(8, 0.3), stats.binom(8, 0.6)),
             (D.Bernoulli(t(0.3)), D.Bernoulli(t(0.6)), stats.bernoulli(0.3), stats.bernoulli(0.6)),
             (D.Geometric(t(0.3)), D.Geometric(t(0.6)), stats.geom(0.3), stats.geom(0.6))]
    for p, q, sp, sq in cases:
        np.testing.assert_allclose(D.kl_divergence(p, q).item(), _kl_discrete(sp, sq, ks), rtol=1e-9)


def test_kl_dirichlet_exponential_family_and_independent():
    a, b = t([1.5, 2.0, 0.7]), t([0.9, 1.1, 3.0])
    closed = D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)).item()
    from oar.distribution.kl import _kl_exponential_family
    np.testing.assert_allclose(_kl_exponential_family(D.Dirichlet(a), D.Dirichlet(b)).item(), closed, rtol=1e-10)
    np.testing.assert_allclose(_kl_exponential_family(D.Beta(t(2.0), t(1.5)), D.Beta(t(0.9), t(3.0))).item(),
                               D.kl_divergence(D.Beta(t(2.0), t(1.5)), D.Beta(t(0.9), t(3.0))).item(), rtol=1e-10)
    p = D.Independent(D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), 1)
    q = D.Independent(D.Normal(t([0.5, 0.0]), t([1.5, 1.0])), 1)
    parts = D.kl_divergence(D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), D.Normal(t([0.5, 0.0]), t([1.5, 1.0])))
    np.testing.assert_allclose(D.kl_divergence(p, q).item(), parts.numpy().sum(), rtol=1e-12)


def test_register_kl_dispatch_and_missing_pair():
    class Special(D.Normal):
        pass

    @D.register_kl(Special, D.Normal)
    def _kl(p, q):
        return oar.full([], 42.0)

    assert D.kl_divergence(Special(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), Special(0.0, 1.0)).item() == 0.0  # falls back to (Normal, Normal)
    with pytest.raises(NotImplementedError, match="register_kl"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))


# ---- static programs -----------------------------------------------------------------------------------------------

def test_log_prob_and_kl_in_to_static_equal_eager():
    def f(loc, scale, x):
        p, q = D.Normal(loc, scale), D.Normal(loc * 0.5, scale + 1.0)
        return p.log_prob(x) + D.kl_divergence(p, q) + D.Beta(scale, scale + 1.0).log_prob(x * 0.0 + 0.3)

    args = [t([0.2, -0.4]), t([1.1, 0.6]), t([0.0, 1.0])]
    spec = [oar.static.InputSpec([2], "float64")] * 3
    static = oar.jit.to_static(f, input_spec=spec)
    np.testing.assert_allclose(static(*args).numpy(), f(*args).numpy(), rtol=1e-12)
