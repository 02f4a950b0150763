"""oar.inference: Config forms, handles, run() both ways, clone, passes on/off give the same results."""
import re
import threading

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar import inference
from oar.jit.save_load import records_from_concrete, save_records

from fake_concrete import FakeConcrete

rng = np.random.default_rng(0)


def c(shape, positive=False):
    a = rng.random(shape) + 0.5 if positive else rng.standard_normal(shape)
    return oar.to_tensor(a.astype("float32"))


def conv_bn_model(tmp_path):
    w, b = c([4, 3, 3, 3]), c([4])
    mean, var, gamma, beta = c([4]), c([4], True), c([4]), c([4])
    fw, fb = c([4 * 2 * 2, 5]), c([5])

    def f(x):
        y = F.relu(F.batch_norm(F.conv2d(x, w, b, padding=1), mean, var, gamma, beta, training=False))
        y = oar.flatten(F.max_pool2d(y, 2), 1)
        return F.softmax(F.linear(y, fw, fb))

    def ref(x):
        return f(oar.to_tensor(x)).numpy()

    cp = FakeConcrete(f, [("image", [-1, 3, 4, 4], "float32")])
    prefix = str(tmp_path / "net")
    save_records(prefix, *records_from_concrete([("forward", cp)]))
    return prefix, ref


def test_handles_and_run(tmp_path):
    prefix, ref = conv_bn_model(tmp_path)
    config = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.disable_glog_info()
    config.enable_memory_optim()
    config.set_cpu_math_library_num_threads(2)
    pred = inference.create_predictor(config)
    assert pred.get_input_names() == ["image"]
    x = rng.standard_normal([2, 3, 4, 4]).astype("float32")
    h = pred.get_input_handle("image")
    h.reshape(x.shape)
    h.copy_from_cpu(x)
    assert h.shape() == [2, 3, 4, 4]
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out, ref(x), rtol=1e-4, atol=1e-6)
    assert "batch_norm" not in [op.type for op in pred.program.global_block().ops]
    (out2,) = pred.run([x[:1]])
    np.testing.assert_allclose(out2, ref(x[:1]), rtol=1e-4, atol=1e-6)


def test_prefix_config_ir_optim_off_and_clone(tmp_path):
    prefix, ref = conv_bn_model(tmp_path)
    x = rng.standard_normal([3, 3, 4, 4]).astype("float32")
    on = inference.create_predictor(inference.Config(prefix))
    cfg = inference.Config(prefix)
    cfg.switch_ir_optim(False)
    off = inference.create_predictor(cfg)
    assert "batch_norm" in [op.type for op in off.program.global_block().ops]
    np.testing.assert_allclose(on.run([x])[0], off.run([x])[0], rtol=1e-4, atol=1e-6)
    results = {}

    def work(i, p):
        results[i] = p.run([x])[0]
    threads = [threading.Thread(target=work, args=(i, on.clone())) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results.values():
        np.testing.assert_allclose(r, ref(x), rtol=1e-4, atol=1e-6)


def test_clear_errors(tmp_path):
    prefix, _ = conv_bn_model(tmp_path)
    pred = inference.create_predictor(inference.Config(prefix))
    with pytest.raises(ValueError, match="no input named"):
        pred.get_input_handle("nope")
    with pytest.raises(ValueError, match="cannot reshape"):
        pred.get_input_handle("image").reshape([1, 2, 4, 4])
    with pytest.raises(RuntimeError, match="has no data"):
        pred.run()
    with pytest.raises(ValueError, match=r"missing\.pdmodel: model \(\.pdmodel\) file not found"):
        inference.create_predictor(inference.Config(str(tmp_path / "missing")))


class FoldableNet(oar.nn.Layer):
    """Conv + BatchNorm (folded), a weight transformed by ops (constant-folded), ReLU, Linear."""

    def __init__(self):
        super().__init__()
        self.conv = oar.nn.Conv2D(3, 4, 3, padding=1)
        self.bn = oar.nn.BatchNorm2D(4)
        self.w = self.create_parameter([5, 4 * 4 * 4])

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        return oar.matmul(oar.flatten(y, 1), oar.transpose(self.w * 0.5, [1, 0]))


def test_predictor_folds_constants_and_batch_norm_and_drops_dead_code(tmp_path):
    net = FoldableNet()
    net.train()
    for _ in range(3):  # give BatchNorm non-trivial running statistics
        net(oar.randn([8, 3, 4, 4]))
    net.eval()
    prefix = str(tmp_path / "foldable")
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 3, 4, 4], "float32", "x")])
    pred = inference.create_predictor(inference.Config(prefix))
    cfg = inference.Config(prefix)
    cfg.switch_ir_optim(False)
    raw = inference.create_predictor(cfg)
    raw_types = [op.type for op in raw.program.global_block().ops]
    assert {"batch_norm", "transpose", "multiply"} <= set(raw_types), raw_types
    types = [op.type for op in pred.program.global_block().ops]
    assert not {"batch_norm", "transpose", "multiply"} & set(types), types
    assert len(types) < len(raw_types)
    assert net.w.name not in pred.program.global_block().vars  # replaced by its folded transpose: dead
    prov = pred.program.provenance
    folded = [int(re.match(r"constant_folding: folded (\d+) ops", p).group(1)) for p in prov
              if p.startswith("constant_folding")]
    assert folded and folded[-1] >= 3, prov  # full(0.5), multiply, transpose
    assert "fold_batch_norm: folded 1 batch_norm ops" in prov, prov
    dce = [p for p in prov if p.startswith("dead_code_elimination")][-1]
    assert int(re.match(r".*removed \d+ ops, (\d+) variables", dce).group(1)) > 0, prov
    x = rng.standard_normal([2, 3, 4, 4]).astype("float32")
    want = net(oar.to_tensor(x)).numpy()
    np.testing.assert_allclose(pred.run([x])[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(raw.run([x])[0], want, rtol=1e-5, atol=1e-6)
