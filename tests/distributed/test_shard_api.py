"""shard_layer / shard_optimizer / Strategy on one process: parameters laid out in place of the plain ones (still
trainable), hooks as Paddle registers them, optimizer steps equal to the plain optimizer's (NumPy-free reference:
the same net unsharded), Strategy defaults as paddlepaddle 3.3.1's."""
import copy

import numpy as np
import pytest

import oar
import oar.distributed as dist


def _net():
    oar.seed(7)
    return oar.nn.Sequential(oar.nn.Linear(4, 6), oar.nn.ReLU(), oar.nn.Linear(6, 3))


def _shard_fn(name, sub, mesh):
    if isinstance(sub, oar.nn.Linear) and name == "0":
        sub.weight = dist.shard_tensor(sub.weight, mesh, [dist.Shard(1)])


def test_shard_layer_lays_out_parameters_and_keeps_them_trainable():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    plain, net = _net(), dist.shard_layer(_net(), mesh, _shard_fn)
    w = net[0].weight
    assert isinstance(w, oar.Tensor) and w.is_dist() and w.trainable and not w.stop_gradient
    assert w.placements == [dist.Shard(1)] and net[0].bias.placements == [dist.Replicate()]
    assert net[2].weight.placements == [dist.Replicate()] and len(net.parameters()) == 4
    np.testing.assert_array_equal(w._local_value().numpy(), plain[0].weight.numpy()[:, :3])
    c = copy.deepcopy(net)[0].weight
    assert c is not w and c.placements == [dist.Shard(1)] and c.trainable
    np.testing.assert_array_equal(c.numpy(), w.numpy())
    x = oar.to_tensor(np.random.RandomState(0).randn(5, 4).astype("float32"))
    np.testing.assert_allclose(net(x).numpy(), plain(x).numpy(), rtol=1e-6)
    # an optimizer step moves the distributed parameters as it moves the plain ones
    for m in (plain, net):
        opt = oar.optimizer.SGD(learning_rate=0.1, parameters=m.parameters())
        m(x).sum().backward()
        opt.step()
    assert net[0].weight.is_dist()
    for a, b in zip(plain.parameters(), net.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)


def test_shard_layer_hooks_and_default_replication():
    mesh = dist.ProcessMesh([[0, 1]], dim_names=["x", "y"])
    seen = []

    def input_fn(inputs, m):
        seen.append(m)
        return (inputs[0] * 2,)

    net = dist.shard_layer(oar.nn.Linear(2, 2), mesh, input_fn=input_fn,
                           output_fn=lambda out, m: dist.shard_tensor(out, m, [dist.Shard(0), dist.Replicate()]))
    assert net.weight.placements == [dist.Replicate(), dist.Replicate()]
    out = net(oar.ones([2, 2]))
    assert seen == [mesh] and out.is_dist() and out.placements == [dist.Shard(0), dist.Replicate()]
    ref = 2 * np.ones((2, 2), "float32") @ net.weight.numpy() + net.bias.numpy()
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)
    bn = dist.shard_layer(oar.nn.BatchNorm1D(3), dist.ProcessMesh([0]))
    assert bn._mean.is_dist() and "_mean" in bn.state_dict() and bn._mean.placements == [dist.Replicate()]
    with pytest.raises(TypeError, match="process_mesh must be a ProcessMesh"):
        dist.shard_layer(oar.nn.Linear(2, 2), [0, 1])


def test_shard_optimizer_accumulators_follow_parameters_and_steps_match():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    plain, net = _net(), dist.shard_layer(_net(), mesh, _shard_fn)
    x = oar.to_tensor(np.random.RandomState(1).randn(5, 4).astype("float32"))
    p_opt = oar.optimizer.Adam(learning_rate=0.05, parameters=plain.parameters())
    d_opt = dist.shard_optimizer(oar.optimizer.Adam(learning_rate=0.05, parameters=net.parameters()))
    for _ in range(3):
        for m, o in ((plain, p_opt), (net, d_opt)):
            m(x).square().mean().backward()
            o.step()
            o.clear_grad()
    for a, b in zip(plain.parameters(), net.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-7)
    state, ref = d_opt.state_dict(), p_opt.state_dict()
    w = net[0].weight.name
    assert state[f"{w}_moment1_0"].placements == [dist.Shard(1)]
    assert state[f"{w}_beta1_pow_acc_0"].placements == [dist.Replicate()]
    assert len(state) == len(ref) == 16  # 4 parameters x (2 moments, 2 beta powers), in parameter order
    for a, b in zip(ref.values(), state.values()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-7)


def test_shard_optimizer_shard_fn_and_refusals():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    net = dist.shard_layer(oar.nn.Linear(4, 4), mesh)
    calls = []

    def shard_fn(acc_name, param, acc):
        calls.append(acc_name)
        return dist.shard_tensor(acc, mesh, [dist.Shard(0) if acc.ndim == 2 else dist.Replicate()])

    opt = dist.shard_optimizer(oar.optimizer.Momentum(parameters=net.parameters()), shard_fn)
    net(oar.ones([1, 4])).sum().backward()
    opt.step()
    assert calls == ["velocity", "velocity"]
    assert opt.state_dict()[f"{net.weight.name}_velocity_0"].placements == [dist.Shard(0)]
    with pytest.raises(TypeError, match="must return a distributed tensor"):
        o2 = dist.shard_optimizer(oar.optimizer.Momentum(parameters=net.parameters()), lambda n, p, a: a)
        o2.step()
    with pytest.raises(ValueError, match="before the optimizer's first step"):
        dist.shard_optimizer(opt)


def test_strategy_defaults_are_paddles_and_unknown_keys_raise():
    s = dist.Strategy()
    assert (s.sharding.enable, s.sharding.stage, s.sharding.degree) == (False, 1, 8)
    assert (s.gradient_merge.k_steps, s.gradient_merge.avg) == (1, True)
    assert (s.pipeline.schedule_mode, s.pipeline.micro_batch_size, s.pipeline.accumulate_steps) == ("1F1B", 1, 1)
    assert (s.amp.dtype, s.amp.level, s.amp.init_loss_scaling) == ("float16", "o1", 32768.0)
    assert s.fused_passes.to_dict() == {"enable": False, "gemm_epilogue": False, "dropout_add": False}
    t = dist.Strategy({"sharding": {"enable": True, "stage": 2}})
    assert (t.sharding.enable, t.sharding.stage, t.sharding.degree) == (True, 2, 8)
    t.pipeline.enable = True
    assert t.pipeline.enable and not dist.Strategy().pipeline.enable
    s2 = dist.Strategy({"amp": {"custom_white_list": []}})
    s2.amp.custom_white_list.append("matmul")
    assert dist.Strategy().amp.custom_white_list == []
    with pytest.raises(ValueError, match="unknown config keys \\['foo'\\]"):
        dist.Strategy({"foo": 1})
    with pytest.raises(AttributeError, match="no option 'bogus'"):
        dist.Strategy({"sharding": {"bogus": 1}})
    with pytest.raises(AttributeError, match="no option 'stages'"):
        s.sharding.stages = 2
    with pytest.raises(ValueError, match="expected a dictionary"):
        dist.Strategy([1])
    assert copy.deepcopy(t).sharding.stage == 2
