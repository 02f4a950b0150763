"""Second-order gradients through the ops whose gradient is a dedicated `*_grad` kernel op (activations,
softmax, prelu, pooling, convolution, batch_norm, ...): the gradient of ``sum(grad(f, inputs) * v)`` against
central finite differences of the first gradient, in float64, eagerly and in a static program built with
`oar.static.gradients` twice (static == eager)."""
import os
import sys

import numpy as np
import pytest

import oar
import oar.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "nn"))
from nn_gradcheck import numeric_grad  # noqa: E402

RNG = np.random.default_rng(7)


def _away(shape, lo=0.05):
    """Values kept off the kinks (0, +-3, +-1, thresholds) so finite differences see one smooth piece."""
    x = RNG.uniform(-4, 4, shape)
    for k in (0.0, 1.0, -1.0, 3.0, -3.0, 6.0):
        near = np.abs(x - k) < lo
        x[near] = k + lo * 2
    return x


def _distinct(n):
    """Values at least 0.5 apart, so a small step never changes which one is a window's maximum."""
    return RNG.permutation(n) * 0.5 - n / 4


def _x(*shape):
    return _away(shape)


# name -> (f(*tensors) -> tensor, input arrays); every input is differentiated
CASES = {
    "relu": (F.relu, [_x(2, 3)]),
    "relu6": (F.relu6, [RNG.uniform(-2, 8, (2, 3))]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), [_x(2, 3)]),
    "elu": (lambda x: F.elu(x, 0.7), [_x(2, 3)]),
    "selu": (F.selu, [_x(2, 3)]),
    "gelu": (F.gelu, [_x(2, 3)]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate=True), [_x(2, 3)]),
    "silu": (F.silu, [_x(2, 3)]),
    "swish": (F.swish, [_x(2, 3)]),
    "mish": (F.mish, [_x(2, 3)]),
    "hardswish": (F.hardswish, [_x(2, 3)]),
    "hardsigmoid": (F.hardsigmoid, [_x(2, 3)]),
    "hardtanh": (F.hardtanh, [_x(2, 3)]),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), [_x(2, 3)]),
    "softsign": (F.softsign, [_x(2, 3)]),
    "logsigmoid": (F.log_sigmoid, [_x(2, 3)]),
    "tanhshrink": (F.tanhshrink, [_x(2, 3)]),
    "thresholded_relu": (lambda x: F.thresholded_relu(x, 0.5), [_x(2, 3)]),
    "softmax": (lambda x: F.softmax(x, axis=1) * oar.to_tensor(np.arange(1.0, 4.0)), [_x(2, 3)]),
    "log_softmax": (lambda x: F.log_softmax(x, axis=0) ** 2, [_x(3, 2)]),
}


def _loss(f, ts, w):
    out = f(*ts)
    return (out * out * w).sum()  # squared: the first gradient depends on the output, not only the op's slope


def _eager(f, arrays, w, v):
    ts = [oar.to_tensor(a, stop_gradient=False) for a in arrays]
    gs = oar.grad(_loss(f, ts, oar.to_tensor(w)), ts, create_graph=True)
    s = None
    for g, vi in zip(gs, v):
        term = (g * oar.to_tensor(vi)).sum()
        s = term if s is None else s + term
    return [g.numpy() for g in oar.grad(s, ts)]


def _first(f, arrays, w):
    ts = [oar.to_tensor(a, stop_gradient=False) for a in arrays]
    return [g.numpy() for g in oar.grad(_loss(f, ts, oar.to_tensor(w)), ts)]


def _numeric(f, arrays, w, v):
    def project(*moved):
        return sum(float((g * vi).sum()) for g, vi in zip(_first(f, list(moved), w), v))
    return [numeric_grad(project, arrays, i) for i in range(len(arrays))]


def _static(f, arrays, w, v):
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            xs = []
            for i, a in enumerate(arrays):
                x = oar.static.data(f"x{i}", list(a.shape), "float64")
                x.stop_gradient = False
                xs.append(x)
            wv = oar.static.data("w", list(w.shape), "float64")
            vs = [oar.static.data(f"v{i}", list(a.shape), "float64") for i, a in enumerate(v)]
            gs = oar.static.gradients([_loss(f, xs, wv)], xs)
            s = None
            for g, vi in zip(gs, vs):
                term = (g * vi).sum()
                s = term if s is None else s + term
            hs = oar.static.gradients([s], xs)
        feed = {f"x{i}": a for i, a in enumerate(arrays)}
        feed.update({f"v{i}": a for i, a in enumerate(v)}, w=w)
        return oar.static.Executor().run(main, feed=feed, fetch_list=hs)
    finally:
        oar.disable_static()


