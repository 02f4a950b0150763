"""Paddle's 10-minute LeNet quick start, unchanged but for the data size: Normalize on HW images, Model with
InputSpecs, fit with progress, evaluate, predict, save for inference -- on the MNIST images shipped with oar."""
import numpy as np

import oar as paddle
import oar.vision.transforms as T
from oar.static import InputSpec


def test_lenet_quick_start_on_shipped_mnist(tmp_path, capsys):
    transform = T.Compose([T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")])
    full = paddle.vision.datasets.MNIST(mode="test", transform=transform)
    assert full[0][0].shape == (1, 28, 28)                         # issue 16, failure 1
    train = paddle.io.Subset(full, list(range(1024)))
    test = paddle.io.Subset(full, list(range(9000, 9256)))
    paddle.seed(0)
    lenet = paddle.vision.models.LeNet(num_classes=10)
    model = paddle.Model(lenet, InputSpec([None, 1, 28, 28], "float32", "x"), InputSpec([None, 1], "int64", "y"))
    model.prepare(paddle.optimizer.Adam(0.003, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(train, epochs=2, batch_size=64, verbose=1)
    res = model.evaluate(test, batch_size=64, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 2/2" in out and "step 16/16 [" in out and "Eval samples: 256" in out
    assert res["acc"] > 0.5                                          # chance is 0.1
    pred = model.predict(test, batch_size=64, stack_outputs=True, verbose=0)[0]
    assert pred.shape == (256, 10)
    model.save(str(tmp_path / "inference" / "lenet"), training=False)
    loaded = paddle.jit.load(str(tmp_path / "inference" / "lenet"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(np.stack([test[i][0] for i in range(4)]))).numpy(),
                               pred[:4], rtol=1e-4, atol=1e-5)
