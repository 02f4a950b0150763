"""Paddle's module layout and the attributes model code touches (issue 23): model libraries import layers from
`paddle.nn.layer.<family>`, functions from `paddle.nn.functional.<family>`, helpers from `paddle.base.*`,
`paddle.framework`, `paddle.incubate`, `paddle.static.amp`, `paddle.vision`, `paddle.utils.download`; they read
`layer._name` / `layer._full_name`, call initializers as ``init(param, param.block)`` and branch on
``paddle.framework.use_pir_api()``."""
import importlib
import inspect

import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F

# (module as real code imports it, name, the object it must be: one definition reached by two paths)
_SAME = [
    ("oar.nn.layer.layers", "Layer", lambda: nn.Layer),
    ("oar.nn.layer", "Layer", lambda: nn.Layer),
    ("oar.nn.layer.activation", "ReLU", lambda: nn.ReLU),
    ("oar.nn.layer.activation", "Hardshrink", lambda: nn.Hardshrink),
    ("oar.nn.layer.common", "Linear", lambda: nn.Linear),
    ("oar.nn.layer.common", "Unfold", lambda: nn.Unfold),
    ("oar.nn.layer.container", "Sequential", lambda: nn.Sequential),
    ("oar.nn.layer.conv", "Conv2D", lambda: nn.Conv2D),
    ("oar.nn.layer.loss", "CrossEntropyLoss", lambda: nn.CrossEntropyLoss),
    ("oar.nn.layer.norm", "BatchNorm2D", lambda: nn.BatchNorm2D),
    ("oar.nn.layer.pooling", "AdaptiveAvgPool2D", lambda: nn.AdaptiveAvgPool2D),
    ("oar.nn.layer.rnn", "LSTM", lambda: nn.LSTM),
    ("oar.nn.layer.transformer", "TransformerEncoderLayer", lambda: nn.TransformerEncoderLayer),
    ("oar.nn.functional.activation", "softshrink", lambda: F.softshrink),
    ("oar.nn.functional.common", "unfold", lambda: F.unfold),
    ("oar.nn.functional.common", "label_smooth", lambda: F.label_smooth),
    ("oar.nn.functional.conv", "conv2d", lambda: F.conv2d),
    ("oar.nn.functional.input", "one_hot", lambda: F.one_hot),
    ("oar.nn.functional.loss", "multi_label_soft_margin_loss", lambda: F.multi_label_soft_margin_loss),
    ("oar.nn.functional.norm", "batch_norm", lambda: F.batch_norm),
    ("oar.nn.functional.pooling", "adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d),
    ("oar.nn.functional.vision", "pixel_shuffle", lambda: F.pixel_shuffle),
    ("oar.nn.functional.flash_attention", "scaled_dot_product_attention", lambda: F.scaled_dot_product_attention),
    ("oar.base", "ParamAttr", lambda: oar.ParamAttr),
    ("oar.base.param_attr", "ParamAttr", lambda: oar.ParamAttr),
    ("oar.base.framework", "Variable", lambda: oar.static.Variable),
    ("oar.base.framework", "Parameter", lambda: oar.Parameter),
    ("oar.base.framework", "default_main_program", lambda: oar.static.default_main_program),
    ("oar.base.dygraph", "Layer", lambda: nn.Layer),
    ("oar.base.dygraph", "no_grad", lambda: oar.no_grad),
    ("oar.framework", "Program", lambda: oar.static.Program),
    ("oar.framework", "core", lambda: oar.base.core),
    ("oar.vision", "resnet50", lambda: oar.vision.models.resnet50),
    ("oar.vision", "Compose", lambda: oar.vision.transforms.Compose),
    ("oar.vision", "MNIST", lambda: oar.vision.datasets.MNIST),
    ("oar.utils.download", "get_path_from_url", lambda: oar.dataset.download.get_path_from_url),
]


@pytest.mark.parametrize("module,name,want", _SAME, ids=[f"{m}.{n}" for m, n, _ in _SAME])
def test_paddle_module_paths(module, name, want):
    assert getattr(importlib.import_module(module), name) is want()


def test_functional_submodules_cover_the_namespace():
    """Every function `oar.nn.functional` exports is in one of Paddle's submodules (no name only reachable from the
    package, as real code imports by submodule)."""
    subs = ["activation", "common", "conv", "input", "loss", "norm", "pooling", "vision", "flash_attention", "distance",
            "extension"]
    found = {n for s in subs for n in dir(importlib.import_module(f"oar.nn.functional.{s}"))}
    public = {n for n, v in vars(F).items() if callable(v) and not n.startswith("_") and not inspect.ismodule(v)}
    assert public - found == {"flatten"}  # Paddle exposes flatten at F's top only


def test_vision_top_level_lists_every_model():
    import oar.vision.models as models
    assert set(oar.vision._MODELS) == set(models.__all__)
    assert oar.vision.resnet18(num_classes=3)(oar.ones([1, 3, 32, 32])).shape == [1, 3]


def test_layer_name_and_full_name():
    assert nn.AdaptiveAvgPool2D(1)._name is None  # Paddle's AdaptiveAvgPool2D has `_name` (None)
    assert nn.Layer()._name is None
    named = [nn.ReLU(name="r"), nn.Hardshrink(name="r"), nn.Linear(2, 2, name="r"), nn.MaxPool2D(2, name="r"),
             nn.AdaptiveAvgPool2D(1, name="r"), nn.BatchNorm2D(2, name="r"), nn.CrossEntropyLoss(name="r"),
             nn.Softmax(name="r"), nn.Unfold(2, name="r"), nn.LSTM(2, 3, name="r")]
    assert [m._name for m in named] == ["r"] * len(named)
    first = nn.Conv2D(1, 1, 1)
    second = nn.Conv2D(1, 1, 1)
    assert first._full_name.startswith("conv2d_") and first._full_name != second._full_name
    assert first.full_name() == first._full_name


_ARGS = {"in_features": 2, "out_features": 2, "in1_features": 2, "in2_features": 2, "num_embeddings": 4,
         "embedding_dim": 2, "kernel_size": 2, "kernel_sizes": 2, "output_size": 1, "num_features": 2,
         "normalized_shape": 2, "num_groups": 1, "num_channels": 2, "size": 2, "input_size": 2, "hidden_size": 2,
         "upscale_factor": 2, "downscale_factor": 2, "padding": 1, "output_sizes": [2, 2], "cell": None, "groups": 2,
         "axis": 1, "shape": [2, 1]}


def test_every_layer_taking_a_name_keeps_it():
    """A `name` argument is never accepted and dropped: each layer class taking one stores it in `_name`."""
    import oar.nn.layer as layer_pkg
    checked = 0
    for mod in (layer_pkg.activation, layer_pkg.common, layer_pkg.loss, layer_pkg.norm, layer_pkg.pooling,
                layer_pkg.rnn):
        for cls in vars(mod).values():
            if not (isinstance(cls, type) and issubclass(cls, nn.Layer)) or cls.__module__ != mod.__name__ or \
                    cls.__name__.startswith("_"):
                continue
            params = inspect.signature(cls.__init__).parameters
            if "name" not in params or "cell" in params or "cell_fw" in params:
                continue
            need = {k: _ARGS[k] for k, p in params.items() if k not in ("self", "name") and
                    p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD}
            assert cls(**need, name="given")._name == "given", cls.__name__
            checked += 1
    assert checked > 50


def test_initializer_called_with_param_block():
    """PaddleClas / PaddleSeg idiom: ``init(param, param.block)`` on an eager parameter."""
    p = nn.Linear(3, 2).weight
    assert p.block is oar.static.default_main_program().global_block()
    nn.initializer.Constant(2.5)(p, p.block)
    np.testing.assert_array_equal(p.numpy(), np.full([3, 2], 2.5, np.float32))
    nn.initializer.Normal(0.0, 0.0)(p, p.block)
    np.testing.assert_array_equal(p.numpy(), np.zeros([3, 2], np.float32))


def test_framework_mode_queries():
    assert oar.framework.use_pir_api() is False  # oar's static programs are Variable-based (legacy static API)
    assert oar.framework.in_pir_mode() is False
    assert oar.framework.in_dynamic_or_pir_mode() is True
    oar.enable_static()
    try:
        assert oar.framework.in_dynamic_or_pir_mode() is False
        assert oar.base.framework.in_dygraph_mode() is False
    finally:
        oar.disable_static()


def test_unique_name_generate_and_guard():
    from oar.base import unique_name
    with unique_name.guard():
        assert [unique_name.generate("fc"), unique_name.generate("fc"), unique_name.generate("w")] == \
            ["fc_0", "fc_1", "w_0"]
        assert nn.Linear(2, 2)._full_name == "linear_0"  # the counters that name layers
        with unique_name.guard("block1/"):
            assert unique_name.generate("fc") == "block1/fc_0"
        assert unique_name.generate("fc") == "fc_2"
    with pytest.raises(TypeError, match="name prefix"):
        with unique_name.guard(3):
            pass


def test_data_feeder_checks():
    from oar.base.data_feeder import check_dtype, check_type, check_variable_and_dtype, convert_dtype
    assert [convert_dtype(oar.float16), convert_dtype(np.int64), convert_dtype("bool")] == \
        ["float16", "int64", "bool"]
    check_variable_and_dtype(oar.ones([2], "float64"), "x", ["float32", "float64"], "op")
    with pytest.raises(TypeError, match="must be \\['float32'\\]"):
        check_dtype(oar.int32, "x", ["float32"], "op")
    with pytest.raises(TypeError, match="must be a Tensor"):
        check_variable_and_dtype([1.0], "x", ["float32"], "op")
    with pytest.raises(TypeError, match="'x' in op"):
        check_type(1.0, "x", int, "op")


def test_convert_param_attr_to_list():
    from oar.nn.layer.transformer import _convert_param_attr_to_list as conv
    named = conv(oar.ParamAttr(name="w", learning_rate=0.5), 3)
    assert [a.name for a in named] == ["w_0", "w_1", "w_2"] and named[0] is not named[1]
    assert all(a.learning_rate == 0.5 for a in named)
    assert conv(False, 2) == [False, False]
    assert [isinstance(a, oar.ParamAttr) for a in conv(None, 2)] == [True, True]
    mixed = conv([oar.ParamAttr(name="a"), False, True], 3)
    assert mixed[0].name == "a" and mixed[1] is False and isinstance(mixed[2], oar.ParamAttr)
    with pytest.raises(ValueError, match="3 entries"):
        conv([None, None], 3)


def test_fused_linear_matches_matmul_and_names():
    from oar.incubate.nn import FusedLinear
    from oar.incubate.nn.functional import fused_linear, fused_matmul_bias
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((4, 3)).astype("float32"))
    layer = FusedLinear(3, 2, transpose_weight=True)
    assert layer.weight.shape == [2, 3] and layer.weight.name.startswith("fused_linear_")
    want = x.numpy() @ layer.weight.numpy().T + layer.bias.numpy()
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(fused_linear(x, layer.weight, layer.bias, True).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(fused_matmul_bias(x, layer.weight, None, False, True).numpy(),
                               x.numpy() @ layer.weight.numpy().T, rtol=1e-6)
    assert FusedLinear(3, 2, bias_attr=False).bias is None


def test_swiglu_and_identity_loss_match_paddle():
    from oar.incubate import identity_loss
    from oar.incubate.nn.functional import swiglu
    # Paddle 3.3.1: swiglu([[1, 2, 3, 4]]) = [[2.1931758, 7.046376]]; identity_loss([1, 2]): mean 1.5, sum (0) 3
    np.testing.assert_allclose(swiglu(oar.to_tensor([[1.0, 2.0, 3.0, 4.0]])).numpy(), [[2.1931758, 7.046376]],
                               rtol=1e-6)
    np.testing.assert_allclose(F.swiglu(oar.to_tensor([[1.0, 2.0]]), oar.to_tensor([[3.0, 4.0]])).numpy(),
                               [[2.1931758, 7.046376]], rtol=1e-6)
    x = oar.to_tensor([1.0, 2.0])
    assert identity_loss(x, "mean").item() == 1.5 and identity_loss(x, 0).item() == 3.0
    assert identity_loss(x, 2).numpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError):
        swiglu(oar.ones([2, 3]))


