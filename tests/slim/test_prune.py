"""Channel pruning: the dependency analysis (batch norm, depthwise convs, residual adds, flatten + Linear), kept
channels computing what they computed, refusals naming the op, FLOPs search, sensitivities, and a pruned model
that trains, converts, saves and exports at its new size."""
import numpy as np
import pytest

import oar
from oar import inference, nn
from oar.slim import L1NormFilterPruner, flops
from oar.static import InputSpec

rng = np.random.default_rng(31)
SHAPE = [1, 3, 4, 4]


class Res(nn.Layer):
    """conv-bn-relu, conv -> depthwise conv + residual, 1x1 conv, flatten, linear."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8)
        self.c2, self.dw = nn.Conv2D(8, 8, 3, padding=1), nn.Conv2D(8, 8, 3, padding=1, groups=8)
        self.c3, self.fc = nn.Conv2D(8, 4, 1), nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        y = nn.functional.relu(self.b1(self.c1(x)))
        z = self.dw(self.c2(y)) + y
        return self.fc(oar.flatten(nn.functional.relu(self.c3(z)), 1))


class Cat(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Conv2D(3, 4, 3, padding=1), nn.Conv2D(3, 4, 3, padding=1), nn.Conv2D(8, 2, 1)

    def forward(self, x):
        return self.c(oar.concat([self.a(x), self.b(x)], axis=1))


def x(n=2):
    return oar.to_tensor(rng.standard_normal([n] + SHAPE[1:]).astype("float32"))


def res():
    oar.seed(7)
    m = Res()
    m.eval()
    m.b1._mean.set_value(rng.standard_normal(8).astype("float32") * 0.1)
    m.b1._variance.set_value(rng.uniform(0.5, 1.5, 8).astype("float32"))
    return m


def test_dependency_groups_residual_depthwise_batch_norm_and_linear():
    m = res()
    spaces = L1NormFilterPruner(m, SHAPE).spaces
    shared = spaces[m.c1.weight.name]
    assert shared is spaces[m.c2.weight.name]  # the residual add joins c1's and c2's channels
    members = {(p, a) for p, a, _ in shared.members}
    assert {(m.c1.weight.name, 0), (m.c1.bias.name, 0), (m.b1._mean.name, 0), (m.c2.weight.name, 1),
            (m.c2.weight.name, 0), (m.dw.weight.name, 0), (m.dw.bias.name, 0), (m.c3.weight.name, 1)} <= members
    assert shared.depthwise == [m.dw.weight.name]
    assert (m.fc.weight.name, 0, 16) in spaces[m.c3.weight.name].members  # 16 rows (4x4) per channel


def test_kept_channels_compute_what_they_computed_and_sizes_follow():
    m = res()
    inp = x()
    before = m.c1(inp).numpy()
    out_before = m(inp).numpy()
    n_params = sum(p.size for p in m.parameters())
    plan = L1NormFilterPruner(m, SHAPE).prune_vars({m.c1.weight.name: 0.5, m.c3.weight.name: 0.5}, axis=0)
    keep = plan.masks[m.c1.weight.name]
    assert len(keep) == 4
    np.testing.assert_array_equal(m.c1(inp).numpy(), before[:, keep])  # the kept filters, bit for bit
    assert m.c1.weight.shape == [4, 3, 3, 3] and m.c2.weight.shape == [4, 4, 3, 3] and m.b1._mean.shape == [4]
    assert m.dw.weight.shape == [4, 1, 3, 3] and m.dw._groups == 4 and m.c3.weight.shape == [2, 4, 1, 1]
    assert m.fc.weight.shape == [32, 10] and m.fc._in_features == 32
    assert m(inp).shape == [2, 10] and sum(p.size for p in m.parameters()) < n_params
    plan.restore()
    np.testing.assert_array_equal(m(inp).numpy(), out_before)
    assert m.c1.weight.shape == [8, 3, 3, 3] and m.dw._groups == 8


def test_removing_channels_that_contribute_nothing_leaves_the_output_unchanged():
    """The end-to-end check of every dependency: zero the smallest filters (and everything that would make their
    channels non-zero), prune them, and the model's output is the same."""
    m = res()
    keep = np.array([0, 2, 3, 6])
    drop = np.setdiff1d(np.arange(8), keep)
    for layer in (m.c1, m.c2, m.dw):
        w, b = layer.weight.numpy(), layer.bias.numpy()
        w[drop], b[drop] = 0, 0
        layer.weight.set_value(w)
        layer.bias.set_value(b)
    for p in (m.b1.bias, m.b1._mean):
        v = p.numpy()
        v[drop] = 0
        p.set_value(v)
    inp = x()
    want = m(inp).numpy()
    plan = L1NormFilterPruner(m, SHAPE).prune_vars({m.c1.weight.name: 0.5}, axis=0)
    np.testing.assert_array_equal(plan.masks[m.c1.weight.name], keep)
    np.testing.assert_allclose(m(inp).numpy(), want, rtol=1e-5, atol=1e-6)


