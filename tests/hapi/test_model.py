"""paddle.Model (seed 004 contrasts Model.predict with Paddle Inference): fit lowers the loss, evaluate/predict
agree with the network run by hand, and both save modes reload to the same predictions."""
import os

import numpy as np
import pytest

import oar as paddle
from oar.static import InputSpec


def _data(n=48, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 4).astype("float32")
    y = (x[:, :1] + x[:, 1:2] > 1).astype("int64")
    return x, y, paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])


def _model(with_specs=True):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 2))
    specs = (InputSpec([None, 4], "float32", "x"), InputSpec([None, 1], "int64", "y")) if with_specs else (None, None)
    model = paddle.Model(net, *specs)
    model.prepare(paddle.optimizer.Adam(0.05, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    return net, model


def test_fit_lowers_the_loss_and_evaluate_matches_by_hand():
    x, y, ds = _data()
    net, model = _model()
    before = model.evaluate(ds, batch_size=16, verbose=0)["loss"][0]
    model.fit(ds, batch_size=16, epochs=15, verbose=0, shuffle=False)
    res = model.evaluate(ds, batch_size=16, verbose=0)
    assert res["loss"][0] < before * 0.8
    logits = net(paddle.to_tensor(x))
    ref_loss = float(paddle.nn.functional.cross_entropy(logits, paddle.to_tensor(y)))
    np.testing.assert_allclose(res["loss"][0], ref_loss, rtol=1e-5)
    ref_acc = float(np.mean(logits.numpy().argmax(1) == y[:, 0]))
    np.testing.assert_allclose(res["acc"], ref_acc, rtol=1e-6)


def test_predict_batches_and_stacks_network_outputs():
    x, _, ds = _data(20)
    net, model = _model()
    per_batch = model.predict(ds, batch_size=8, verbose=0)
    assert len(per_batch) == 1 and [b.shape for b in per_batch[0]] == [(8, 2), (8, 2), (4, 2)]
    stacked = model.predict(ds, batch_size=8, stack_outputs=True, verbose=0)[0]
    np.testing.assert_allclose(stacked, net(paddle.to_tensor(x)).numpy(), rtol=1e-6)


def test_train_batch_returns_loss_and_metrics():
    x, y, _ = _data(8)
    _, model = _model()
    losses, metrics = model.train_batch([x], [y])
    assert len(losses) == 1 and np.isfinite(losses[0]).all() and 0.0 <= metrics[0] <= 1.0


def test_inputs_default_to_forward_arguments():
    x, y, ds = _data(16)
    _, model = _model(with_specs=False)
    model.fit(ds, batch_size=8, epochs=1, verbose=0)
    assert set(model.evaluate(ds, batch_size=8, verbose=0)) == {"loss", "acc"}


def test_save_load_training_checkpoint(tmp_path):
    x, _, ds = _data(16)
    net, model = _model()
    model.fit(ds, batch_size=8, epochs=2, verbose=0, save_dir=str(tmp_path / "ckpt"))
    assert os.path.exists(tmp_path / "ckpt" / "final.pdparams") and os.path.exists(tmp_path / "ckpt" / "0.pdopt")
    net2, model2 = _model()
    model2.load(str(tmp_path / "ckpt" / "final"))
    np.testing.assert_allclose(net2(paddle.to_tensor(x)).numpy(), net(paddle.to_tensor(x)).numpy(), rtol=1e-6)


def test_save_for_inference_reloads_with_jit_load(tmp_path):
    x, _, ds = _data(16)
    net, model = _model()
    model.fit(ds, batch_size=8, epochs=1, verbose=0)
    model.save(str(tmp_path / "infer" / "net"), training=False)
    assert os.path.exists(tmp_path / "infer" / "net.pdmodel")
    loaded = paddle.jit.load(str(tmp_path / "infer" / "net"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), net(paddle.to_tensor(x)).numpy(), rtol=1e-5)


def test_errors_are_clear(tmp_path):
    _, _, ds = _data(8)
    net, _ = _model()
    bare = paddle.Model(net)
    with pytest.raises(RuntimeError, match="prepare"):
        bare.train_batch([np.zeros((2, 4), "float32")], [np.zeros((2, 1), "int64")])
    with pytest.raises(ValueError, match="InputSpec"):
        bare.save(str(tmp_path / "m"), training=False)
    with pytest.raises(TypeError, match="Dataset or DataLoader"):
        bare.predict([1, 2, 3])
    with pytest.raises(TypeError, match="Metric"):
        bare.prepare(metrics=["acc"])
