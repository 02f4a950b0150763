"""Random creation ops: shapes, dtypes, ranges, rough statistics, and reproducibility under `oar.seed`."""
import numpy as np
import pytest

import oar

CALLS = {
    "rand": lambda: oar.rand([200, 50]),
    "randn": lambda: oar.randn([200, 50]),
    "standard_normal": lambda: oar.standard_normal([200, 50], dtype="float64"),
    "uniform": lambda: oar.uniform([200, 50], min=2.0, max=5.0),
    "normal": lambda: oar.normal(1.0, 2.0, [200, 50]),
    "normal_tensor": lambda: oar.normal(oar.full([200, 50], 3.0), oar.full([200, 50], 0.5)),
    "randint": lambda: oar.randint(-3, 7, [200, 50]),
    "randperm": lambda: oar.randperm(1000),
    "bernoulli": lambda: oar.bernoulli(oar.full([200, 50], 0.3)),
    "multinomial": lambda: oar.multinomial(oar.to_tensor([[0.1, 0.9], [0.7, 0.3]]), 500, replacement=True),
    "poisson": lambda: oar.poisson(oar.full([200, 50], 4.0)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_seed_reproducible(name):
    oar.seed(123)
    a = CALLS[name]().numpy().copy()
    b = CALLS[name]().numpy().copy()
    oar.seed(123)
    c = CALLS[name]().numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b) or a.size < 2


def test_distributions():
    oar.seed(0)
    u = oar.uniform([200, 50], min=2.0, max=5.0).numpy()
    assert u.dtype == np.float32 and u.min() >= 2.0 and u.max() < 5.0 and abs(u.mean() - 3.5) < 0.05
    n = oar.normal(1.0, 2.0, [200, 50]).numpy()
    assert abs(n.mean() - 1.0) < 0.1 and abs(n.std() - 2.0) < 0.1
    assert oar.standard_normal([3], dtype="float64").dtype == oar.float64
    nt = oar.normal(oar.full([200, 50], 3.0), oar.full([200, 50], 0.5)).numpy()
    assert abs(nt.mean() - 3.0) < 0.05 and abs(nt.std() - 0.5) < 0.05
    r = oar.randint(-3, 7, [200, 50])
    assert r.dtype == oar.int64 and r.numpy().min() == -3 and r.numpy().max() == 6
    assert oar.randint(5, shape=[4]).numpy().max() < 5
    assert sorted(oar.randperm(10).tolist()) == list(range(10))
    b = oar.bernoulli(oar.full([200, 50], 0.3)).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.03
    m = oar.multinomial(oar.to_tensor([[0.1, 0.9], [0.7, 0.3]]), 2000, replacement=True).numpy()
    assert m.shape == (2, 2000) and abs(m[0].mean() - 0.9) < 0.05 and abs(m[1].mean() - 0.3) < 0.05
    w = oar.multinomial(oar.to_tensor([1.0, 1.0, 1.0, 1.0]), 4).numpy()
    assert sorted(w.tolist()) == [0, 1, 2, 3]  # without replacement: all distinct
    assert oar.rand([2], dtype="float64").dtype == oar.float64


def test_random_errors():
    with pytest.raises(ValueError, match="high"):
        oar.randint(5, 5)
    with pytest.raises(ValueError, match="without replacement"):
        oar.multinomial(oar.to_tensor([0.5, 0.5]), 3)
    with pytest.raises(TypeError, match="floating"):
        oar.rand([2], dtype="int32")


def test_inplace_random_fill_keeps_dtype_and_shape():
    x = oar.zeros([3, 4], dtype="float64")
    x.normal_(0.0, 1.0)
    assert x.dtype == oar.float64 and x.shape == [3, 4] and x.numpy().std() > 0


# ---- NumPy reference: under oar.seed(n) each kernel draws exactly what NumPy's Generator(n) draws ----------------
def _gen(n=5):
    return np.random.default_rng(n)


REFERENCE = {
    "rand": (lambda: oar.rand([3, 4]), lambda g: g.uniform(0.0, 1.0, (3, 4)).astype(np.float32)),
    "uniform": (lambda: oar.uniform([3], "float64", min=-2.0, max=2.0), lambda g: g.uniform(-2.0, 2.0, (3,))),
    "randn": (lambda: oar.randn([2, 3]), lambda g: g.normal(0.0, 1.0, (2, 3)).astype(np.float32)),
    "normal": (lambda: oar.normal(1.0, 3.0, [4]), lambda g: g.normal(1.0, 3.0, (4,)).astype(np.float32)),
    "randint": (lambda: oar.randint(2, 9, [5]), lambda g: g.integers(2, 9, (5,)).astype(np.int64)),
    "randperm": (lambda: oar.randperm(6), lambda g: g.permutation(6).astype(np.int64)),
    "bernoulli": (lambda: oar.bernoulli(oar.full([6], 0.5)),
                  lambda g: (g.random((6,)) < np.float32(0.5)).astype(np.float32)),
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_kernels_draw_what_numpy_draws(name):
    fn, ref = REFERENCE[name]
    oar.seed(5)
    got = fn().numpy()
    want = ref(_gen(5))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_infer_meta_of_random_ops(name):
    """infer_meta of every op a random call runs agrees with the real output (shape and dtype)."""
    from oar.core import dtype as D
    from oar.ops import registry
    calls = []
    saved = {op: op.impl for op in registry.REGISTRY.values() if op.random}
    for op in saved:
        op.impl = (lambda _op, _impl: lambda *a, **k: calls.append((_op, a, k, _impl(*a, **k))) or calls[-1][3])(
            op, op.impl)
    try:
        CALLS[name]()
    finally:
        for op, impl in saved.items():
            op.impl = impl
    assert calls
    for op, arrays, attrs, out in calls:
        metas = [(list(a.shape), D.convert_dtype(a.dtype)) for a in arrays]
        (shape, dtype), = registry.infer_meta(op, metas, attrs)
        assert shape == list(out.shape) and dtype is D.convert_dtype(out.dtype), op.name