def check(f, arrays, rtol=1e-5, atol=1e-7):
    w = RNG.standard_normal(np.shape(f(*[oar.to_tensor(a) for a in arrays])))
    v = [RNG.standard_normal(a.shape) for a in arrays]
    got = _eager(f, arrays, w, v)
    want = _numeric(f, arrays, w, v)
    for i, (g, n) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, n, rtol=rtol, atol=atol, err_msg=f"eager, input {i}")
    for i, (g, e) in enumerate(zip(_static(f, arrays, w, v), got)):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=f"static == eager, input {i}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order(name):
    f, arrays = CASES[name]
    check(f, arrays)


def _conv_net(x, w1, w2):
    h = F.max_pool2d(F.relu(F.conv2d(x, w1, padding=1)), 2)
    return F.conv2d(F.gelu(h), w2)


NN_CASES = {
    "prelu_channel": (lambda x, w: F.prelu(x, w), [_x(2, 3, 2), RNG.uniform(0.1, 0.5, 3)]),
    "prelu_one_nhwc": (lambda x, w: F.prelu(x, w, data_format="NHWC"), [_x(2, 2, 3), RNG.uniform(0.1, 0.5, 1)]),
    "conv2d": (lambda x, w: F.conv2d(x, w, stride=2, padding=1) ** 2,
               [RNG.standard_normal((1, 2, 4, 4)), RNG.standard_normal((3, 2, 3, 3))]),
    "conv2d_groups_same": (lambda x, w: F.conv2d(x, w, padding="same", groups=2) ** 2,
                           [RNG.standard_normal((1, 2, 3, 3)), RNG.standard_normal((2, 1, 2, 2))]),
    "conv3d": (lambda x, w: F.conv3d(x, w, padding=1) ** 2,
               [RNG.standard_normal((1, 1, 2, 2, 2)), RNG.standard_normal((2, 1, 2, 2, 2))]),
    "conv1d": (lambda x, w: F.conv1d(x, w, stride=2) ** 2,
               [RNG.standard_normal((2, 2, 5)), RNG.standard_normal((1, 2, 3))]),
    "conv2d_transpose": (lambda x, w: F.conv2d_transpose(x, w, stride=2) ** 2,
                         [RNG.standard_normal((1, 2, 2, 2)), RNG.standard_normal((2, 1, 2, 2))]),
    "conv_net": (_conv_net, [RNG.standard_normal((1, 1, 4, 4)), RNG.standard_normal((2, 1, 3, 3)),
                             RNG.standard_normal((1, 2, 2, 2))]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, stride=2, padding=1) ** 2, [_distinct(32).reshape(1, 2, 4, 4)]),
    "max_pool1d_ceil": (lambda x: F.max_pool1d(x, 2, ceil_mode=True) ** 2, [_distinct(10).reshape(1, 2, 5)]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x ** 2, 2, stride=1) ** 2, [_x(1, 1, 3, 3)]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x ** 2, [2, 1]) ** 2, [_x(1, 2, 3, 3)]),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2) ** 2, [_distinct(18).reshape(1, 2, 3, 3)]),
}


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_second_order_nn(name):
    f, arrays = NN_CASES[name]
    check(f, arrays)


def _bn(training, data_format="NCHW"):
    def f(x, w, b):
        c = w.shape[0]
        stats = [oar.to_tensor(np.linspace(-0.5, 0.5, c)), oar.to_tensor(np.linspace(0.5, 2.0, c))]
        return F.batch_norm(x, *stats, w, b, training=training, data_format=data_format)
    return f


BN_CASES = {
    "batch_norm_train": (_bn(True), [RNG.standard_normal((3, 2, 2)), RNG.uniform(0.5, 2, 2),
                                     RNG.standard_normal(2)]),
    "batch_norm_train_nhwc": (_bn(True, "NHWC"), [RNG.standard_normal((2, 2, 2, 3)), RNG.uniform(0.5, 2, 3),
                                                  RNG.standard_normal(3)]),
    "batch_norm_eval": (_bn(False), [RNG.standard_normal((3, 2, 2)), RNG.uniform(0.5, 2, 2),
                                     RNG.standard_normal(2)]),
}


