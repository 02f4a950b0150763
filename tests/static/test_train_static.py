"""Training the seeds' LinearNet and a LeNet statically (startup program, minimize, Executor) gives the same losses
as eager training with the same seed."""
import numpy as np
import pytest

import oar
import oar.nn as nn


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(784, 10)

    def forward(self, x):
        return self._linear(x)


class LeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                                      nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        x = self.features(x)
        x = oar.flatten(x, 1)
        return self.fc(x)


def _batches(shape, steps, seed):
    r = np.random.default_rng(seed)
    return [(r.random(shape).astype("float32"), r.integers(0, 10, (shape[0], 1)).astype("int64"))
            for _ in range(steps)]


def _eager(net_cls, data, make_opt):
    oar.seed(2024)
    net = net_cls()
    opt = make_opt(net.parameters())
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for x, y in data:
        loss = loss_fn(net(oar.to_tensor(x)), oar.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.item())
    return losses


def _static(net_cls, data, make_opt):
    main, startup = oar.static.Program(), oar.static.Program()
    oar.enable_static()
    try:
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None] + list(data[0][0].shape[1:]), "float32")
            y = oar.static.data("y", [None, 1], "int64")
            net = net_cls()
            loss = nn.CrossEntropyLoss()(net(x), y)
            make_opt(None).minimize(loss)
    finally:
        oar.disable_static()
    exe = oar.static.Executor()
    scope = oar.static.Scope()
    oar.seed(2024)
    exe.run(startup, scope=scope)
    return [float(exe.run(main, feed={"x": a, "y": b}, fetch_list=[loss], scope=scope)[0]) for a, b in data]


@pytest.mark.parametrize("net_cls,shape", [(LinearNet, (16, 784)), (LeNet, (4, 1, 28, 28))], ids=["linear", "lenet"])
def test_static_training_matches_eager(net_cls, shape):
    data = _batches(shape, 5, 0)
    make = lambda ps: oar.optimizer.Adam(learning_rate=0.001, parameters=ps)  # noqa: E731
    eager = _eager(net_cls, data, make)
    static = _static(net_cls, data, make)
    np.testing.assert_allclose(static, eager, rtol=1e-5, atol=1e-6)
    assert eager[-1] < eager[0] or net_cls is LeNet
