"""Gradient clipping through the optimizer's grad_clip hook, against NumPy."""
import numpy as np
import pytest

import oar
from oar.nn import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

G = [np.array([3.0, -4.0, 0.5]), np.array([[2.0, -0.1], [7.0, 1.0]])]


def applied(clip, need_clip=(True, True)):
    ps = [oar.Parameter(np.zeros_like(g)) for g in G]
    for p, g, nc in zip(ps, G, need_clip):
        p.grad = g.copy()
        p.need_clip = nc
    oar.optimizer.SGD(learning_rate=1.0, parameters=ps, grad_clip=clip).step()
    return [-p.numpy() for p in ps]


def test_by_value():
    got = applied(ClipGradByValue(max=1.0))
    for a, g in zip(got, G):
        np.testing.assert_allclose(a, np.clip(g, -1, 1))
    got = applied(ClipGradByValue(min=-0.5, max=2.0), need_clip=(True, False))
    np.testing.assert_allclose(got[0], np.clip(G[0], -0.5, 2.0))
    np.testing.assert_allclose(got[1], G[1])
    with pytest.raises(ValueError):
        ClipGradByValue(max=1.0, min=2.0)


def test_by_norm():
    got = applied(ClipGradByNorm(clip_norm=2.0))
    for a, g in zip(got, G):
        np.testing.assert_allclose(a, g * 2.0 / max(np.linalg.norm(g), 2.0))


def test_by_global_norm():
    gn = np.sqrt(sum((g ** 2).sum() for g in G))
    got = applied(ClipGradByGlobalNorm(clip_norm=1.0))
    for a, g in zip(got, G):
        np.testing.assert_allclose(a, g / gn)
    got = applied(ClipGradByGlobalNorm(clip_norm=100.0))   # under the norm: unchanged
    for a, g in zip(got, G):
        np.testing.assert_allclose(a, g)
    got = applied(ClipGradByGlobalNorm(clip_norm=1.0), need_clip=(False, True))
    np.testing.assert_allclose(got[0], G[0])
    np.testing.assert_allclose(got[1], G[1] / np.linalg.norm(G[1]))
