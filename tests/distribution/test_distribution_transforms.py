"""Transforms: inverse(forward(x)) == x, forward_log_det_jacobian == log|det dy/dx| by finite differences,
shapes, and TransformedDistribution / Independent densities against SciPy."""
import numpy as np
import pytest
from scipy import stats

import oar
from oar import distribution as D


def t(a):
    return oar.to_tensor(np.asarray(a, np.float64))


ELEMENTWISE = {
    "exp": (D.ExpTransform(), np.array([-1.0, 0.3, 2.0])),
    "affine": (D.AffineTransform(t(0.5), t(-2.0)), np.array([-1.0, 0.3, 2.0])),
    "power": (D.PowerTransform(t(3.0)), np.array([0.2, 1.3, 2.0])),
    "sigmoid": (D.SigmoidTransform(), np.array([-3.0, 0.3, 2.0])),
    "tanh": (D.TanhTransform(), np.array([-1.5, 0.3, 2.0])),
    "chain": (D.ChainTransform([D.AffineTransform(t(0.1), t(0.5)), D.TanhTransform()]), np.array([-1.5, 0.3, 2.0])),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_round_trip_and_log_det(name):
    tr, x = ELEMENTWISE[name]
    y = tr.forward(t(x))
    np.testing.assert_allclose(tr.inverse(y).numpy(), x, rtol=1e-10)
    eps = 1e-6
    slope = (tr.forward(t(x + eps)).numpy() - tr.forward(t(x - eps)).numpy()) / (2 * eps)
    np.testing.assert_allclose(tr.forward_log_det_jacobian(t(x)).numpy(), np.log(np.abs(slope)), rtol=1e-6)
    np.testing.assert_allclose(tr.inverse_log_det_jacobian(y).numpy(), -np.log(np.abs(slope)), rtol=1e-6)
    assert tr(t(x)).numpy().tolist() == y.numpy().tolist()


def test_stick_breaking():
    tr = D.StickBreakingTransform()
    x = np.array([0.3, -1.2, 0.8])
    y = tr.forward(t(x)).numpy()
    assert y.shape == (4,) and np.all(y > 0)
    np.testing.assert_allclose(y.sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(tr.inverse(t(y)).numpy(), x, rtol=1e-9)
    eps, jac = 1e-6, np.zeros((3, 3))
    for i in range(3):
        d = np.zeros(3)
        d[i] = eps
        jac[:, i] = (tr.forward(t(x + d)).numpy()[:3] - tr.forward(t(x - d)).numpy()[:3]) / (2 * eps)
    np.testing.assert_allclose(tr.forward_log_det_jacobian(t(x)).item(), np.log(abs(np.linalg.det(jac))), rtol=1e-6)
    assert tr.forward_shape((5, 3)) == (5, 4) and tr.inverse_shape((5, 4)) == (5, 3)


def test_abs_softmax_reshape_stack_independent():
    a = D.AbsTransform()
    lo, hi = a.inverse(t([2.0]))
    assert lo.numpy().tolist() == [-2.0] and hi.numpy().tolist() == [2.0]
    with pytest.raises(NotImplementedError, match="bijection"):
        a.forward_log_det_jacobian(t([1.0]))
    s = D.SoftmaxTransform().forward(t([1.0, 2.0, 3.0])).numpy()
    np.testing.assert_allclose(s, np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())
    r = D.ReshapeTransform((2, 3), (6,))
    assert r.forward(oar.ones([4, 2, 3])).shape == [4, 6] and r.inverse(oar.ones([4, 6])).shape == [4, 2, 3]
    assert r.forward_log_det_jacobian(oar.ones([4, 2, 3])).shape == [4]
    st = D.StackTransform([D.ExpTransform(), D.AffineTransform(t(1.0), t(3.0))], axis=1)
    x = np.array([[0.5, 1.0], [-1.0, 2.0]])
    np.testing.assert_allclose(st.forward(t(x)).numpy(), np.stack([np.exp(x[:, 0]), 1 + 3 * x[:, 1]], 1))
    np.testing.assert_allclose(st.inverse(st.forward(t(x))).numpy(), x, rtol=1e-12)
    it = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(it.forward_log_det_jacobian(t(x)).numpy(), x.sum(1))


def test_transformed_distribution_densities():
    base = D.Normal(t([0.2, -0.3]), t([1.1, 0.6]))
    affine = D.TransformedDistribution(base, [D.AffineTransform(t(1.0), t(2.5))])
    y = np.array([0.4, 2.0])
    np.testing.assert_allclose(affine.log_prob(t(y)).numpy(),
                               stats.norm(1.0 + 2.5 * np.array([0.2, -0.3]), 2.5 * np.array([1.1, 0.6])).logpdf(y),
                               rtol=1e-10)
    logit_normal = D.SigmoidTransform()(D.Normal(t(0.3), t(0.8)))
    u = 0.35
    want = stats.norm(0.3, 0.8).logpdf(np.log(u / (1 - u))) - np.log(u * (1 - u))
    np.testing.assert_allclose(logit_normal.log_prob(t(u)).item(), want, rtol=1e-10)
    oar.seed(0)
    s = logit_normal.sample([3000]).numpy()
    assert s.shape == (3000,) and s.min() > 0 and s.max() < 1
    # an event-level transform over an Independent base: the Jacobian sums over the event
    simplex = D.TransformedDistribution(D.Independent(D.Normal(t([0.0, 0.0]), t([1.0, 1.0])), 1),
                                        [D.StickBreakingTransform()])
    assert simplex.event_shape == (3,) and simplex.batch_shape == ()
    yv = simplex.sample([2]).numpy()
    x = D.StickBreakingTransform().inverse(t(yv))
    want = stats.norm.logpdf(x.numpy()).sum(-1) - D.StickBreakingTransform().forward_log_det_jacobian(x).numpy()
    np.testing.assert_allclose(simplex.log_prob(t(yv)).numpy(), want, rtol=1e-10)


def test_rsample_flows_through_transforms():
    loc = oar.to_tensor(np.array([0.5]), stop_gradient=False)
    d = D.TransformedDistribution(D.Normal(loc, t([1.0])), [D.ExpTransform()])
    oar.seed(2)
    s = d.rsample([4])
    (g,) = oar.grad(s.sum(), [loc])
    np.testing.assert_allclose(g.numpy(), [s.numpy().sum()], rtol=1e-12)  # d exp(loc + e) / d loc = the sample


def test_affine_log_det_has_the_parameters_shape_as_in_paddle():
    # Paddle 3.3.1: log|scale| with the parameters' shape, not broadcast against x
    tr = D.AffineTransform(t(1.0), t(2.0))
    assert tr.forward_log_det_jacobian(t([1.0, 2.0, 3.0])).shape == []
    assert tr.inverse_log_det_jacobian(t([1.0, 2.0, 3.0])).shape == []
    assert D.AffineTransform(t([1.0, 2.0, 3.0]), t([2.0, 3.0, 4.0])).forward_log_det_jacobian(t(1.0)).shape == [3]
    # ... while a composition still sums one log|scale| per element of an event
    ind = D.IndependentTransform(tr, 1)
    np.testing.assert_allclose(ind.forward_log_det_jacobian(t([1.0, 2.0, 3.0])).item(), 3 * np.log(2.0), rtol=1e-6)
