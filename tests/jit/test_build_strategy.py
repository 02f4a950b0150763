"""to_static(..., build_strategy=...): BuildStrategy attributes, passes on training/eval programs."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F

rng = np.random.default_rng(3)


def test_build_strategy_attributes():
    bs = oar.static.BuildStrategy()
    assert bs.fuse_elewise_add_act_ops is False and bs.enable_addto is False and bs.memory_optimize is None
    for name in ("enable_addto", "fuse_elewise_add_act_ops", "fuse_bn_act_ops", "fuse_relu_depthwise_conv",
                 "enable_inplace", "memory_optimize", "build_cse_pass", "fuse_bn_add_act_ops", "sync_batch_norm"):
        setattr(bs, name, True)
        assert getattr(bs, name) is True
    bs.reduce_strategy = oar.static.BuildStrategy.ReduceStrategy.Reduce
    with pytest.raises(AttributeError, match="fuse_everything"):
        bs.fuse_everything = True
    with pytest.raises(AttributeError):
        _ = bs.not_a_switch
    with pytest.raises(TypeError, match="BuildStrategy"):
        oar.jit.to_static(lambda x: x, build_strategy={"fuse_elewise_add_act_ops": True})


def test_passes_for_build_strategy_train_vs_eval():
    from oar.passes import passes_for_build_strategy
    bs = oar.static.BuildStrategy()
    bs.fuse_elewise_add_act_ops = bs.fuse_bn_act_ops = True
    assert passes_for_build_strategy(bs, training=True) == ["fuse_elewise_add_act", "dead_code_elimination"]
    assert passes_for_build_strategy(bs, training=False) == [
        "constant_folding", "fold_batch_norm", "fuse_elewise_add_act", "dead_code_elimination"]


class ConvNet(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = oar.nn.Conv2D(3, 4, 3, padding=1)
        self.bn = oar.nn.BatchNorm2D(4)
        self.fc = oar.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)) + 0.5)
        return self.fc(oar.flatten(h, 1))


def test_train_and_eval_programs_match_eager_and_eval_program_follows_weight_updates():
    oar.seed(0)
    eager, conv = ConvNet(), ConvNet()
    conv.set_state_dict(eager.state_dict())
    bs = oar.static.BuildStrategy()
    bs.fuse_elewise_add_act_ops = bs.fuse_bn_act_ops = True
    conv = oar.jit.to_static(conv, build_strategy=bs)
    opts = [oar.optimizer.SGD(0.1, parameters=n.parameters()) for n in (eager, conv)]
    x = oar.to_tensor(rng.standard_normal([2, 3, 6, 6]).astype("float32"))
    for _ in range(2):
        outs = []
        for net, o in zip((eager, conv), opts):
            net.train()
            y = net(x)
            y.mean().backward()
            o.step()
            o.clear_grad()
            outs.append(y.numpy())
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)
        for net in (eager, conv):
            net.eval()
        np.testing.assert_allclose(conv(x).numpy(), eager(x).numpy(), rtol=1e-4, atol=1e-5)
        cp = conv.forward.concrete_program
        assert not cp.training and "fold_batch_norm" in cp.passes
        assert "batch_norm" not in [op.type for op in cp.run_program.global_block().ops]
        assert "batch_norm" in [op.type for op in cp.main_program.global_block().ops]  # the original is kept
