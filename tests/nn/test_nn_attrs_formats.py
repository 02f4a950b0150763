"""Paddle's parameter names, `weight_attr`/`bias_attr` (incl. False) on every layer with parameters, NHWC paths
against NCHW, 'same' padding (Paddle resets the dilation) and transposed-convolution gradients."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from nn_gradcheck import check_grad, check_layer_grad

rng = np.random.default_rng(11)
Const = nn.initializer.Constant


def test_parameter_names_follow_paddle():
    """Paddle's camel-to-snake rule keeps a digit attached: Conv2D -> conv2d_N.w_0."""
    for make, prefix in [(lambda: nn.Conv2D(1, 2, 3), "conv2d_"), (lambda: nn.BatchNorm2D(2), "batch_norm2d_"),
                         (lambda: nn.Conv2DTranspose(1, 2, 3), "conv2d_transpose_"), (lambda: nn.PReLU(), "p_re_lu_"),
                         (lambda: nn.Linear(2, 2), "linear_"), (lambda: nn.LSTMCell(2, 3), "lstm_cell_")]:
        layer = make()
        assert layer.full_name().startswith(prefix), layer.full_name()
        names = [p.name for p in layer.parameters()]
        assert names[0] == layer.full_name() + ".w_0", names
    conv = nn.Conv2D(1, 2, 3)
    assert [p.name for p in conv.parameters()] == [conv.full_name() + ".w_0", conv.full_name() + ".b_0"]


