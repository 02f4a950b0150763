"""paddle.sparse beyond the op table: formats against scipy.sparse, validation errors, gradients as sparse
tensors, layers, and the eager-only boundary."""
import numpy as np
import pytest
import scipy.sparse as ssp

import oar

SP = oar.sparse


def _dense(rng, shape, density=0.4):
    a = rng.standard_normal(shape)
    return a * (rng.random(shape) < density)


def test_csr_matches_scipy():
    rng = np.random.default_rng(0)
    a = _dense(rng, (5, 7))
    x = oar.to_tensor(a).to_sparse_csr()
    ref = ssp.csr_matrix(a)
    assert x.crows().numpy().tolist() == ref.indptr.tolist()
    assert x.cols().numpy().tolist() == ref.indices.tolist()
    np.testing.assert_allclose(x.values().numpy(), ref.data)
    np.testing.assert_allclose(x.to_dense().numpy(), a)


def test_coo_matches_scipy_and_round_trips():
    rng = np.random.default_rng(1)
    a = _dense(rng, (4, 6))
    x = oar.to_tensor(a).to_sparse_coo(2)
    ref = ssp.coo_matrix(a)
    assert x.indices().numpy().tolist() == [ref.row.tolist(), ref.col.tolist()]
    np.testing.assert_allclose(x.to_sparse_csr().to_sparse_coo().to_dense().numpy(), a)
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr() and x.nnz() == ref.nnz


def test_batched_csr_layout():
    rng = np.random.default_rng(2)
    a = _dense(rng, (2, 3, 4))
    x = oar.to_tensor(a).to_sparse_csr()
    crows = np.concatenate([ssp.csr_matrix(m).indptr for m in a])
    assert x.crows().numpy().tolist() == crows.tolist()
    np.testing.assert_allclose(x.to_dense().numpy(), a)
    y = SP.sparse_csr_tensor(x.crows(), x.cols(), x.values(), [2, 3, 4])
    np.testing.assert_allclose(y.to_dense().numpy(), a)


def test_sparse_dim_keeps_dense_rows():
    a = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    x = oar.to_tensor(a).to_sparse_coo(1)
    assert x.indices().numpy().tolist() == [[1, 2]] and x.values().shape == [2, 2]
    assert x.sparse_dim() == 1 and x.dense_dim() == 1


def test_matmul_large_against_scipy():
    rng = np.random.default_rng(3)
    a = _dense(rng, (30, 20), 0.1)
    b = rng.standard_normal((20, 5))
    got = SP.matmul(oar.to_tensor(a).to_sparse_csr(), oar.to_tensor(b)).numpy()
    np.testing.assert_allclose(got, ssp.csr_matrix(a) @ b, rtol=1e-12)


def test_grad_is_sparse_and_backward_seeds_values():
    v = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    x = SP.sparse_coo_tensor([[0, 1, 2], [2, 0, 1]], v, [3, 3])
    y = SP.square(x)
    y.backward()
    np.testing.assert_allclose(v.grad.numpy(), [2.0, 4.0, 6.0])
    g = x.grad
    assert isinstance(g, SP.SparseCooTensor) and g.values().numpy().tolist() == [2.0, 4.0, 6.0]


def test_gradient_reaches_dense_source():
    d = oar.to_tensor([[0.0, 2.0], [3.0, 0.0]], stop_gradient=False)
    out = SP.matmul(d.to_sparse_coo(2), oar.ones([2, 1]))
    out.sum().backward()
    assert d.grad.numpy().tolist() == [[0.0, 1.0], [1.0, 0.0]]  # only the stored entries carry gradient


def test_creation_errors_are_clear():
    with pytest.raises(ValueError, match="indices out of range"):
        SP.sparse_coo_tensor([[0, 3]], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="nnz = 2"):
        SP.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], [3])
    with pytest.raises(ValueError, match="crows must have 3 entries"):
        SP.sparse_csr_tensor([0, 1], [0], [1.0], [2, 2])
    with pytest.raises(ValueError, match="equal shapes"):
        SP.add(oar.ones([2, 2]).to_sparse_coo(2), oar.ones([2, 3]).to_sparse_coo(2))
    with pytest.raises(TypeError, match="sparse tensor"):
        SP.sin(oar.ones([2]))


def test_default_shape_and_repr():
    x = SP.sparse_coo_tensor([[0, 2], [1, 0]], [1.0, 2.0])
    assert x.shape == [3, 2]
    text = repr(x)
    assert text.startswith("Tensor(shape=[3, 2], dtype=paddle.float32") and "indices=[[0, 2]," in text
    assert "values=[1., 2.]" in text


def test_static_mode_says_eager_only():
    oar.enable_static()
    try:
        with pytest.raises(NotImplementedError, match="dynamic"):
            SP.sparse_coo_tensor([[0]], [1.0], [2])
    finally:
        oar.disable_static()


def test_layers():
    x = oar.to_tensor([[-1.0, 0.0, 2.0], [0.0, 3.0, -4.0]]).to_sparse_csr()
    assert SP.nn.ReLU()(x).to_dense().numpy().tolist() == [[0.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    s = SP.nn.Softmax()(x).to_dense().numpy()
    np.testing.assert_allclose(s.sum(1), [1.0, 1.0])
    assert s[0, 1] == 0.0
    bn = SP.nn.BatchNorm(3)
    v = SP.sparse_coo_tensor([[0, 0, 0], [0, 1, 2]], np.random.default_rng(0).standard_normal((3, 3)), [1, 3, 3])
    out = bn(v).values().numpy()
    np.testing.assert_allclose(out.mean(0), 0.0, atol=1e-6)


def test_dense_tensor_sparse_methods():
    t = oar.ones([2])
    assert not t.is_sparse() and t.is_dense() and t.to_dense() is t
