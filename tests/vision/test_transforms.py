"""Transforms against direct NumPy computations."""
import numpy as np
import pytest

import oar
from oar.vision import transforms as T
from oar.vision.transforms import functional as F


def test_to_tensor_normalize():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)   # HWC
    t = T.ToTensor()(img)
    assert isinstance(t, oar.Tensor) and t.shape == [3, 2, 3] and t.dtype == oar.float32
    np.testing.assert_allclose(t.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    n = T.Normalize(mean=[0.1, 0.2, 0.3], std=[0.5, 0.5, 2.0])(t)
    ref = (img.transpose(2, 0, 1) / 255.0 - np.array([0.1, 0.2, 0.3])[:, None, None]) / \
        np.array([0.5, 0.5, 2.0])[:, None, None]
    np.testing.assert_allclose(n.numpy(), ref, rtol=1e-5)
    hwc = T.Normalize(mean=1.0, std=2.0, data_format="HWC")(img.astype(np.float32))
    np.testing.assert_allclose(hwc, (img - 1.0) / 2.0)


def test_resize_bilinear_matches_half_pixel_reference():
    img = np.random.default_rng(0).random((4, 6, 2)).astype(np.float32)
    out = T.Resize((8, 3))(img)
    assert out.shape == (8, 3, 2)

    def ref1d(n_out, n_in):
        c = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
        lo = np.floor(c).astype(int)
        hi = np.minimum(lo + 1, n_in - 1)
        m = np.zeros((n_out, n_in))
        m[np.arange(n_out), lo] += 1 - (c - lo)
        m[np.arange(n_out), hi] += c - lo
        return m
    ref = np.einsum("ah,bw,hwc->abc", ref1d(8, 4), ref1d(3, 6), img)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    assert T.Resize(12)(img).shape == (12, 18, 2)          # shorter side 4 -> 12
    t = T.Resize((2, 3), interpolation="nearest")(oar.to_tensor(img.transpose(2, 0, 1)))
    assert t.shape == [2, 2, 3]
    u8 = T.Resize((2, 2))(np.full((4, 4), 200, np.uint8))
    assert u8.dtype == np.uint8 and (u8 == 200).all()


def test_random_crop_and_flip():
    oar.seed(3)
    img = np.arange(5 * 5).reshape(5, 5, 1)
    c = T.RandomCrop(3)(img)
    assert c.shape == (3, 3, 1)
    top, left = divmod(int(c[0, 0, 0]), 5)
    np.testing.assert_array_equal(c, img[top:top + 3, left:left + 3])
    p = T.RandomCrop(7, padding=1)(img)
    assert p.shape == (7, 7, 1) and p[0, :, 0].sum() == 0
    assert T.RandomCrop(8, pad_if_needed=True)(img).shape == (8, 8, 1)
    with pytest.raises(ValueError, match="larger than the image"):
        T.RandomCrop(9)(img)
    np.testing.assert_array_equal(T.RandomHorizontalFlip(prob=1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(prob=0.0)(img), img)
    flips = [T.RandomHorizontalFlip()(img)[0, 0, 0] == 4 for _ in range(200)]
    assert 50 < sum(flips) < 150
    t = F.hflip(oar.to_tensor(img.transpose(2, 0, 1)))
    np.testing.assert_array_equal(t.numpy()[0], img[:, ::-1, 0])


def test_compose_on_tuple_and_center_crop():
    pipe = T.Compose([T.CenterCrop(2), T.ToTensor()])
    img = np.arange(16, dtype=np.uint8).reshape(4, 4)
    out, label = pipe((img, 7))
    assert label == 7 and out.shape == [1, 2, 2]
    np.testing.assert_allclose(out.numpy()[0] * 255, img[1:3, 1:3], rtol=1e-5)
