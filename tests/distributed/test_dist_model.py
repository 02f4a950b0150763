"""dist.to_static / DistModel: a training step captured by oar.jit.to_static gives the losses and parameters of the
same eager steps; eval and predict modes; Strategy options oar does not implement are refused."""
import numpy as np
import pytest

import oar
import oar.distributed as dist


def _net():
    oar.seed(3)
    return oar.nn.Sequential(oar.nn.Linear(3, 8), oar.nn.Tanh(), oar.nn.Linear(8, 2))


def _shard_fn(name, sub, mesh):
    if isinstance(sub, oar.nn.Linear):
        sub.weight = dist.shard_tensor(sub.weight, mesh, [dist.Shard(1)])


def _data():
    r = np.random.RandomState(0)
    return oar.to_tensor(r.randn(6, 3).astype("float32")), oar.to_tensor(r.randn(6, 2).astype("float32"))


def test_train_steps_match_eager_steps():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    x, y = _data()
    ref = _net()
    ref_opt = oar.optimizer.Adam(0.01, parameters=ref.parameters())
    ref_losses = []
    for _ in range(3):
        loss = oar.nn.functional.mse_loss(ref(x), y)
        loss.backward()
        ref_opt.step()
        ref_opt.clear_grad()
        ref_losses.append(loss.item())
    net = dist.shard_layer(_net(), mesh, _shard_fn)
    opt = dist.shard_optimizer(oar.optimizer.Adam(0.01, parameters=net.parameters()))
    model = dist.to_static(net, loss=oar.nn.MSELoss(), optimizer=opt, strategy=dist.Strategy())
    losses = [model(x, y).item() for _ in range(3)]
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    assert model._steps["train"].concrete_program.train is not None  # one captured training program
    for a, b in zip(ref.parameters(), net.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    assert net[0].weight.is_dist() and net[0].weight.placements == [dist.Shard(1)]
    state = model.state_dict()
    assert set(model.state_dict("param")) == set(net.state_dict()) and len(state) == 4 + 16
    assert set(model.state_dict("opt")) == set(opt.state_dict())
    # eval: the loss, no update; predict: the outputs
    model.eval()
    before = net[0].weight.numpy().copy()
    np.testing.assert_allclose(model(x, y).item(), oar.nn.functional.mse_loss(net(x), y).item(), rtol=1e-6)
    np.testing.assert_array_equal(net[0].weight.numpy(), before)
    model.predict()
    np.testing.assert_allclose(model([x]).numpy(), net(x).numpy(), rtol=1e-6)


def test_default_mode_loader_labels_and_refusals():
    net = _net()
    assert dist.to_static(net)._mode == "predict"
    assert dist.to_static(net, loss=oar.nn.MSELoss())._mode == "eval"
    with pytest.raises(ValueError, match="give to_static a loss and an optimizer"):
        dist.to_static(net, loss=oar.nn.MSELoss()).train()
    x, y = _data()

    class DS(oar.io.Dataset):
        def __getitem__(self, i):
            return (x.numpy()[i],), (y.numpy()[i], y.numpy()[i])

        def __len__(self):
            return 6

    two = dist.to_static(net, loader=oar.io.DataLoader(DS(), batch_size=2),
                         loss=lambda out, a, b: ((out - a) ** 2).mean() + ((out - b) ** 2).mean())
    np.testing.assert_allclose(two(x, y, y).item(), 2 * oar.nn.functional.mse_loss(net(x), y).item(), rtol=1e-6)
    with pytest.raises(ValueError, match="expected the inputs then 2 label"):
        two(x, y)
    for cfg in ({"pipeline": {"enable": True}}, {"gradient_merge": {"enable": True, "k_steps": 2}},
                {"sharding": {"enable": True}}, {"amp": {"enable": True}}):
        with pytest.raises(NotImplementedError, match=f"Strategy options \\['{next(iter(cfg))}'\\]"):
            dist.to_static(net, strategy=dist.Strategy(cfg))
    with pytest.raises(TypeError, match="must be Tensors"):
        dist.to_static(net)(np.ones((1, 3)))