def test_conv_norm_activation_is_conv_bn_relu():
    from oar.vision.ops import ConvNormActivation
    oar.seed(3)
    m = ConvNormActivation(3, 4, kernel_size=3, stride=2)
    m.eval()
    x = oar.to_tensor(np.random.default_rng(1).standard_normal((2, 3, 9, 9)).astype("float32"))
    conv, bn = m[0], m[1]
    want = F.relu(F.batch_norm(F.conv2d(x, conv.weight, stride=2, padding=1), bn._mean, bn._variance, bn.weight,
                               bn.bias, training=False))
    np.testing.assert_allclose(m(x).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    assert conv.bias is None  # a norm layer follows: no conv bias (Paddle's rule)
    plain = ConvNormActivation(3, 4, norm_layer=None, activation_layer=None)
    assert list(plain.state_dict()) == ["0.weight", "0.bias"] and len(plain) == 1


def test_fp16_guard_changes_nothing_in_dynamic_mode():
    with oar.static.amp.fp16_guard():
        y = oar.ones([2]) * 3
    assert y.dtype == oar.float32 and y.numpy().tolist() == [3.0, 3.0]


def test_get_weights_path_from_url_uses_the_weights_cache(tmp_path, monkeypatch):
    from oar.utils import download
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    (tmp_path / "resnet18.pdparams").write_bytes(b"w")
    got = download.get_weights_path_from_url("https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams")
    assert got == str(tmp_path / "resnet18.pdparams")
    assert download.is_url("http://a/b") and not download.is_url("a/b")


def test_initializer_helpers():
    init = nn.initializer
    # Paddle 3.3.1's calculate_gain values
    assert [init.calculate_gain(n) for n in ["sigmoid", "linear", "conv2d", "tanh", "relu", "selu"]] == \
        pytest.approx([1, 1, 1, 5 / 3, 2 ** 0.5, 0.75])
    assert init.calculate_gain("leaky_relu", 0.1) == pytest.approx(1.4071950894605838)
    w = nn.Linear(30, 20, weight_attr=oar.ParamAttr(initializer=init.XavierUniform())).weight.numpy()
    bound = (6 / (30 + 20)) ** 0.5
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    init.set_global_initializer(init.Constant(0.25), init.Constant(-1.0))
    try:
        layer = nn.Linear(3, 2)
        assert (layer.weight.numpy() == 0.25).all() and (layer.bias.numpy() == -1.0).all()
    finally:
        init.set_global_initializer(None)
    assert not (nn.Linear(3, 2).weight.numpy() == 0.25).all()


@pytest.mark.parametrize("arch,convs", [("vgg11", 8), ("vgg13", 10), ("vgg19", 16)])
def test_vgg_variants(arch, convs):
    model = getattr(oar.vision.models, arch)(num_classes=0)
    assert sum(isinstance(m, nn.Conv2D) for m in model.sublayers()) == convs
    assert model(oar.ones([1, 3, 32, 32])).shape == [1, 512, 7, 7]


def test_tensor_grad_helpers():
    x = oar.ones([2])
    x.stop_gradient = False
    y = x * 2
    y.retain_grads()
    (y * 3).sum().backward()
    assert y.grad.numpy().tolist() == [3.0, 3.0] and x.grad.numpy().tolist() == [6.0, 6.0]
    x.clear_gradient(set_to_zero=True)
    assert x.grad.numpy().tolist() == [0.0, 0.0]
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None
    assert x.is_tensor() and oar.is_tensor(x) and not oar.is_tensor(np.ones(2))


def test_clip_grad_norm_and_value_match_paddle():
    """The gradients of sum(linear(x)) do not depend on the weights, so Paddle 3.3.1's numbers carry over."""
    layer = nn.Linear(3, 2)
    x = oar.arange(6, dtype="float32").reshape([2, 3])
    layer(x).sum().backward()
    total = nn.utils.clip_grad_norm_(layer.parameters(), 1.0, norm_type=float("inf"))
    assert total.item() == pytest.approx(7.0)
    np.testing.assert_allclose(layer.bias.grad.numpy(), [0.28571424, 0.28571424], rtol=1e-6)
    layer(x).sum().backward()  # accumulates onto the clipped gradients
    total = nn.utils.clip_grad_norm_(layer.parameters(), 100.0, norm_type=1)
    assert total.item() == pytest.approx(38.85714, rel=1e-6)
    np.testing.assert_allclose(layer.bias.grad.numpy(), [2.2857141, 2.2857141], rtol=1e-6)  # below max: unchanged
    nn.utils.clip_grad_value_(layer.parameters(), 0.5)
    assert np.abs(layer.weight.grad.numpy()).max() == 0.5
    layer2 = nn.Linear(2, 1, bias_attr=False)
    layer2.weight.grad = oar.to_tensor([[3.0], [4.0]])
    assert nn.utils.clip_grad_norm_(layer2.parameters(), 1.0).item() == pytest.approx(5.0)
    np.testing.assert_allclose(layer2.weight.grad.numpy(), [[0.6], [0.8]], rtol=1e-5)
    layer2.weight.grad = oar.to_tensor([[np.inf], [1.0]])
    with pytest.raises(RuntimeError, match="not finite"):
        nn.utils.clip_grad_norm_(layer2.parameters(), 1.0, error_if_nonfinite=True)
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0


def test_layer_package_names_the_classes():
    from oar.nn.layer import Conv2D, Hardshrink, LSTM, Linear, Sequential
    assert (Conv2D, Hardshrink, LSTM, Linear, Sequential) == (nn.Conv2D, nn.Hardshrink, nn.LSTM, nn.Linear,
                                                              nn.Sequential)


def test_segment_pooling_matches_paddle():
    """Paddle 3.3.1's values and gradients, ties of the max / min included (each tied row gets the gradient)."""
    import oar.geometric as G
    weights = oar.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    want = {"segment_sum": ([[4, 4], [0, 0], [4, 9]], [[1, 2], [1, 2], [5, 6], [5, 6]]),
            "segment_mean": ([[2, 2], [0, 0], [2, 4.5]], [[0.5, 1], [0.5, 1], [2.5, 3], [2.5, 3]]),
            "segment_max": ([[3, 2], [0, 0], [4, 5]], [[0, 2], [1, 2], [0, 6], [5, 0]]),
            "segment_min": ([[1, 2], [0, 0], [0, 4]], [[1, 2], [0, 2], [5, 0], [0, 6]])}
    for name, (value, grad) in want.items():
        d = oar.to_tensor([[1.0, 2.0], [3.0, 2.0], [0.0, 5.0], [4.0, 4.0]], stop_gradient=False)
        out = getattr(G, name)(d, oar.to_tensor([0, 0, 2, 2]))
        (out * weights).sum().backward()
        assert out.numpy().tolist() == value and d.grad.numpy().tolist() == grad, name
        assert getattr(oar.incubate, name) is getattr(G, name)
    assert G.segment_mean(oar.to_tensor([1, 2, 4]), oar.to_tensor([0, 1, 1])).numpy().tolist() == [1, 3]
    with pytest.raises(ValueError, match="sorted"):
        G.segment_sum(oar.ones([3, 2]), oar.to_tensor([1, 0, 2]))
    with pytest.raises(TypeError, match="int32 or int64"):
        G.segment_sum(oar.ones([2, 2]), oar.to_tensor([0.0, 1.0]))
