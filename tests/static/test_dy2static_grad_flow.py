"""dy2static training through control flow: a Layer whose forward has a tensor-dependent `if`, a tensor
`while`, a `for` over `range(n_tensor)` and a list appended in the loop, converted with `oar.jit.to_static`
and trained with Adam, gives the same losses and parameters as eager training."""
import numpy as np

import oar
import oar.nn as nn


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x, n):
        h = oar.tanh(self.fc1(x))
        if h.mean() > 0:                      # tensor-dependent if
            h = h * 1.5 + self.fc2(h)
        else:
            h = self.fc2(h) - h
        steps = []
        for k in range(n):                     # range over a tensor bound
            h = oar.tanh(self.fc2(h)) + h * 0.5
            steps.append(h.mean(axis=1, keepdim=True))
        i = oar.zeros([1], "int64")
        while i < n - 1:                        # tensor while
            h = h * 0.9
            i = i + 1
        return self.head(h), oar.concat(steps, axis=1)


def _train(model, data, steps=4):
    opt = oar.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for x, n, y in data[:steps]:
        out, aux = model(x, n)
        loss = oar.nn.functional.cross_entropy(out, y) + (aux * aux).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    return losses, [p.numpy().copy() for p in model.parameters()]


def _data():
    r = np.random.RandomState(3)
    return [(oar.to_tensor(r.randn(5, 4).astype("float32") + (0.8 if k % 2 else -0.8)),
             oar.to_tensor([2 + k % 3]), oar.to_tensor(r.randint(0, 3, (5,)).astype("int64")))
            for k in range(6)]


def test_to_static_training_through_control_flow_equals_eager():
    oar.seed(7)
    eager = Net()
    state = {k: v.numpy().copy() for k, v in eager.state_dict().items()}
    conv = Net()
    conv.set_state_dict(state)
    conv = oar.jit.to_static(conv)
    data = _data()
    le, pe = _train(eager, data, 6)
    ls, ps = _train(conv, data, 6)
    np.testing.assert_allclose(ls, le, rtol=1e-5, atol=1e-6)
    for a, b in zip(ps, pe):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_both_branches_are_taken():
    data = _data()
    m = Net()
    signs = {bool(oar.tanh(m.fc1(x)).mean() > 0) for x, _, _ in data}
    assert signs == {True, False}
