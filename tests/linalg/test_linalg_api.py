"""paddle.linalg / fft / signal beyond the op table (name coverage: tests/api_coverage): aliases, errors in the
user's terms, randomized low-rank SVD, second-order gradients, and to_static == eager for a function using them."""
import numpy as np
import pytest

import oar

L = oar.linalg


def test_top_level_and_tensor_method_aliases():
    a = oar.to_tensor([[4.0, 2.0], [2.0, 5.0]])
    np.testing.assert_allclose(oar.cholesky(a).numpy(), a.cholesky().numpy())
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(a.numpy()), rtol=1e-6)
    assert abs(a.det().item() - 16.0) < 1e-5
    assert [t.shape for t in a.svd()] == [[2, 2], [2], [2, 2]]
    assert oar.cross(oar.to_tensor([1.0, 0, 0]), oar.to_tensor([0.0, 1, 0])).numpy().tolist() == [0, 0, 1]
    assert oar.real(oar.to_tensor([1 + 2j])).item() == 1.0 and oar.to_tensor([1j]).imag().item() == 1.0


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="solve: the matrix is singular"):
        L.solve(oar.zeros([2, 2]), oar.ones([2]))
    with pytest.raises(ValueError, match="positive-definite"):
        L.cholesky(oar.to_tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match=r"square matrices.*\[2, 3\]"):
        L.det(oar.ones([2, 3]))
    with pytest.raises(ValueError, match="qr mode"):
        L.qr(oar.ones([2, 2]), mode="full")
    with pytest.raises(ValueError, match="matrix_norm"):
        L.matrix_norm(oar.ones([2, 2]), p=3)
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((2, 4)), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="M >= N"):
        L.qr(x)[1].sum().backward()
    with pytest.raises(ValueError, match="Unexpected norm"):
        oar.fft.fft(oar.ones([4]), norm="none")
    with pytest.raises(ValueError, match="positive integer"):
        oar.fft.fft(oar.ones([4]), n=0)
    with pytest.raises(ValueError, match="NOLA"):
        spec = oar.signal.stft(oar.ones([64]), n_fft=16, center=False, window=oar.to_tensor(np.hanning(16)))
        oar.signal.istft(spec, n_fft=16, center=False, window=oar.to_tensor(np.hanning(16)), hop_length=16)


def test_fft_dtypes_follow_the_input():
    assert oar.fft.rfft(oar.ones([4])).dtype == oar.complex64
    assert oar.fft.rfft(oar.ones([4], dtype="float64")).dtype == oar.complex128
    assert oar.fft.fft(oar.to_tensor([1, 2, 3])).dtype == oar.complex64  # integers go through the default float
    assert oar.fft.irfft(oar.fft.rfft(oar.ones([4], dtype="float64"))).dtype == oar.float64


def test_svd_lowrank_recovers_a_low_rank_matrix():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((20, 3)) @ rng.standard_normal((3, 15))
    oar.seed(1)
    u, s, v = L.svd_lowrank(oar.to_tensor(a), q=3)
    np.testing.assert_allclose(((u * s) @ v.T).numpy(), a, atol=1e-8)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False)[:3], rtol=1e-8)
    u, s, v = L.pca_lowrank(oar.to_tensor(a), q=3)  # centering keeps the rank at most 3: exact
    centered = a - a.mean(0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centered, compute_uv=False)[:3], rtol=1e-8)
    np.testing.assert_allclose(((u * s) @ v.T).numpy(), centered, atol=1e-8)


def test_second_order_gradient_of_det():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3))
    w = rng.standard_normal((3, 3))

    def first(arr):
        x = oar.to_tensor(arr, stop_gradient=False)
        (g,) = oar.grad(L.det(x), [x], create_graph=True)
        return x, g

    x, g = first(a)
    (gg,) = oar.grad((g * oar.to_tensor(w)).sum(), [x])
    num = np.zeros_like(a)
    for k in range(a.size):
        d = np.zeros(a.size)
        d[k] = 1e-6
        hi = (first(a + d.reshape(3, 3))[1].numpy() * w).sum()
        lo = (first(a - d.reshape(3, 3))[1].numpy() * w).sum()
        num.reshape(-1)[k] = (hi - lo) / 2e-6
    np.testing.assert_allclose(gg.numpy(), num, rtol=1e-5, atol=1e-7)


def test_to_static_equals_eager():
    def f(a, b):
        x = L.solve(a, b)
        spec = oar.fft.rfft(x, axis=0)
        return oar.real(spec).sum() + L.norm(x, p="fro") + L.det(a)

    rng = np.random.default_rng(5)
    a = oar.to_tensor(rng.standard_normal((4, 4)) + 4 * np.eye(4))
    b = oar.to_tensor(rng.standard_normal((4, 2)))
    static = oar.jit.to_static(f)
    np.testing.assert_allclose(static(a, b).numpy(), f(a, b).numpy(), rtol=1e-6)


def test_complex_inputs_to_real_gradient_rules_raise():
    re = oar.to_tensor(np.eye(2) * 2.0, stop_gradient=False)
    z = oar.complex(re, re * 0.0)
    with pytest.raises(NotImplementedError, match="gradient of slogdet for complex inputs"):
        L.slogdet(z)[1].sum().backward()
    assert oar.real(oar.to_tensor(1 + 2j)).shape == []  # 0-D stays 0-D


def test_stft_istft_branches():
    rng = np.random.default_rng(2)
    x = oar.to_tensor(rng.standard_normal(64) + 1j * rng.standard_normal(64))
    spec = oar.signal.stft(x, n_fft=16, hop_length=4, onesided=False)
    assert spec.shape == [16, 17] and spec.dtype == oar.complex128
    back = oar.signal.istft(spec, n_fft=16, hop_length=4, onesided=False, return_complex=True, length=64)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)
    real = oar.to_tensor(rng.standard_normal((2, 64)))
    full = oar.signal.stft(real, n_fft=16, hop_length=4, onesided=False, normalized=True)
    back = oar.signal.istft(full, n_fft=16, hop_length=4, onesided=False, normalized=True, length=64)
    np.testing.assert_allclose(back.numpy(), real.numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="onesided should be False"):
        oar.signal.stft(x, n_fft=16)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        oar.signal.stft(oar.ones([1, 2, 64]), n_fft=16)
