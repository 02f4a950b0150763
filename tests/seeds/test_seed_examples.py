"""The seeds' runnable workflows that /work/shared/acceptance does not already cover, at small sizes:

- seed 002 (1.x MNIST tutorial) in its Paddle 2.x form: paddle.batch(paddle.dataset.mnist.train()), a conv/pool
  network, Adam, cross entropy, paddle.metric.accuracy, eval mode, printing values and gradients;
- seed 001's "wrong example" (a forward taking an optional label) converts and runs with label=None;
- seed 004's Model.predict beside Paddle Inference on the same saved model;
- seed 000's 2.0 preview snippet (paddle.fluid.dygraph.Layer + @to_static(input_spec) + jit.save).
"""
import gzip
import os
import struct

import numpy as np
import pytest

import oar as paddle
import oar.dataset.common as common
import oar.nn as nn
import oar.nn.functional as F
from oar.static import InputSpec


# ---- seed 002: the MNIST tutorial, 2.x API ------------------------------------------------------------------------
@pytest.fixture
def tiny_mnist(tmp_path, monkeypatch):
    """64 training / 16 test images where the label is readable from the image (a bright block at row 2*label)."""
    rng = np.random.RandomState(0)
    d = tmp_path / "mnist"
    d.mkdir()
    for prefix, n in (("train", 64), ("t10k", 16)):
        labels = rng.randint(0, 10, n).astype(np.uint8)
        images = rng.randint(0, 40, (n, 28, 28)).astype(np.uint8)
        for i, lab in enumerate(labels):
            images[i, 2 * lab:2 * lab + 4, 4:24] = 255
        with gzip.open(d / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with gzip.open(d / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))


class SimpleImgConvPool(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, pool_size, pool_stride, act=None):
        super().__init__()
        self._conv2d = nn.Conv2D(num_channels, num_filters, filter_size)
        self._pool2d = nn.MaxPool2D(pool_size, pool_stride)
        self._act = act

    def forward(self, inputs):
        x = self._conv2d(inputs)
        if self._act == "relu":
            x = F.relu(x)
        return self._pool2d(x)


class MNIST(nn.Layer):
    def __init__(self):
        super().__init__()
        self._simple_img_conv_pool_1 = SimpleImgConvPool(1, 4, 5, 2, 2, act="relu")
        self._simple_img_conv_pool_2 = SimpleImgConvPool(4, 8, 5, 2, 2, act="relu")
        self._fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = paddle.flatten(x, 1)
        x = F.softmax(self._fc(x))
        if label is not None:
            acc = paddle.metric.accuracy(input=x, label=label)
            return x, acc
        return x


def _batch_arrays(data, batch_size):
    dy_x_data = np.array([x[0].reshape(1, 28, 28) for x in data]).astype('float32')
    y_data = np.array([x[1] for x in data]).astype('int64').reshape(batch_size, 1)
    return dy_x_data, y_data


def _test_mnist(reader, model, batch_size):
    acc_set, avg_loss_set = [], []
    for data in reader():
        img, label = (paddle.to_tensor(a) for a in _batch_arrays(data, batch_size))
        prediction, acc = model(img, label)
        loss = F.nll_loss(paddle.log(prediction), paddle.squeeze(label, 1))
        acc_set.append(float(acc.numpy()))
        avg_loss_set.append(float(loss.numpy()))
    return np.array(avg_loss_set).mean(), np.array(acc_set).mean()


