"""What the (fake) GPU changes for saving in Paddle's format, `oar.Model` results and the DataLoader's iterator:
host NumPy arrays out, the worker pool still reachable."""
import numpy as np
import pytest

import oar
from device_table import fake_gpu


@pytest.fixture()
def gpu():
    with fake_gpu():
        yield


def test_paddle_format_save_of_device_parameters(gpu, tmp_path):
    net = oar.nn.Linear(3, 2)
    path = str(tmp_path / "w.pdparams")
    oar.save(net.state_dict(), path, protocol="paddle")
    back = oar.load(path, return_numpy=True)
    assert type(back["weight"]) is np.ndarray
    np.testing.assert_array_equal(back["weight"], net.weight.numpy())


def test_model_train_batch_returns_host_arrays(gpu):
    oar.seed(0)
    model = oar.Model(oar.nn.Linear(4, 3))
    model.prepare(oar.optimizer.SGD(0.1, parameters=model.parameters()), oar.nn.CrossEntropyLoss())
    x, y = np.ones((5, 4), "float32"), np.zeros((5, 1), "int64")
    loss = model.train_batch([x], [y])
    out = model.predict_batch([x])
    assert type(loss[0]) is np.ndarray and type(out[0]) is np.ndarray and out[0].shape == (5, 3)


def test_device_feed_keeps_the_worker_pool_visible(gpu):
    data = oar.io.TensorDataset([oar.to_tensor(np.arange(8.0).reshape(4, 2), place="cpu")])
    it = iter(oar.io.DataLoader(data, batch_size=2, num_workers=1))
    assert it.pool is not None and len(it.pool.procs) == 1
    assert [b[0].place for b in it] == [oar.CUDAPlace(0)] * 2
