"""End-to-end demo: eager training -> @to_static training -> jit.save -> jit.load -> inference predictor.

Run with `make demo`. Each step prints what it did and how long it took."""
import os
import tempfile
import time

import numpy as np

import oar as paddle
import oar.nn as nn
from oar.static import InputSpec


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        h = paddle.nn.functional.relu(self.fc1(x))
        if paddle.mean(h) > 10.0:        # data-dependent control flow: converted to a `cond` op
            h = h * 0.1
        return self.fc2(h)


def make_data(n=256):
    rng = np.random.RandomState(0)
    x = rng.randn(n, 16).astype("float32")
    y = (x[:, :3].argmax(axis=1)).astype("int64")
    return x, y


def train(model, x, y, steps, label):
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    t0 = time.perf_counter()
    for step in range(steps):
        idx = np.arange(step * 32, step * 32 + 32) % len(x)
        loss = loss_fn(model(paddle.to_tensor(x[idx])), paddle.to_tensor(y[idx]))
        loss.backward()
        opt.step()
        opt.clear_grad()
    dt = time.perf_counter() - t0
    print(f"[{label}] {steps} steps in {dt * 1000:.1f} ms, final loss {float(loss):.4f}")
    return float(loss)


def main():
    x, y = make_data()
    paddle.seed(0)
    eager = MLP()
    train(eager, x, y, 60, "eager")

    paddle.seed(0)
    static = paddle.jit.to_static(MLP())          # one line: the same model as a static graph
    train(static, x, y, 60, "to_static")
    print("converted forward code:\n" + static.forward.code)

    path = os.path.join(tempfile.mkdtemp(), "mlp")
    static.eval()
    paddle.jit.save(static, path, input_spec=[InputSpec([None, 16], "float32", "x")])
    print("saved:", sorted(os.listdir(os.path.dirname(path))))

    loaded = paddle.jit.load(path)               # no Python source needed
    loaded.eval()
    xb = paddle.to_tensor(x[:5])
    np.testing.assert_allclose(loaded(xb).numpy(), static(xb).numpy(), rtol=1e-5, atol=1e-6)
    print("jit.load prediction matches:", loaded(xb).numpy().argmax(axis=1), "labels", y[:5])

    from oar import inference
    predictor = inference.create_predictor(inference.Config(path + ".pdmodel", path + ".pdiparams"))
    (out,) = predictor.run([x[:5]])
    np.testing.assert_allclose(out, static(xb).numpy(), rtol=1e-5, atol=1e-6)
    print("inference predictor matches; accuracy on the data:",
          float((predictor.run([x])[0].argmax(axis=1) == y).mean()))


if __name__ == "__main__":
    main()
