"""BatchNorm and Dropout: train vs eval, running statistics, modes, and the same functionals in static mode."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from oar.graph import builder
from oar.static import Program

rng = np.random.default_rng(2)


def test_batchnorm_train_updates_running_stats():
    bn = nn.BatchNorm2D(3, momentum=0.9)
    x = rng.normal(2.0, 3.0, size=(4, 3, 5, 5)).astype(np.float32)
    y = bn(oar.to_tensor(x)).numpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    bn.eval()
    y2 = bn(oar.to_tensor(x)).numpy()
    ref2 = (x - bn._mean.numpy()[None, :, None, None]) / np.sqrt(bn._variance.numpy()[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y2, ref2, rtol=1e-4, atol=1e-4)
    before = bn._mean.numpy().copy()
    bn(oar.to_tensor(x))
    np.testing.assert_array_equal(bn._mean.numpy(), before)  # eval leaves the statistics alone


def test_batchnorm_eval_gradient_and_backward_after_update():
    from nn_gradcheck import check_layer_grad
    bn = nn.BatchNorm1D(3)
    bn._mean.set_value(np.array([0.5, -1.0, 2.0], np.float32))
    bn.eval()
    check_layer_grad(bn, [rng.normal(size=(4, 3))])
    bn.train()
    x = oar.to_tensor(rng.normal(size=(4, 3)), stop_gradient=False)
    bn(x).sum().backward()  # running-stat writes must not break the tape
    assert x.grad is not None


def test_batchnorm_nhwc_and_functional():
    x = rng.normal(size=(2, 4, 4, 3))
    rm, rv = oar.to_tensor(np.zeros(3)), oar.to_tensor(np.ones(3))
    y = F.batch_norm(oar.to_tensor(x), rm, rv, oar.to_tensor(np.full(3, 2.0)), oar.to_tensor(np.ones(3)),
                     training=True, data_format="NHWC").numpy()
    ref = (x - x.mean(axis=(0, 1, 2))) / np.sqrt(x.var(axis=(0, 1, 2)) + 1e-5) * 2 + 1
    np.testing.assert_allclose(y, ref, rtol=1e-10)
    np.testing.assert_allclose(rm.numpy(), 0.1 * x.mean(axis=(0, 1, 2)), rtol=1e-10)
    with pytest.raises(ValueError, match="4-D"):
        nn.BatchNorm2D(3)(oar.ones([2, 3]))


def test_dropout_modes():
    x = oar.ones([200, 50])
    oar.seed(3)
    y = F.dropout(x, 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(F.dropout(x, 0.3, training=False).numpy(), 1.0)
    y = F.dropout(x, 0.3, mode="downscale_in_infer").numpy()
    assert set(np.unique(y)) <= {0.0, 1.0}
    np.testing.assert_allclose(F.dropout(x, 0.3, training=False, mode="downscale_in_infer").numpy(), 0.7, rtol=1e-6)
    y = F.dropout(x, 0.5, axis=0).numpy()
    assert all(len(np.unique(r)) == 1 for r in y)  # whole rows kept or dropped
    d2 = nn.Dropout2D(0.5)(oar.ones([4, 6, 3, 3])).numpy()
    assert all(len(np.unique(d2[n, c])) == 1 for n in range(4) for c in range(6))
    layer = nn.Dropout(0.5)
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), 1.0)
    with pytest.raises(ValueError):
        F.dropout(x, 1.5)


def test_dropout_gradient_uses_mask():
    oar.seed(4)
    x = oar.to_tensor(np.ones([10, 10]), stop_gradient=False)
    y = F.dropout(x, 0.4)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.numpy())
    oar.seed(5)
    a = F.dropout(oar.ones([5, 5]), 0.5).numpy()
    oar.seed(5)
    np.testing.assert_array_equal(F.dropout(oar.ones([5, 5]), 0.5).numpy(), a)


def _static_model(layer_fn):
    main, startup = Program(), Program()
    with builder.program_guard(main, startup), builder.static_mode():
        layer = layer_fn()
        x = builder.data("x", [None, 3, 4, 4])
        y = layer(x)
    return main, startup, layer, x, y


def test_batchnorm_and_dropout_build_static_programs():
    def net():
        return nn.Sequential(nn.BatchNorm2D(3), nn.Dropout(0.5))
    main, startup, layer, x, y = _static_model(net)
    types = [op.type for op in main.global_block().ops]
    assert "batch_norm" in types and "dropout" in types
    assert types.count("assign") == 2  # running mean and variance written back
    bn_op = next(op for op in main.global_block().ops if op.type == "batch_norm")
    assert bn_op.attrs["training"] is True
    assigns = [op for op in main.global_block().ops if op.type == "assign"]
    assert {a.outputs["out"][0] for a in assigns} == {layer[0]._mean.name, layer[0]._variance.name}
    test_prog = main.clone(for_test=True)
    for op in test_prog.global_block().ops:
        if op.type in ("batch_norm", "dropout"):
            assert op.attrs["training"] is False
    assert [op.type for op in startup.global_block().ops] == ["full"] * 4
    assert y.shape == [-1, 3, 4, 4]


def test_static_program_runs_in_the_executor():
    """The conv-bn-relu program runs and computes conv, batch-statistics normalisation and relu (an executor
    error fails the test: it used to be turned into a skip)."""
    main, startup, layer, x, y = _static_model(lambda: nn.Sequential(nn.Conv2D(3, 2, 3, padding=1),
                                                                       nn.BatchNorm2D(2), nn.ReLU()))
    exe = oar.static.Executor()
    exe.run(startup)
    data = rng.normal(size=(2, 3, 4, 4)).astype(np.float32)
    out = exe.run(main, feed={"x": data}, fetch_list=[y])[0]
    scope = oar.static.global_scope()
    w, b = (np.asarray(scope.find_var(p.name).get_tensor()) for p in (layer[0].weight, layer[0].bias))
    conv = F.conv2d(oar.to_tensor(data), oar.to_tensor(w), oar.to_tensor(b), padding=1).numpy()
    mean, var = conv.mean(axis=(0, 2, 3), keepdims=True), conv.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(out, np.maximum((conv - mean) / np.sqrt(var + 1e-5), 0), rtol=1e-4, atol=1e-5)