def test_seed002_mnist_training_workflow(tiny_mnist):
    paddle.seed(2)
    BATCH_SIZE = 16
    mnist = MNIST()
    adam = paddle.optimizer.Adam(learning_rate=0.005, parameters=mnist.parameters())
    train_reader = paddle.batch(paddle.dataset.mnist.train(), batch_size=BATCH_SIZE, drop_last=True)
    test_reader = paddle.batch(paddle.dataset.mnist.test(), batch_size=BATCH_SIZE, drop_last=True)

    mnist.eval()
    loss0, _ = _test_mnist(test_reader, mnist, BATCH_SIZE)
    mnist.train()
    epoch_losses = []
    for epoch in range(6):
        losses = []
        for batch_id, data in enumerate(train_reader()):
            img, label = (paddle.to_tensor(a) for a in _batch_arrays(data, BATCH_SIZE))
            label.stop_gradient = True
            cost = mnist(img)
            avg_loss = F.nll_loss(paddle.log(cost), paddle.squeeze(label, 1))
            avg_loss.backward()
            # seed 5.6: values and gradients can be printed right away
            w = mnist._fc.weight
            assert w.gradient().shape == tuple(w.shape) and np.isfinite(w.gradient()).all()
            adam.step()
            mnist.clear_gradients()
            assert w.gradient() is None or not w.gradient().any()
            losses.append(float(avg_loss.numpy()))
        assert batch_id == 64 // BATCH_SIZE - 1
        epoch_losses.append(np.mean(losses))
    assert epoch_losses[-1] < 0.7 * epoch_losses[0]
    mnist.eval()
    loss1, acc1 = _test_mnist(test_reader, mnist, BATCH_SIZE)
    assert loss1 < loss0 and 0.0 <= acc1 <= 1.0


def test_seed002_mnist_net_converts_and_matches_eager(tiny_mnist):
    paddle.seed(3)
    net = MNIST()
    net.eval()
    data = next(paddle.batch(paddle.dataset.mnist.test(), batch_size=4)())
    img, label = (paddle.to_tensor(a) for a in _batch_arrays(data, 4))
    eager_pred, eager_acc = net(img, label)
    static_net = paddle.jit.to_static(net)
    pred, acc = static_net(img, label)
    np.testing.assert_allclose(pred.numpy(), eager_pred.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(acc), float(eager_acc), rtol=1e-6)


# ---- seed 001: forward with an optional label ---------------------------------------------------------------------
def test_seed001_optional_label_forward_with_none():
    class LinearNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self._linear = nn.Linear(8, 3)

        @paddle.jit.to_static
        def forward(self, x, label=None):
            out = self._linear(x)
            if label:
                loss = nn.functional.cross_entropy(out, label)
                avg_loss = paddle.mean(loss)
                return out, avg_loss
            else:
                return out

    paddle.seed(0)
    net = LinearNet()
    x = paddle.randn([2, 8])
    out = net(x)
    np.testing.assert_allclose(out.numpy(), net._linear(x).numpy(), rtol=1e-6)


# ---- seed 004: Model.predict and Paddle Inference on the same model -----------------------------------------------
def test_seed004_model_predict_equals_inference_predictor(tmp_path):
    paddle.seed(4)
    rng = np.random.RandomState(4)
    x = rng.rand(12, 6).astype("float32")
    y = (x.sum(1, keepdims=True) > 3).astype("int64")
    ds = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
    model = paddle.Model(net, InputSpec([None, 6], "float32", "x"), InputSpec([None, 1], "int64", "label"))
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(ds, batch_size=4, epochs=2, verbose=0)
    predicted = model.predict(ds, batch_size=4, stack_outputs=True, verbose=0)[0]

    prefix = str(tmp_path / "inference" / "net")
    model.save(prefix, training=False)
    for suffix in (".pdmodel", ".pdiparams", ".pdiparams.info"):
        assert os.path.exists(prefix + suffix)
    config = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    predictor = paddle.inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.reshape(x.shape)
    handle.copy_from_cpu(x)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out, predicted, rtol=1e-5, atol=1e-6)


# ---- seed 000: the 2.0 preview snippet ---------------------------------------------------------------------------
def test_seed000_preview_snippet_saves_a_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from oar.fluid.dygraph import Layer
    from oar.jit import to_static

    class SimpleNet(Layer):
        def __init__(self):
            super(SimpleNet, self).__init__()
            self.linear = paddle.nn.Linear(10, 3)

        @to_static(input_spec=[InputSpec(shape=[None, 10], name='x'), InputSpec(shape=[3], name='y')])
        def forward(self, x, y):
            out = self.linear(x)
            out = out + y
            return out

    net = SimpleNet()
    paddle.jit.save(net, './simple_net')
    assert os.path.exists("simple_net.pdmodel") and os.path.exists("simple_net.pdiparams")
    x, y = paddle.randn([5, 10]), paddle.randn([3])
    np.testing.assert_allclose(paddle.jit.load('./simple_net')(x, y).numpy(),
                               (net.linear(x) + y).numpy(), rtol=1e-5)