@pytest.mark.parametrize("name", sorted(BN_CASES))
def test_second_order_batch_norm(name):
    f, arrays = BN_CASES[name]
    check(f, arrays)


_IDS = np.array([[0, 2], [2, 3]])


def _swce(soft):
    def f(z):
        label = oar.to_tensor(RNG_LABEL_SOFT) if soft else oar.to_tensor(np.array([[1], [-100], [2]]))
        return F.softmax_with_cross_entropy(z, label, soft_label=soft, ignore_index=-100) ** 2
    return f


RNG_LABEL_SOFT = np.random.default_rng(3).dirichlet(np.ones(3), 3)
MORE_CASES = {
    "embedding": (lambda w: F.embedding(oar.to_tensor(_IDS), w, padding_idx=3) ** 2, [RNG.standard_normal((4, 2))]),
    "interp_bilinear": (lambda x: F.interpolate(x ** 2, size=[3, 5], mode="bilinear") ** 2, [_x(1, 1, 2, 3)]),
    "logcumsumexp": (lambda x: oar.logcumsumexp(x, axis=1), [_x(2, 3)]),
    "softmax_ce_hard": (_swce(False), [RNG.standard_normal((3, 3))]),
    "softmax_ce_soft": (_swce(True), [RNG.standard_normal((3, 3))]),
}


@pytest.mark.parametrize("name", sorted(MORE_CASES))
def test_second_order_more(name):
    f, arrays = MORE_CASES[name]
    check(f, arrays)


@pytest.mark.parametrize("act", ["relu", "tanh", "sigmoid"])
def test_second_order_fused_add_act(act):
    from oar.passes.fuse_elewise_add_act import fused_elemwise_add_act
    check(lambda x, y: fused_elemwise_add_act(x, y, act), [_x(2, 3), _x(3)])


# ---- end to end: gradient penalties whose parameter gradients match finite differences ---------------------------

def _penalty_grads(net, x, params):
    """d/dparams of ||d net(x) / dx||^2 (WGAN-GP's penalty), eagerly."""
    xt = oar.to_tensor(x, stop_gradient=False)
    ps = [oar.to_tensor(p, stop_gradient=False) for p in params]
    (gx,) = oar.grad(net(xt, *ps).sum(), xt, create_graph=True)
    return [g.numpy() for g in oar.grad((gx * gx).sum(), ps)]


def _penalty(net, x, params):
    xt = oar.to_tensor(x, stop_gradient=False)
    (gx,) = oar.grad(net(xt, *[oar.to_tensor(p) for p in params]).sum(), xt)
    return float((gx.numpy() ** 2).sum())


def _mlp(x, w1, b1, w2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2)


def _convnet(x, w1, w2):
    return F.conv2d(F.max_pool2d(F.relu(F.conv2d(x, w1, padding=1)), 2), w2)


@pytest.mark.parametrize("net, x, params", [
    (_mlp, RNG.standard_normal((3, 2)), [RNG.standard_normal((2, 4)), RNG.standard_normal(4),
                                         RNG.standard_normal((4, 1))]),
    (_convnet, RNG.standard_normal((2, 1, 4, 4)), [RNG.standard_normal((2, 1, 3, 3)),
                                                   RNG.standard_normal((1, 2, 2, 2))]),
], ids=["linear_gelu_linear", "conv_relu_maxpool"])
def test_gradient_penalty(net, x, params):
    got = _penalty_grads(net, x, params)
    eps = 1e-6
    for i, p in enumerate(params):
        num = np.zeros_like(p)
        for k in range(p.size):
            vals = []
            for sign in (1, -1):
                moved = [q.copy() for q in params]
                moved[i].reshape(-1)[k] += sign * eps
                vals.append(_penalty(net, x, moved))
            num.reshape(-1)[k] = (vals[0] - vals[1]) / (2 * eps)
        assert np.abs(num).max() > 1e-3  # the penalty really depends on this parameter
        np.testing.assert_allclose(got[i], num, rtol=1e-5, atol=1e-7, err_msg=f"parameter {i}")


# ---- gradient ops that cannot be differentiated again say so ------------------------------------------------------

class _Cube(oar.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        return dy * 3 * x * x


def test_py_layer_eager_second_order_runs_its_backward_ops():
    x = oar.to_tensor([2.0, -1.0], stop_gradient=False)
    (g,) = oar.grad(_Cube.apply(x).sum(), x, create_graph=True)
    (h,) = oar.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [12.0, -6.0])


