"""Whole models exported to ONNX: checker passes, onnxruntime equals eager, dynamic batch works; control flow as
If/Loop; clear errors for what cannot be exported."""
import os

import numpy as np
import pytest

from onnx_helpers import eager, export_model, onnx, run  # noqa: E402  (skips without onnx/onnxruntime)

import oar  # noqa: E402
import oar.nn.functional as F  # noqa: E402
from oar.static import InputSpec  # noqa: E402
from oar.vision.models import LeNet, mobilenet_v2, resnet18  # noqa: E402


def _check_model(net, spec, batches, rtol=1e-4, atol=1e-5):
    net.eval()
    _, model, sess = export_model(net, spec)
    for x in batches:
        expected = net(oar.to_tensor(x)).numpy()
        # float32 rounding grows with the outputs' scale: an output near 0 beside outputs near 30 differs by ~1e-5
        # between two correct conv algorithms (onnxruntime 1.32 vs eager), so atol is relative to the largest output
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(run(sess, [x])[0], expected, rtol=rtol, atol=atol * scale)
    return model


def _images(shape, *batches):
    r = np.random.default_rng(1)
    return [r.standard_normal([b] + shape).astype(np.float32) for b in batches]


def test_lenet_dynamic_batch():
    oar.seed(0)
    net = LeNet()
    model = _check_model(net, [InputSpec([None, 1, 28, 28], "float32", "image")], _images([1, 28, 28], 2, 5))
    inp = model.graph.input[0]
    assert inp.name == "image"
    dims = inp.type.tensor_type.shape.dim
    assert dims[0].dim_param and [d.dim_value for d in dims[1:]] == [1, 28, 28]
    inits = {i.name for i in model.graph.initializer}
    # weights keep their program names (conv biases are reshaped, and constant folding makes that a new constant)
    assert {p.name for p in net.parameters() if ".w_" in p.name} <= inits


def test_resnet18_small_resolution():
    oar.seed(0)
    net = resnet18(num_classes=10)
    model = _check_model(net, [InputSpec([None, 3, 32, 32], "float32", "image")], _images([3, 32, 32], 2, 3))
    types = {n.op_type for n in model.graph.node}
    assert "BatchNormalization" not in types  # folded into the convolutions, as the predictor does
    assert {"Conv", "MaxPool", "GlobalAveragePool"} <= types


def test_mobilenet_v2():
    oar.seed(0)
    _check_model(mobilenet_v2(num_classes=7, scale=0.5), [InputSpec([None, 3, 32, 32], "float32", "x")],
                 _images([3, 32, 32], 1, 2))