# (factory taking **attrs, weight attr names, bias attr names)
LAYERS = [
    (lambda **k: nn.Linear(3, 4, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Bilinear(3, 2, 4, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Conv1D(2, 4, 3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Conv2D(2, 4, 3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Conv3D(2, 4, 3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Conv1DTranspose(2, 4, 3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Conv2DTranspose(2, 4, 3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Conv3DTranspose(2, 4, 3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.LayerNorm(3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.InstanceNorm2D(3, **k), ["weight_attr"], ["bias_attr"]),
    (lambda **k: nn.Embedding(5, 3, **k), ["weight_attr"], []),
    (lambda **k: nn.PReLU(**k), ["weight_attr"], []),
    (lambda **k: nn.SimpleRNNCell(2, 3, **k), ["weight_ih_attr", "weight_hh_attr"], ["bias_ih_attr", "bias_hh_attr"]),
    (lambda **k: nn.LSTMCell(2, 3, **k), ["weight_ih_attr", "weight_hh_attr"], ["bias_ih_attr", "bias_hh_attr"]),
    (lambda **k: nn.GRUCell(2, 3, **k), ["weight_ih_attr", "weight_hh_attr"], ["bias_ih_attr", "bias_hh_attr"]),
    (lambda **k: nn.SimpleRNN(2, 3, **k), ["weight_ih_attr", "weight_hh_attr"], ["bias_ih_attr", "bias_hh_attr"]),
    (lambda **k: nn.LSTM(2, 3, num_layers=2, direction="bidirect", **k), ["weight_ih_attr", "weight_hh_attr"],
     ["bias_ih_attr", "bias_hh_attr"]),
    (lambda **k: nn.GRU(2, 3, **k), ["weight_ih_attr", "weight_hh_attr"], ["bias_ih_attr", "bias_hh_attr"]),
    (lambda **k: nn.MultiHeadAttention(4, 2, **k), ["weight_attr"], ["bias_attr"]),
]


@pytest.mark.parametrize("make,wkeys,bkeys", LAYERS, ids=[str(i) for i in range(len(LAYERS))])
def test_weight_attr_and_bias_attr_false(make, wkeys, bkeys):
    layer = make(**{k: oar.ParamAttr(initializer=Const(0.25)) for k in wkeys})
    weights = [p for n, p in layer.named_parameters() if "bias" not in n.rsplit(".", 1)[-1]]
    assert weights and all(np.all(p.numpy() == 0.25) for p in weights)
    assert any("bias" in n for n, _ in layer.named_parameters()) == bool(bkeys)
    if bkeys:
        no_bias = make(**{k: False for k in bkeys})
        assert not any("bias" in n for n, _ in no_bias.named_parameters())
        assert len(no_bias.parameters()) == len(weights)


@pytest.mark.parametrize("make", [lambda **k: nn.BatchNorm2D(3, **k), lambda **k: nn.GroupNorm(3, 3, **k)])
def test_norm_attr_false_keeps_fixed_parameters(make):
    """Paddle 2.x BatchNorm/GroupNorm: attr=False gives a constant (1 or 0), non-trainable parameter."""
    layer = make(weight_attr=False, bias_attr=False)
    np.testing.assert_array_equal(layer.weight.numpy(), 1.0)
    np.testing.assert_array_equal(layer.bias.numpy(), 0.0)
    assert layer.weight.stop_gradient and layer.bias.stop_gradient
    x = rng.normal(size=(2, 3, 4, 4))
    ref = make()(oar.to_tensor(x)).numpy()
    np.testing.assert_allclose(layer(oar.to_tensor(x)).numpy(), ref, rtol=1e-5, atol=1e-6)


X = rng.normal(size=(2, 4, 6, 6))
W_T = rng.normal(size=(4, 3, 3, 3))
NHWC = {
    "conv2d": lambda fmt: lambda t: F.conv2d(t, oar.to_tensor(W_T.transpose(1, 0, 2, 3)), stride=2, padding=1,
                                             data_format=fmt),
    "conv2d_same": lambda fmt: lambda t: F.conv2d(t, oar.to_tensor(W_T.transpose(1, 0, 2, 3)), padding="same",
                                                  data_format=fmt),
    "conv2d_transpose": lambda fmt: lambda t: F.conv2d_transpose(t, oar.to_tensor(W_T), stride=2, padding=1,
                                                                 output_padding=1, data_format=fmt),
    "max_pool2d": lambda fmt: lambda t: F.max_pool2d(t, 3, 2, 1, data_format=fmt),
    "avg_pool2d": lambda fmt: lambda t: F.avg_pool2d(t, 3, 2, 1, exclusive=False, data_format=fmt),
    "adaptive_avg_pool2d": lambda fmt: lambda t: F.adaptive_avg_pool2d(t, [2, 4], data_format=fmt),
    "BatchNorm2D": lambda fmt: nn.BatchNorm2D(4, data_format=fmt),
    "GroupNorm": lambda fmt: nn.GroupNorm(2, 4, data_format=fmt),
    "InstanceNorm2D": lambda fmt: nn.InstanceNorm2D(4, data_format=fmt),
    "Upsample_bilinear": lambda fmt: nn.Upsample(size=[9, 7], mode="bilinear", data_format=fmt),
    "Upsample_nearest": lambda fmt: nn.Upsample(scale_factor=2, data_format=fmt),
    "PixelShuffle": lambda fmt: nn.PixelShuffle(2, data_format=fmt),
}


@pytest.mark.parametrize("name", list(NHWC))
def test_nhwc_equals_nchw(name):
    a = NHWC[name]("NCHW")(oar.to_tensor(X)).numpy()
    b = NHWC[name]("NHWC")(oar.to_tensor(X.transpose(0, 2, 3, 1))).numpy()
    np.testing.assert_allclose(b, a.transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-12)


def test_conv_layers_nhwc_share_weights_with_nchw():
    for cls, kw in [(nn.Conv2D, dict(padding=1, padding_mode="reflect")), (nn.Conv2DTranspose, dict(stride=2))]:
        oar.seed(5)
        a = cls(4, 2, 3, **kw)
        oar.seed(5)
        b = cls(4, 2, 3, data_format="NHWC", **kw)
        ya = a(oar.to_tensor(X)).numpy()
        yb = b(oar.to_tensor(X.transpose(0, 2, 3, 1))).numpy()
        np.testing.assert_allclose(yb, ya.transpose(0, 2, 3, 1), rtol=1e-10)


def test_same_padding_resets_dilation_as_paddle():
    """Paddle's UpdatePaddingAndDilation: with 'same' the dilation is set to 1."""
    x, w = oar.to_tensor(X), oar.to_tensor(W_T.transpose(1, 0, 2, 3))
    same_dil = F.conv2d(x, w, padding="same", dilation=2).numpy()
    np.testing.assert_allclose(same_dil, F.conv2d(x, w, padding=1).numpy(), rtol=1e-12)
    # transposed 'same': the input is padded as a forward 'same' conv of the input would be
    y = F.conv2d_transpose(oar.ones([1, 4, 5, 5]), oar.ones([4, 2, 3, 3]), stride=2, padding="same")
    assert y.shape == [1, 2, 9, 9]  # (5-1)*2 - 2 + 3
    assert F.conv2d_transpose(oar.ones([1, 4, 5, 5]), oar.ones([4, 2, 3, 3]), padding="same").shape == [1, 2, 5, 5]
    assert F.conv2d_transpose(oar.ones([1, 4, 5, 5]), oar.ones([4, 2, 3, 3]), stride=2,
                              padding="valid").shape == [1, 2, 11, 11]


@pytest.mark.parametrize("kw,shapes", [
    (dict(stride=2, padding=1, groups=2), [(1, 4, 3, 3), (4, 2, 3, 3)]),
    (dict(stride=[2, 1], padding=[1, 0], dilation=2), [(2, 2, 3, 4), (2, 3, 2, 3)]),
    (dict(stride=2, output_size=[6, 8]), [(1, 2, 3, 4), (2, 2, 2, 2)]),
    (dict(stride=2, padding="same"), [(1, 2, 3, 3), (2, 2, 3, 3)]),
    (dict(stride=2, padding=1, data_format="NHWC"), [(1, 3, 3, 2), (2, 3, 3, 3)]),
])
def test_conv2d_transpose_gradients(kw, shapes):
    check_grad(lambda x, w: F.conv2d_transpose(x, w, **kw), [rng.normal(size=s) for s in shapes])


def test_conv_transpose_layer_gradients():
    check_layer_grad(nn.Conv2DTranspose(4, 2, 3, stride=2, padding=1, groups=2, data_format="NHWC"),
                     [rng.normal(size=(1, 3, 3, 4))])
    check_layer_grad(nn.Conv1DTranspose(2, 3, 3, stride=2, bias_attr=False), [rng.normal(size=(2, 2, 4))])
    check_grad(lambda x, w: F.conv2d(x, w, stride=2, padding=1, data_format="NHWC"),
               [rng.normal(size=(1, 5, 5, 2)), rng.normal(size=(3, 2, 3, 3))])


def test_create_parameter_in_both_modes():
    from oar.nn.initializer import Constant
    p = oar.create_parameter([2, 3], "float32", attr=oar.ParamAttr(learning_rate=0.5),
                             default_initializer=Constant(2.0))
    assert isinstance(p, oar.Parameter) and not p.stop_gradient
    np.testing.assert_allclose(p.numpy(), np.full([2, 3], 2.0))
    assert p.optimize_attr["learning_rate"] == 0.5
    assert isinstance(oar.static.create_parameter([2], "float32"), oar.Parameter)  # dynamic mode: eager, as Paddle
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            v = oar.create_parameter([4], "float32", name="cp_w", default_initializer=Constant(1.5))
    finally:
        oar.disable_static()
    assert [q.name for q in main.all_parameters()] == ["cp_w"] and v.persistable
    exe = oar.static.Executor()
    scope = oar.static.Scope()
    exe.run(startup, scope=scope)
    np.testing.assert_allclose(np.asarray(scope.find_var("cp_w").get_tensor()), np.full([4], 1.5))


def test_channels_last_pixel_unshuffle_and_lrn_match_channels_first():
    x = rng.standard_normal((2, 3, 4, 6)).astype(np.float32)
    to_nhwc = lambda a: np.ascontiguousarray(a.transpose(0, 2, 3, 1))  # noqa: E731
    ref = F.pixel_unshuffle(oar.to_tensor(x), 2).numpy()
    got = F.pixel_unshuffle(oar.to_tensor(to_nhwc(x)), 2, data_format="NHWC").numpy()
    np.testing.assert_allclose(got, to_nhwc(ref))
    np.testing.assert_allclose(F.pixel_shuffle(oar.to_tensor(to_nhwc(ref)), 2, data_format="NHWC").numpy(),
                               to_nhwc(x))
    ref = nn.LocalResponseNorm(3)(oar.to_tensor(x)).numpy()
    got = nn.LocalResponseNorm(3, data_format="NHWC")(oar.to_tensor(to_nhwc(x))).numpy()
    np.testing.assert_allclose(got, to_nhwc(ref), rtol=1e-6)


def test_max_pool_layers_take_data_format_positionally():
    """Paddle's order: MaxPool2D(kernel_size, stride, padding, return_mask, ceil_mode, data_format)."""
    x = rng.standard_normal((1, 4, 4, 3)).astype(np.float32)
    want = F.max_pool2d(oar.to_tensor(x), 2, data_format="NHWC").numpy()
    got = nn.MaxPool2D(2, 2, 0, False, False, "NHWC")(oar.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, want)
    assert got.shape == (1, 2, 2, 3)
