"""Model.fit with a to_static network trains through one captured program per step, same numbers as eager."""
import numpy as np

import oar


def _fit(convert):
    rng = np.random.default_rng(0)
    x = rng.random((32, 4), dtype=np.float32)
    y = (x.sum(1, keepdims=True) > 2).astype("int64")
    data = oar.io.TensorDataset([oar.to_tensor(x), oar.to_tensor(y)])
    oar.seed(0)
    np.random.seed(0)  # fit's shuffling draws from NumPy's global generator, as Paddle's RandomSampler does
    net = oar.nn.Linear(4, 2)
    if convert:
        net = oar.jit.to_static(net)
    model = oar.Model(net)
    model.prepare(oar.optimizer.Adam(0.05, parameters=model.parameters()), oar.nn.CrossEntropyLoss(),
                  oar.metric.Accuracy())
    model.fit(data, batch_size=8, epochs=3, verbose=0)
    return model, [p.numpy().copy() for p in net.parameters()], model.evaluate(data, batch_size=8, verbose=0)


def test_fit_on_a_converted_network_uses_the_captured_step_and_equals_eager():
    eager_model, eager_params, eager_eval = _fit(False)
    model, params, ev = _fit(True)
    assert model._captured.concrete_program.train is not None
    assert len(model._captured.program_cache) == 1
    for a, b in zip(params, eager_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ev["loss"], eager_eval["loss"], rtol=1e-5)
    assert ev["acc"] == eager_eval["acc"]
