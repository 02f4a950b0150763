"""The nn.functional names issue 23 added (margin, likelihood and hierarchical-sigmoid losses, random activations,
grid sampling, temporal shift, unpooling, adaptive 3-D max pooling, gather_tree, class-centre sampling) and their
layers, against NumPy references written from Paddle's definitions; float64 finite-difference gradients."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from nn_gradcheck import check_grad

rng = np.random.default_rng(23)
T = oar.to_tensor


def pdist(a, b, p=2.0, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1.0 / p)


def test_triplet_margin_losses():
    a, p, n = (rng.normal(size=(5, 4)) for _ in range(3))
    ref = np.maximum(pdist(a, p, 1.5) - np.minimum(pdist(a, n, 1.5), pdist(p, n, 1.5)) + 0.7, 0)
    got = F.triplet_margin_loss(T(a), T(p), T(n), margin=0.7, p=1.5, swap=True, reduction="none")
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(nn.TripletMarginLoss(margin=0.7, p=1.5, swap=True)(T(a), T(p), T(n)).numpy(),
                               ref.mean(), rtol=1e-12)
    check_grad(lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=2.0, reduction="none"), [a, p, n])
    l1 = lambda x, y: (x - y).abs().sum(-1)  # noqa: E731
    ref = np.maximum(np.abs(a - p).sum(-1) - np.abs(a - n).sum(-1) + 1.0, 0).sum()
    got = F.triplet_margin_with_distance_loss(T(a), T(p), T(n), distance_function=l1, reduction="sum")
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(nn.TripletMarginWithDistanceLoss(reduction="sum")(T(a), T(p), T(n)).numpy(),
                               np.maximum(pdist(a, p, 2, 0) - pdist(a, n, 2, 0) + 1, 0).sum(), rtol=1e-6)
    with pytest.raises(ValueError, match="negative distance"):
        F.triplet_margin_with_distance_loss(T(a), T(p), T(n), distance_function=lambda x, y: -l1(x, y))
    with pytest.raises(ValueError, match="margin"):
        F.triplet_margin_loss(T(a), T(p), T(n), margin=-1.0)


def test_multi_margin_loss():
    x, lab, w = rng.normal(size=(4, 5)), np.array([0, 4, 2, 2]), rng.uniform(size=5)
    ref = np.array([sum(w[y] * max(0.0, 0.7 - x[i, y] + x[i, j]) ** 2 for j in range(5) if j != y) / 5
                    for i, y in enumerate(lab)])
    got = F.multi_margin_loss(T(x), T(lab), p=2, margin=0.7, weight=T(w), reduction="none")
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12, atol=1e-15)  # Paddle's form: mean of all - margin^p/C
    np.testing.assert_allclose(nn.MultiMarginLoss()(T(x), T(lab)).numpy(), np.mean(
        [sum(max(0.0, 1 - x[i, y] + x[i, j]) for j in range(5) if j != y) / 5 for i, y in enumerate(lab)]))
    check_grad(lambda t: F.multi_margin_loss(t, T(lab), p=2, weight=T(w), reduction="none"), [x])


def test_npair_loss():
    a, p, lab = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), np.array([0, 1, 0, 2])
    same = (lab[:, None] == lab[None, :]).astype(float)
    target = same / same.sum(1, keepdims=True)
    sim = a @ p.T
    logp = sim - sim.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    ce = -(target * logp).sum(1, keepdims=True)
    ref = 0.25 * 0.01 * ((a ** 2).sum(1).mean() + (p ** 2).sum(1).mean()) + (target * ce).sum(0).mean()
    np.testing.assert_allclose(F.npair_loss(T(a), T(p), T(lab), l2_reg=0.01).numpy(), ref, rtol=1e-12)
    check_grad(lambda x, y: F.npair_loss(x, y, T(lab)), [a, p])


def test_gaussian_and_poisson_nll():
    x, y, var = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.uniform(0.1, 2, size=(3, 4))
    ref = 0.5 * (np.log(var) + (x - y) ** 2 / var) + 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(F.gaussian_nll_loss(T(x), T(y), T(var), full=True, reduction="none").numpy(), ref,
                               rtol=1e-12)
    v1 = var[:, :1]
    ref1 = (0.5 * (np.log(v1) + (x - y) ** 2 / v1)).mean()
    np.testing.assert_allclose(nn.GaussianNLLLoss()(T(x), T(y), T(v1[:, 0])).numpy(), ref1, rtol=1e-12)
    np.testing.assert_allclose(F.gaussian_nll_loss(T(x), T(y), T(v1)).numpy(), ref1, rtol=1e-12)
    small = np.full((3, 4), 1e-9)  # clipped to epsilon in value
    np.testing.assert_allclose(F.gaussian_nll_loss(T(x), T(y), T(small), reduction="sum").numpy(),
                               (0.5 * (np.log(1e-6) + (x - y) ** 2 / 1e-6)).sum(), rtol=1e-12)
    check_grad(lambda a, b, v: F.gaussian_nll_loss(a, b, v, reduction="none"), [x, y, var])
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(T(x), T(y), T(-var))
    with pytest.raises(ValueError, match="fits neither"):
        F.gaussian_nll_loss(T(x), T(y), T(var[:2]))
    lab = rng.integers(0, 5, size=(3, 4)).astype(float)
    st = np.where(lab > 1, lab * np.log(np.maximum(lab, 1)) - lab + 0.5 * np.log(2 * np.pi * np.maximum(lab, 1)), 0)
    np.testing.assert_allclose(F.poisson_nll_loss(T(x), T(lab), full=True, reduction="none").numpy(),
                               np.exp(x) - lab * x + st, rtol=1e-12)
    np.testing.assert_allclose(nn.PoissonNLLLoss(log_input=False)(T(var), T(lab)).numpy(),
                               (var - lab * np.log(var + 1e-8)).mean(), rtol=1e-12)
    check_grad(lambda a: F.poisson_nll_loss(a, T(lab), full=True, reduction="none"), [x])


def hsigmoid_ref(x, w, b, lab, num_classes, table=None, code=None):
    """Paddle's definition: softplus of every step's logit (zero for the padding of shorter paths) minus bit*logit."""
    length = (num_classes - 1).bit_length() if table is None else table.shape[1]
    out = []
    for i, c in enumerate(lab):
        s = 0.0
        for j in range(length):
            if table is None:
                full = c + num_classes
                valid = (full >> (j + 1)) > 0
                node, bit = (full >> (j + 1)) - 1, (full >> j) & 1
            else:
                valid, node, bit = table[i, j] >= 0, table[i, j], code[i, j]
            pre = np.clip(x[i] @ w[node] + b[node, 0], -40, 40) if valid else 0.0
            s += np.log1p(np.exp(pre)) - (bit * pre if valid else 0.0)
        out.append([s])
    return np.array(out)


def test_hsigmoid_loss_default_and_custom_tree():
    x, w, b = rng.normal(size=(4, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 1))
    lab = np.array([0, 6, 3, 2])
    np.testing.assert_allclose(F.hsigmoid_loss(T(x), T(lab), 7, T(w), T(b)).numpy(),
                               hsigmoid_ref(x, w, b, lab, 7), rtol=1e-12)
    table = np.array([[0, 2, -1], [1, 3, 4], [5, -1, -1], [0, 1, 2]])
    code = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
    got = F.hsigmoid_loss(T(x), T(lab), 7, T(w), T(b), path_table=T(table), path_code=T(code))
    np.testing.assert_allclose(got.numpy(), hsigmoid_ref(x, w, b, lab, 7, table, code), rtol=1e-12)
    check_grad(lambda a, ww, bb: F.hsigmoid_loss(a, T(lab), 7, ww, bb), [x, w, b])
    layer = nn.HSigmoidLoss(3, 7)
    layer.weight.set_value(w.astype("float32"))
    layer.bias.set_value(b.astype("float32"))
    np.testing.assert_allclose(layer(T(x.astype("float32")), T(lab)).numpy(), hsigmoid_ref(x, w, b, lab, 7),
                               rtol=1e-5)
    assert layer.weight.shape == [6, 3] and layer.bias.shape == [6, 1]
    with pytest.raises(NotImplementedError, match="is_sparse"):
        F.hsigmoid_loss(T(x), T(lab), 7, T(w), is_sparse=True)


def test_rrelu_and_gumbel_softmax():
    x = rng.normal(size=(50,))
    np.testing.assert_allclose(F.rrelu(T(x), 0.1, 0.3, training=False).numpy(), np.where(x >= 0, x, 0.2 * x))
    oar.seed(3)
    t = T(x, stop_gradient=False)
    y = F.rrelu(t, 0.1, 0.3)
    slope = y.numpy()[x < 0] / x[x < 0]
    assert ((slope >= 0.1) & (slope <= 0.3)).all() and len(set(np.round(slope, 6))) > 10
    np.testing.assert_array_equal(y.numpy()[x >= 0], x[x >= 0])
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy()[x < 0], slope, rtol=1e-12)
    layer = nn.RReLU(0.1, 0.3)
    layer.eval()
    np.testing.assert_allclose(layer(T(x)).numpy(), np.where(x >= 0, x, 0.2 * x))
    with pytest.raises(ValueError, match="lower <= upper"):
        F.rrelu(T(x), 0.5, 0.2)
    logits = rng.normal(size=(6, 5))
    soft = F.gumbel_softmax(T(logits), temperature=0.5)
    np.testing.assert_allclose(soft.numpy().sum(-1), 1.0, rtol=1e-12)
    oar.seed(5)
    t = T(logits, stop_gradient=False)
    hard = F.gumbel_softmax(t, hard=True, axis=0)
    h = hard.numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(0) == 1).all()
    oar.seed(5)
    t2 = T(logits, stop_gradient=False)
    soft2 = F.gumbel_softmax(t2, axis=0)
    np.testing.assert_array_equal(h.argmax(0), soft2.numpy().argmax(0))  # same noise: the soft sample's argmax
    w = rng.normal(size=(6, 5))
    (hard * T(w)).sum().backward()
    (soft2 * T(w)).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), t2.grad.numpy(), rtol=1e-12)  # straight-through


def affine_grid_ref(theta, shape, align):
    n, _, h, w = shape
    xs = np.linspace(-1, 1, w) * (1 if align else (w - 1) / w)
    ys = np.linspace(-1, 1, h) * (1 if align else (h - 1) / h)
    base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((1, 1))), -1)  # [h, w, 3]
    return np.einsum("hwk,njk->nhwj", base, theta)


def grid_sample_ref(x, grid, mode, pad, align):
    n, c, h, w = x.shape

    def src(g, size):
        v = (g + 1) * (size - 1) / 2 if align else ((g + 1) * size - 1) / 2
        if pad == "border":
            v = np.clip(v, 0, size - 1)
        elif pad == "reflection":
            lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
            span = hi - lo
            d = np.abs(v - lo)
            flips, extra = np.floor(d / span), np.fmod(d, span)
            v = np.clip(np.where(flips % 2 == 0, lo + extra, hi - extra), 0, size - 1)
        return v
    out = np.zeros((n, c) + grid.shape[1:3])
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                gx, gy = src(grid[b, i, j, 0], w), src(grid[b, i, j, 1], h)
                taps = [(np.round(gx), np.round(gy), 1.0)] if mode == "nearest" else \
                    [(np.floor(gx) + dx, np.floor(gy) + dy,
                      (1 - abs(gx - np.floor(gx) - dx)) * (1 - abs(gy - np.floor(gy) - dy)))
                     for dx in (0, 1) for dy in (0, 1)]
                for px, py, wt in taps:
                    if 0 <= px <= w - 1 and 0 <= py <= h - 1:
                        out[b, :, i, j] += wt * x[b, :, int(py), int(px)]
    return out


@pytest.mark.parametrize("align", [True, False])
def test_affine_grid_and_grid_sample(align):
    theta = rng.normal(size=(2, 2, 3))
    np.testing.assert_allclose(F.affine_grid(T(theta), [2, 3, 4, 5], align_corners=align).numpy(),
                               affine_grid_ref(theta, [2, 3, 4, 5], align), rtol=1e-12, atol=1e-12)
    assert F.affine_grid(T(rng.normal(size=(2, 3, 4))), [2, 1, 3, 4, 5]).shape == [2, 3, 4, 5, 3]
    check_grad(lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=align), [theta])
    x = rng.normal(size=(2, 3, 4, 5))
    grid = rng.uniform(-1.4, 1.4, size=(2, 3, 6, 2))
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            got = F.grid_sample(T(x), T(grid), mode=mode, padding_mode=pad, align_corners=align).numpy()
            np.testing.assert_allclose(got, grid_sample_ref(x, grid, mode, pad, align), rtol=1e-12, atol=1e-12,
                                       err_msg=f"{mode} {pad}")
    check_grad(lambda a, g: F.grid_sample(a, g, align_corners=align), [x, grid])
    with pytest.raises(ValueError, match="4-D"):
        F.grid_sample(T(rng.normal(size=(1, 1, 2, 2, 2))), T(rng.normal(size=(1, 1, 1, 1, 3))))


def test_temporal_shift():
    x = rng.normal(size=(6, 8, 2, 3))
    v = x.reshape(2, 3, 8, 2, 3)
    ref = np.zeros_like(v)
    c1, c2 = 2, 4
    ref[:, 1:, :c1] = v[:, :-1, :c1]
    ref[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    ref[:, :, c2:] = v[:, :, c2:]
    np.testing.assert_allclose(F.temporal_shift(T(x), 3, 0.25).numpy(), ref.reshape(x.shape))
    nhwc = F.temporal_shift(T(x.transpose(0, 2, 3, 1)), 3, 0.25, data_format="NHWC").numpy()
    np.testing.assert_allclose(nhwc, ref.reshape(x.shape).transpose(0, 2, 3, 1))
    check_grad(lambda t: F.temporal_shift(t, 3, 0.3), [x])


def test_max_pool_masks_are_flat_input_indices_and_unpool_inverts_them():
    x = rng.normal(size=(2, 3, 6, 7))
    out, mask = F.max_pool2d(T(x), 3, stride=2, padding=1, return_mask=True)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            win = padded[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].reshape(2, 3, -1)
            k = win.argmax(-1)
            r, c = 2 * i - 1 + k // 3, 2 * j - 1 + k % 3
            np.testing.assert_array_equal(mask.numpy()[:, :, i, j], r * 7 + c)
    assert mask.dtype == oar.int32
    un = F.max_unpool2d(out, mask, 3, stride=2, padding=1, output_size=[6, 7]).numpy()
    ref = np.zeros_like(x).reshape(2, 3, -1)
    np.put_along_axis(ref, mask.numpy().reshape(2, 3, -1).astype(int), out.numpy().reshape(2, 3, -1), axis=2)
    np.testing.assert_allclose(un, ref.reshape(x.shape))
    np.testing.assert_allclose(nn.MaxUnPool2D(3, 2, 1, output_size=[6, 7])(out, mask).numpy(), un)
    o1, m1 = F.max_pool1d(T(x[:, :, 0]), 2, return_mask=True)
    np.testing.assert_array_equal(m1.numpy(), x[:, :, 0, :6].reshape(2, 3, 3, 2).argmax(-1) + [0, 2, 4])
    un1 = nn.MaxUnPool1D(2)(o1, m1).numpy()
    assert un1.shape == (2, 3, 6) and np.allclose(un1.max(-1), o1.numpy().max(-1))
    x3 = rng.normal(size=(1, 2, 4, 4, 6))
    o3, m3 = F.max_pool3d(T(x3), 2, return_mask=True)
    un3 = nn.MaxUnPool3D(2)(o3, m3).numpy().reshape(1, 2, -1)
    np.testing.assert_allclose(np.take_along_axis(x3.reshape(1, 2, -1), m3.numpy().reshape(1, 2, -1), 2),
                               o3.numpy().reshape(1, 2, -1))
    np.testing.assert_allclose(np.take_along_axis(un3, m3.numpy().reshape(1, 2, -1), 2), o3.numpy().reshape(1, 2, -1))
    idx = T(np.array([[[1, 2]]], dtype="int32"))
    check_grad(lambda t: F.max_unpool1d(t, idx, 2), [rng.normal(size=(1, 1, 2))])
    with pytest.raises(ValueError, match="outside the output"):
        F.max_unpool1d(T(np.ones((1, 1, 2))), T(np.array([[[1, 9]]])), 2)


def test_adaptive_max_pool3d():
    x = rng.normal(size=(2, 2, 5, 4, 7))
    out, mask = F.adaptive_max_pool3d(T(x), [3, 2, 4], return_mask=True)
    for i, (d0, d1) in enumerate([(0, 2), (1, 4), (3, 5)]):
        for j, (h0, h1) in enumerate([(0, 2), (2, 4)]):
            for k, (w0, w1) in enumerate([(0, 2), (1, 4), (3, 6), (5, 7)]):
                region = x[:, :, d0:d1, h0:h1, w0:w1]
                np.testing.assert_allclose(out.numpy()[:, :, i, j, k], region.max(axis=(2, 3, 4)))
                flat = x.reshape(2, 2, -1)
                np.testing.assert_allclose(np.take_along_axis(flat, mask.numpy()[:, :, i, j, k, None], 2)[..., 0],
                                           region.max(axis=(2, 3, 4)))
    assert mask.dtype == oar.int32
    np.testing.assert_allclose(nn.AdaptiveMaxPool3D([3, 2, 4])(T(x)).numpy(), out.numpy())
    check_grad(lambda t: F.adaptive_max_pool3d(t, [2, 2, 3]), [x])


def test_gather_tree():
    ids = rng.integers(0, 9, size=(5, 2, 3))
    parents = rng.integers(0, 3, size=(5, 2, 3))
    ref = np.zeros_like(ids)
    for b in range(2):
        for k in range(3):
            beam = k
            for t in range(4, -1, -1):
                ref[t, b, k] = ids[t, b, beam]
                beam = parents[t, b, beam]
    np.testing.assert_array_equal(F.gather_tree(T(ids), T(parents)).numpy(), ref)
    with pytest.raises(TypeError, match="int32 or int64"):
        F.gather_tree(T(ids.astype(float)), T(parents.astype(float)))
    # a parent the walk reaches outside [0, beam) is refused as Paddle's kernel does (a negative one used to wrap)
    for bad in (-1, 3):
        p = parents.copy()
        p[4, 1, 2] = bad
        with pytest.raises(ValueError, match=r"parents must be in \[0, beam_size=3\)"):
            F.gather_tree(T(ids), T(p))
    p = parents.copy()
    p[0] = -1  # the first step's parents are never followed (Paddle reads them without a check too)
    np.testing.assert_array_equal(F.gather_tree(T(ids), T(p)).numpy(), ref)


def test_class_center_sample():
    lab = np.array([1, 5, 2, 5, 9])
    oar.seed(7)
    remapped, centers = F.class_center_sample(T(lab), 20, 6)
    c = centers.numpy()
    assert c.shape == (6,) and (np.diff(c) > 0).all() and set(lab) <= set(c)
    np.testing.assert_array_equal(c[remapped.numpy()], lab)
    oar.seed(7)
    np.testing.assert_array_equal(F.class_center_sample(T(lab), 20, 6)[1].numpy(), c)  # oar.seed reproduces it
    r2, c2 = F.class_center_sample(T(lab), 20, 2)  # more classes in the batch than samples: all of them
    np.testing.assert_array_equal(c2.numpy(), [1, 2, 5, 9])
    with pytest.raises(NotImplementedError, match="group"):
        F.class_center_sample(T(lab), 20, 6, group=object())


def test_spectral_norm_layer():
    w = rng.normal(size=(2, 3, 4))
    sn = nn.SpectralNorm([2, 3, 4], dim=1, power_iters=2, dtype="float64")
    u, v = sn.weight_u.numpy().copy(), sn.weight_v.numpy().copy()
    assert sn.weight_u.shape == [3] and sn.weight_v.shape == [8] and sn.weight_u.stop_gradient
    mat = w.transpose(1, 0, 2).reshape(3, -1)
    uu, vv = u, v
    for _ in range(2):
        vv = mat.T @ uu
        vv = vv / (np.linalg.norm(vv) + 1e-12)
        uu = mat @ vv
        uu = uu / (np.linalg.norm(uu) + 1e-12)
    np.testing.assert_allclose(sn(T(w)).numpy(), w / (uu @ mat @ vv), rtol=1e-12)
    np.testing.assert_array_equal(sn.weight_u.numpy(), u)  # Paddle does not update the vectors
    sn30 = nn.SpectralNorm([3, 8], power_iters=50, dtype="float64")
    np.testing.assert_allclose(np.linalg.svd(sn30(T(mat)).numpy(), compute_uv=False)[0], 1.0, rtol=1e-8)

    # gradient: of w / (u' W v) with the iterated u, v held constant (as Paddle's op), by central differences
    r = rng.normal(size=w.shape)
    t = T(w, stop_gradient=False)
    (sn(t) * T(r)).sum().backward()

    def g(a):
        return (r * a / (uu @ a.transpose(1, 0, 2).reshape(3, -1) @ vv)).sum()
    num = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[i] = 1e-6
        num[i] = (g(w + d) - g(w - d)) / 2e-6
    np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-6, atol=1e-8)