def _static_twice(f):
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            x = oar.static.data("x", [2], "float64")
            x.stop_gradient = False
            (g,) = oar.static.gradients([f(x).sum()], [x])
            oar.static.gradients([(g * g).sum()], [x])
    finally:
        oar.disable_static()


def _loop(x):
    i = oar.full([], 0, "int64")
    _, y = oar.static.nn.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), [i, x])
    return y


@pytest.mark.parametrize("f, op", [(_loop, "while_grad"), (_Cube.apply, "py_layer_grad")])
def test_static_second_order_unsupported_names_the_op(f, op):
    with pytest.raises(NotImplementedError, match=f"second-order gradients are not supported through op '{op}'"):
        _static_twice(f)


def test_to_static_called_eagerly_second_order_names_run_program_grad():
    @oar.jit.to_static
    def f(x):
        return F.gelu(x) * x

    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (g,) = oar.grad(f(x).sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match="'run_program_grad'"):
        oar.grad(g.sum(), x)


_BOXES = [np.array([[0.0, 0.0, 2.0, 3.0], [1.0, 1.0, 3.0, 3.0]]), np.array([1, 1], "int32")]
VISION_CASES = {
    "roi_pool": (lambda x: oar.vision.ops.roi_pool(x, *map(oar.to_tensor, _BOXES), 2) ** 2,
                 [_distinct(32).reshape(2, 1, 4, 4)]),
    "psroi_pool": (lambda x: oar.vision.ops.psroi_pool(x ** 2, *map(oar.to_tensor, _BOXES), 2) ** 2,
                   [_x(2, 4, 4, 4)]),
    "roi_align": (lambda x: oar.vision.ops.roi_align(x ** 2, *map(oar.to_tensor, _BOXES), 2) ** 2,
                  [_x(2, 1, 4, 4)]),
}


@pytest.mark.parametrize("name", sorted(VISION_CASES))
def test_second_order_vision(name):
    f, arrays = VISION_CASES[name]
    check(f, arrays)


# ---- every op-table row: second order of sum(out^2 * w) against finite differences (no silent zero) ----------------

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
from op_table import CASES as TABLE  # noqa: E402


def _table_rows():
    rows, seen = [], set()
    for c in TABLE:
        op = c.name.split("[")[0]
        if not c.diff or op in seen or "random" in c.tags or sum(c.inputs[i].size for i in c.diff) > 24 \
                or any(c.inputs[i].dtype != np.float64 for i in c.diff):
            continue
        seen.add(op)
        rows.append(c)
    return rows


def _float_outs(r):
    return [o for o in (list(r) if isinstance(r, (tuple, list)) else [r]) if o.dtype.kind == "f"]


def _table_first(case, arrays, weights, create_graph):
    ts = [oar.to_tensor(a, stop_gradient=i not in case.diff) for i, a in enumerate(arrays)]
    loss = None
    for o, w in zip(_float_outs(case.fn(*ts)), weights):
        term = (o * o * oar.to_tensor(w)).sum()  # squared: a linear op has a second derivative too
        loss = term if loss is None else loss + term
    wanted = [ts[i] for i in case.diff]
    return wanted, oar.grad(loss, wanted, create_graph=create_graph, allow_unused=True)


@pytest.mark.parametrize("case", _table_rows(), ids=repr)
def test_op_table_second_order(case):
    rng = np.random.default_rng(11)
    weights = [rng.standard_normal(o.shape) for o in _float_outs(case.fn(*case.tensors()))]
    vs = [rng.standard_normal(case.inputs[i].shape) for i in case.diff]
    wanted, grads = _table_first(case, [a.copy() for a in case.inputs], weights, True)
    total = None
    for g, v in zip(grads, vs):
        if g is not None and not g.stop_gradient:
            term = (g * oar.to_tensor(v)).sum()
            total = term if total is None else total + term
    second = oar.grad(total, wanted, allow_unused=True) if total is not None else [None] * len(wanted)

    def project(*arrays):
        return sum(float((g.numpy() * v).sum()) for g, v in zip(_table_first(case, list(arrays), weights, False)[1],
                                                                 vs) if g is not None)
    for slot, i in enumerate(case.diff):
        num = numeric_grad(project, case.inputs, i)
        got = np.zeros_like(num) if second[slot] is None else second[slot].numpy()
        np.testing.assert_allclose(got, num, rtol=1e-4, atol=1e-5, err_msg=f"{case.name}: second order, input {i}")