def test_refusals_name_the_op_and_the_line():
    m = Cat()
    pruner = L1NormFilterPruner(m, SHAPE)
    assert pruner.prunable_vars() == []
    with pytest.raises(ValueError, match=r"concat.*test_prune.py"):
        pruner.prune_vars({m.a.weight.name: 0.5})
    with pytest.raises(ValueError, match="not the weight of a conv"):
        pruner.prune_vars({"nope": 0.5})
    conv = nn.Conv2D(3, 4, 3)
    with pytest.raises(ValueError, match="model output"):
        L1NormFilterPruner(conv, SHAPE).prune_vars({conv.weight.name: 0.5})
    m = res()
    with pytest.raises(ValueError, match="axis=0"):
        L1NormFilterPruner(m, SHAPE).prune_var(m.c1.weight.name, 1, 0.5)


def test_flops_counts_conv_and_matmul():
    m = res()
    want = (8 * 16 * 27) + (8 * 16 * 72) + (8 * 16 * 9) + (4 * 16 * 8) + (64 * 10)
    assert flops(m, SHAPE) == want
    assert flops(m, [2] + SHAPE[1:]) == 2 * want


def test_uniform_prune_reaches_the_flops_target():
    m = res()
    base = flops(m, SHAPE)
    L1NormFilterPruner(m, SHAPE).uniform_prune(0.5)
    assert 0.5 <= 1 - flops(m, SHAPE) / base < 0.7


def test_sensitivities_saved_reloaded_and_used(tmp_path):
    m = res()
    inp = x(8)
    ref = m(inp).numpy()
    calls = []

    def score():  # higher is better: closeness to the unpruned output
        calls.append(1)
        return 1.0 / (1.0 + float(np.abs(m(inp).numpy() - ref).mean()))

    sen_file = str(tmp_path / "sen.json")
    pruner = L1NormFilterPruner(m, SHAPE)
    sens = pruner.sensitive(eval_func=score, sen_file=sen_file)
    assert set(sens) == set(pruner.prunable_vars()) and sorted(sens[m.c3.weight.name]) == \
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert sens[m.c3.weight.name][0.9] > sens[m.c3.weight.name][0.1] >= 0
    np.testing.assert_array_equal(m(inp).numpy(), ref)  # restored after each measure
    n = len(calls)
    again = L1NormFilterPruner(m, SHAPE, sen_file=sen_file)
    assert again.sensitive(eval_func=score, sen_file=sen_file) == sens and len(calls) == n  # nothing re-measured
    base = flops(m, SHAPE)
    again.sensitive_prune(0.4)
    assert 1 - flops(m, SHAPE) / base >= 0.4


def test_pruned_model_trains_converts_saves_and_exports(tmp_path):
    m = res()
    L1NormFilterPruner(m, SHAPE).uniform_prune(0.5)
    m.train()
    opt = oar.optimizer.SGD(0.01, parameters=m.parameters())
    inp, label = x(4), oar.to_tensor(rng.integers(0, 10, [4, 1]).astype("int64"))
    losses = []
    for _ in range(3):
        loss = nn.functional.cross_entropy(m(inp), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    m.eval()
    eager = m(inp).numpy()
    np.testing.assert_allclose(oar.jit.to_static(m.forward)(inp).numpy(), eager, rtol=1e-5, atol=1e-6)
    spec = [InputSpec([None] + SHAPE[1:], "float32", "x")]
    oar.jit.save(m, str(tmp_path / "pruned"), input_spec=spec)
    pred = inference.create_predictor(inference.Config(str(tmp_path / "pruned")))
    np.testing.assert_allclose(pred.run([inp.numpy()])[0], eager, rtol=1e-5, atol=1e-6)
    onnx = pytest.importorskip("onnx")
    path = oar.onnx.export(m, str(tmp_path / "pruned"), input_spec=spec)
    inits = {i.name: list(i.dims) for i in onnx.load(path).graph.initializer}
    assert [m.c1.weight.shape[0], 3, 3, 3] in inits.values() and m.c1.weight.shape[0] < 8