class IfMLP(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = oar.nn.Linear(4, 8)
        self.fc2 = oar.nn.Linear(8, 3)
        self.drop = oar.nn.Dropout(0.5)

    @oar.jit.to_static
    def forward(self, x):
        h = self.drop(F.relu(self.fc1(x)))
        if h.mean() > 0.5:  # data-dependent: becomes a cond op, exported as ONNX If
            y = self.fc2(h) * 2.0
        else:
            y = -self.fc2(h)
        return F.softmax(y)


def test_data_dependent_if():
    oar.seed(2)
    net = IfMLP()
    net.eval()
    _, model, sess = export_model(net, [InputSpec([None, 4], "float32", "x")])
    assert "If" in {n.op_type for n in model.graph.node}
    seen = set()
    for scale in (0.01, 3.0):
        for b in (1, 6):
            x = (np.random.default_rng(b).random((b, 4)) * scale).astype(np.float32)
            seen.add(bool(net.fc1(oar.to_tensor(x)).numpy().clip(0).mean() > 0.5))
            np.testing.assert_allclose(run(sess, [x])[0], net(oar.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)
    assert seen == {True, False}  # both branches ran


def test_while_loop_as_onnx_loop():
    def fn(x):
        i = oar.zeros([1], "int64")
        while x.sum() < 100.0:  # tensor-dependent loop: a while op, exported as ONNX Loop
            x = x * 2.0 + 1.0
            i = i + 1
        return x, i

    spec = [InputSpec([None, 3], "float32", "x")]
    _, model, sess = export_model(oar.jit.to_static(fn), spec)
    assert "Loop" in {n.op_type for n in model.graph.node}
    for x in (np.full((2, 3), 0.5, np.float32), np.full((1, 3), 60.0, np.float32)):
        got = run(sess, [x])
        want = eager(fn, [x])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_nested_cond_with_outer_write():
    def fn(x):
        y = x + 1.0
        if x.sum() > 0:
            if x.max() > 1.0:
                y = y * 3.0
            else:
                y = y - 3.0
        else:
            y = x * 0.5
        return y

    _, _, sess = export_model(oar.jit.to_static(fn), [InputSpec([2, 2], "float32", "x")])
    for x in ([[0.1, 0.2], [0.3, 0.4]], [[2.0, 0.2], [0.3, 0.4]], [[-2.0, 0.2], [0.3, 0.4]]):
        x = np.asarray(x, np.float32)
        np.testing.assert_allclose(run(sess, [x])[0], eager(fn, [x])[0], rtol=1e-6)


def test_dynamic_spatial_same_padding():
    w = oar.to_tensor(np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32))
    fn = lambda x: F.max_pool2d(F.conv2d(x, w, padding="SAME", stride=2), 2, ceil_mode=False)  # noqa: E731
    _, _, sess = export_model(fn, [InputSpec([None, 3, None, None], "float32", "x")])
    for shape in ((1, 3, 9, 9), (2, 3, 12, 7)):
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(run(sess, [x])[0], eager(fn, [x])[0], rtol=1e-5, atol=1e-5)


def test_paddle_style_path_and_output_name(tmp_path):
    d = str(tmp_path)
    fn = oar.jit.to_static(lambda x: F.relu(x))
    out = oar.onnx.export(fn, os.path.join(d, "sub", "model"), input_spec=[InputSpec([None, 2], "float32", "x")])
    assert out == os.path.join(d, "sub", "model.onnx") and os.path.exists(out)
    m = onnx.load(out)
    assert [i.name for i in m.graph.input] == ["x"] and len(m.graph.output) == 1


def test_unsupported_ops_are_listed():
    def fn(x):
        return oar.sort(x) + oar.atan2(x, x)

    with pytest.raises(NotImplementedError) as e:
        export_model(oar.jit.to_static(fn), [InputSpec([4], "float32", "x")])
    msg = str(e.value)
    assert "sort" in msg and "atan2" in msg and "test_models.py" in msg
    assert "atan2 (not lowered yet)" in msg  # each op's declared OpDef.onnx_reason


def test_pool_mask_output_is_a_clear_error():
    def fn(x):
        out, mask = F.max_pool2d(x, 2, return_mask=True)
        return out, mask

    with pytest.raises(NotImplementedError, match="max_pool2d"):
        export_model(oar.jit.to_static(fn), [InputSpec([1, 1, 4, 4], "float32", "x")])


def test_bad_config_and_old_opset(tmp_path):
    fn = oar.jit.to_static(lambda x: x + 1.0)
    spec = [InputSpec([2], "float32", "x")]
    with pytest.raises(ValueError, match="unknown config"):
        oar.onnx.export(fn, str(tmp_path / "m"), input_spec=spec, bogus=1)
    with pytest.raises(ValueError, match="opset_version 9"):
        oar.onnx.export(fn, str(tmp_path / "m"), input_spec=spec, opset_version=9)


def test_training_layer_is_exported_in_eval_mode_and_restored():
    oar.seed(0)
    net = oar.nn.Sequential(oar.nn.Linear(3, 4), oar.nn.BatchNorm1D(4), oar.nn.Dropout(0.5))
    net.train()
    _, model, sess = export_model(net, [InputSpec([None, 3], "float32", "x")])
    assert net.training
    net.eval()
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(run(sess, [x])[0], net(oar.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_print_and_assert_pass_values_through():
    from oar.graph.debug_ops import Print

    def fn(x):
        y = Print(x * 2.0, message="y")
        return y + 1.0

    _, model, sess = export_model(oar.jit.to_static(fn), [InputSpec([3], "float32", "x")])
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(run(sess, [x])[0], x * 2 + 1)


def test_identity_and_repeated_outputs():
    fn = oar.jit.to_static(lambda x: (x, x * 2.0, x))
    _, model, sess = export_model(fn, [InputSpec([None, 2], "float32", "x")])
    assert len({o.name for o in model.graph.output}) == 3
    x = np.ones((3, 2), np.float32)
    got = run(sess, [x])
    np.testing.assert_allclose(got[0], x)
    np.testing.assert_allclose(got[1], x * 2)
    np.testing.assert_allclose(got[2], x)


def test_tensor_array_loop_is_a_clear_error():
    def fn(x):
        outs = []
        i = oar.zeros([1], "int64")
        while i < x.shape[0]:
            outs.append(x[i] * 2.0)
            i = i + 1
        return oar.stack(outs)

    with pytest.raises(NotImplementedError) as e:
        export_model(oar.jit.to_static(fn), [InputSpec([3, 2], "float32", "x")])
    assert "array_" in str(e.value) and "test_models.py" in str(e.value)
