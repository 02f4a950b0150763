"""Convolution and pooling against naive NumPy references, plus float64 gradient checks."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from nn_gradcheck import check_grad, check_layer_grad

rng = np.random.default_rng(0)


def conv_ref(x, w, stride, pads, dil, groups):
    """Direct 2-D convolution by loops over output pixels (the reference only)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, [(0, 0), (0, 0), pads[0], pads[1]])
    ho = (xp.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (xp.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(ho):
            for j in range(wo):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride[0]:i * stride[0] + dil[0] * (kh - 1) + 1:dil[0],
                           j * stride[1]:j * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("stride,padding,dil,groups,pads", [
    (1, 0, 1, 1, [(0, 0), (0, 0)]),
    (2, 1, 1, 1, [(1, 1), (1, 1)]),
    ([1, 2], [1, 2, 0, 1], [2, 1], 2, [(1, 2), (0, 1)]),
    (1, "same", 1, 4, [(1, 1), (0, 1)]),
    (2, "valid", 1, 1, [(0, 0), (0, 0)]),
])
def test_conv2d_matches_reference(stride, padding, dil, groups, pads):
    x = rng.normal(size=(2, 4, 7, 8))
    w = rng.normal(size=(8, 4 // groups, 3, 2))
    b = rng.normal(size=8)
    y = F.conv2d(oar.to_tensor(x), oar.to_tensor(w), oar.to_tensor(b), stride, padding, dil, groups)
    s = stride if isinstance(stride, list) else [stride] * 2
    d = dil if isinstance(dil, list) else [dil] * 2
    ref = conv_ref(x, w, s, pads, d, groups) + b[None, :, None, None]
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10, atol=1e-10)


def test_conv2d_nhwc_conv1d_conv3d():
    x = rng.normal(size=(2, 3, 6, 5))
    w = rng.normal(size=(4, 3, 3, 3))
    ref = F.conv2d(oar.to_tensor(x), oar.to_tensor(w), padding=1).numpy()
    y = F.conv2d(oar.to_tensor(x.transpose(0, 2, 3, 1)), oar.to_tensor(w), padding=1, data_format="NHWC")
    np.testing.assert_allclose(y.numpy(), ref.transpose(0, 2, 3, 1), rtol=1e-10)
    x1 = rng.normal(size=(2, 3, 9))
    w1 = rng.normal(size=(4, 3, 3))
    y1 = F.conv1d(oar.to_tensor(x1), oar.to_tensor(w1), stride=2, padding=1)
    ref1 = conv_ref(x1[:, :, None], w1[:, :, None], [1, 2], [(0, 0), (1, 1)], [1, 1], 1)[:, :, 0]
    np.testing.assert_allclose(y1.numpy(), ref1, rtol=1e-10)
    x3 = rng.normal(size=(1, 2, 4, 5, 5))
    w3 = rng.normal(size=(3, 2, 2, 3, 3))
    y3 = F.conv3d(oar.to_tensor(x3), oar.to_tensor(w3), padding=1).numpy()
    # depth as a sum of 2-D convolutions
    xp = np.pad(x3, [(0, 0), (0, 0), (1, 1), (0, 0), (0, 0)])
    ref3 = np.stack([sum(conv_ref(xp[:, :, d + k], w3[:, :, k], [1, 1], [(1, 1), (1, 1)], [1, 1], 1)
                         for k in range(2)) for d in range(y3.shape[2])], axis=2)
    np.testing.assert_allclose(y3, ref3, rtol=1e-10, atol=1e-10)


def test_conv2d_transpose_is_adjoint_of_conv2d():
    x = rng.normal(size=(2, 4, 5, 6))
    w = rng.normal(size=(4, 3, 3, 3))  # [in, out, kh, kw]
    y = F.conv2d_transpose(oar.to_tensor(x), oar.to_tensor(w), stride=2, padding=1, output_padding=1)
    assert y.shape == [2, 3, 10, 12]
    z = rng.normal(size=y.shape)
    # <conv_transpose(x), z> == <x, conv(z)> with the same weight
    cz = F.conv2d(oar.to_tensor(z), oar.to_tensor(w), stride=2, padding=1).numpy()
    np.testing.assert_allclose((y.numpy() * z).sum(), (x * cz).sum(), rtol=1e-10)
    y2 = F.conv2d_transpose(oar.to_tensor(x), oar.to_tensor(w), stride=2, padding=1, output_size=[10, 12])
    np.testing.assert_allclose(y2.numpy(), y.numpy())
    layer = nn.Conv2DTranspose(4, 6, 3, stride=2, groups=2)
    assert layer(oar.ones([1, 4, 5, 5])).shape == [1, 6, 11, 11]


def test_conv_gradients():
    check_grad(lambda x, w: F.conv2d(x, w, stride=2, padding=1, dilation=1), [rng.normal(size=(2, 2, 5, 5)),
                                                                            rng.normal(size=(3, 2, 3, 3))])
    check_grad(lambda x, w: F.conv2d(x, w, padding=[1, 0], dilation=2, groups=2),
               [rng.normal(size=(1, 4, 6, 5)), rng.normal(size=(2, 2, 2, 2))])
    check_grad(lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, output_padding=1),
               [rng.normal(size=(1, 2, 3, 3)), rng.normal(size=(2, 3, 3, 3))])
    check_grad(lambda x, w: F.conv1d(x, w, padding="same"), [rng.normal(size=(2, 2, 6)),
                                                              rng.normal(size=(3, 2, 3))])
    check_grad(lambda x, w: F.conv3d(x, w, stride=[1, 2, 1]), [rng.normal(size=(1, 2, 3, 4, 3)),
                                                               rng.normal(size=(2, 2, 2, 2, 2))])


def test_conv_layer_gradients():
    check_layer_grad(nn.Conv2D(2, 3, 3, padding=1, padding_mode="reflect"), [rng.normal(size=(1, 2, 4, 4))])
    check_layer_grad(nn.Conv1D(2, 2, 2, stride=2), [rng.normal(size=(2, 2, 5))])
    check_layer_grad(nn.Conv2DTranspose(2, 2, 2, stride=2), [rng.normal(size=(1, 2, 2, 3))])


def test_conv_errors():
    with pytest.raises(ValueError, match="channels"):
        F.conv2d(oar.ones([1, 3, 5, 5]), oar.ones([2, 4, 3, 3]))
    with pytest.raises(ValueError, match="4-D"):
        F.conv2d(oar.ones([3, 5, 5]), oar.ones([2, 3, 3, 3]))


def pool_ref(x, k, s, p, kind, exclusive=True):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, [(0, 0), (0, 0), (p, p), (p, p)], constant_values=fill)
    ones = np.pad(np.ones((h, w)), [(p, p), (p, p)])
    ho, wo = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = ones[i * s:i * s + k, j * s:j * s + k].sum() if exclusive else k * k
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_pool2d_matches_reference(k, s, p):
    x = rng.normal(size=(2, 3, 7, 6))
    np.testing.assert_allclose(F.max_pool2d(oar.to_tensor(x), k, s, p).numpy(), pool_ref(x, k, s, p, "max"))
    np.testing.assert_allclose(F.avg_pool2d(oar.to_tensor(x), k, s, p).numpy(), pool_ref(x, k, s, p, "avg"))
    np.testing.assert_allclose(F.avg_pool2d(oar.to_tensor(x), k, s, p, exclusive=False).numpy(),
                               pool_ref(x, k, s, p, "avg", exclusive=False))


def test_pool_misc():
    x = rng.normal(size=(2, 3, 7))
    y = F.max_pool1d(oar.to_tensor(x), 2)
    np.testing.assert_allclose(y.numpy(), x[:, :, :6].reshape(2, 3, 3, 2).max(-1))
    y = F.avg_pool1d(oar.to_tensor(x), 3, 2)
    np.testing.assert_allclose(y.numpy(), np.stack([x[:, :, i:i + 3].mean(-1) for i in (0, 2, 4)], -1))
    assert F.max_pool2d(oar.ones([1, 1, 5, 5]), 2, ceil_mode=True).shape == [1, 1, 3, 3]
    out, mask = F.max_pool2d(oar.to_tensor(np.arange(16.0).reshape(1, 1, 4, 4)), 2, return_mask=True)
    np.testing.assert_array_equal(out.numpy()[0, 0], [[5, 7], [13, 15]])
    x = rng.normal(size=(2, 3, 7, 5))
    y = F.adaptive_avg_pool2d(oar.to_tensor(x), [3, 2]).numpy()
    ref = np.zeros((2, 3, 3, 2))
    for i in range(3):
        for j in range(2):
            hs, he = int(np.floor(i * 7 / 3)), int(np.ceil((i + 1) * 7 / 3))
            ws, we = int(np.floor(j * 5 / 2)), int(np.ceil((j + 1) * 5 / 2))
            ref[:, :, i, j] = x[:, :, hs:he, ws:we].mean(axis=(2, 3))
    np.testing.assert_allclose(y, ref, rtol=1e-12)
    ym = F.adaptive_max_pool2d(oar.to_tensor(x), [3, 2]).numpy()
    refm = np.zeros((2, 3, 3, 2))
    for i in range(3):
        for j in range(2):
            hs, he = int(np.floor(i * 7 / 3)), int(np.ceil((i + 1) * 7 / 3))
            ws, we = int(np.floor(j * 5 / 2)), int(np.ceil((j + 1) * 5 / 2))
            refm[:, :, i, j] = x[:, :, hs:he, ws:we].max(axis=(2, 3))
    np.testing.assert_allclose(ym, refm)
    np.testing.assert_allclose(nn.AdaptiveAvgPool1D(2)(oar.to_tensor(x[:, :, 0])).numpy(),
                               np.stack([x[:, :, 0, :3].mean(-1), x[:, :, 0, 2:].mean(-1)], -1), rtol=1e-12)


def test_pool_gradients():
    x = rng.permutation(2 * 2 * 6 * 5).reshape(2, 2, 6, 5) / 10.0  # distinct values: max is unique
    check_grad(lambda t: F.max_pool2d(t, 2), [x])
    check_grad(lambda t: F.max_pool2d(t, 3, 2, 1), [x])
    check_grad(lambda t: F.avg_pool2d(t, 3, 2, 1), [x])
    check_grad(lambda t: F.avg_pool2d(t, 2, 1, 0, ceil_mode=True), [x])
    check_grad(lambda t: F.adaptive_avg_pool2d(t, [4, 3]), [x])
    check_grad(lambda t: F.adaptive_max_pool2d(t, [4, 3]), [x])
    check_grad(lambda t: F.max_pool1d(t, 2), [x[:, :, 0]])
    check_grad(lambda t: F.adaptive_avg_pool1d(t, 3), [x[:, :, 0]])


def test_lenet_shapes():
    net = nn.Sequential(nn.Conv2D(1, 20, 5), nn.ReLU(), nn.MaxPool2D(2), nn.Conv2D(20, 50, 5), nn.ReLU(),
                        nn.MaxPool2D(2), nn.Flatten(), nn.Linear(800, 10))
    y = net(oar.ones([4, 1, 28, 28]))
    assert y.shape == [4, 10]
