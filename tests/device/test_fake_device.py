"""Device storage on the fake device: places, transfers, mixed-device errors, the CPU fallback, training steps and
what `import oar` loads; plus what happens without a GPU backend."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import oar
from oar.core import devices, fake_device
from oar.kernels.backend import array_module, scatter_add
from oar.ops.device import FALLBACK
from device_table import fake_gpu


@pytest.fixture()
def gpu():
    with fake_gpu():
        yield


def test_numpy_refuses_fake_arrays():
    a = fake_device.xp.asarray(np.arange(4.0))
    for bad in (lambda: np.exp(a), lambda: np.sum(a), lambda: np.asarray(a), lambda: a + np.ones(4),
                lambda: fake_device.xp.prod([2, 3])):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(AttributeError, match="not in CuPy"):
        fake_device.xp.errstate  # noqa: B018 - CuPy has it in cupyx only


def test_array_module_and_scatter_add_shim(gpu):
    a = devices.to_device(np.zeros(3))
    assert array_module(np.zeros(2)) is np and array_module(np.zeros(2), a) is devices.RUNTIME.xp
    scatter_add(a, devices.to_device(np.array([0, 0, 2])), devices.to_device(np.ones(3)))
    assert devices.to_host(a).tolist() == [2.0, 0.0, 1.0]


def test_places_and_transfers(gpu):
    x = oar.to_tensor([1.0, 2.0])
    assert oar.get_device() == "gpu:0" and x.place == oar.CUDAPlace(0)
    assert type(x._data) is fake_device.FakeArray
    c = oar.to_tensor([1.0, 2.0], place=oar.CPUPlace())
    assert c.place == oar.CPUPlace() and type(c._data) is np.ndarray
    assert x.cpu().place == oar.CPUPlace() and c.cuda().place == oar.CUDAPlace(0)
    assert c.to("gpu").place == oar.CUDAPlace(0) and x.to("cpu", "float64").dtype == oar.float64
    n = x.numpy()
    assert type(n) is np.ndarray and n.tolist() == [1.0, 2.0]
    n[0] = 9.0
    assert x.numpy()[0] == 1.0  # numpy() copies
    assert "Place(gpu:0)" in repr(x)


def test_mixed_devices_raise_naming_both(gpu):
    x = oar.to_tensor([1.0, 2.0])
    c = oar.to_tensor([1.0, 2.0], place="cpu")
    with pytest.raises(ValueError, match=r"input 'x' is on gpu:0 but input 'y' is on cpu"):
        x + c
    assert (x + oar.to_tensor(1.0, place="cpu")).place == oar.CUDAPlace(0)  # 0-d host values join the device


def test_gradient_flows_through_transfers(gpu):
    c = oar.to_tensor([1.0, 2.0], place="cpu", stop_gradient=False)
    y = (c.cuda() * 3.0).sum()
    y.backward()
    assert c.grad.place == oar.CPUPlace() and c.grad.numpy().tolist() == [3.0, 3.0]


def test_unconverted_op_falls_back_with_one_warning(gpu):
    from oar.ops.device_ops import DEVICE_OPS
    assert "lgamma" not in DEVICE_OPS  # its kernel calls NumPy's vectorize / SciPy: not converted
    x = oar.to_tensor([1.5, 3.0])
    FALLBACK.seen.discard("lgamma")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = oar.lgamma(x)
        oar.lgamma(x)
    assert [str(m.message).split(":")[0] for m in w] == ["op 'lgamma' has no device kernel yet"]
    assert y.place == oar.CUDAPlace(0) and np.allclose(y.numpy(), [np.log(np.sqrt(np.pi) / 2), np.log(2.0)])


def test_memory_stats_and_cuda_namespace(gpu):
    before = oar.device.cuda.memory_allocated()
    x = oar.zeros([1000], "float64")
    assert oar.device.cuda.memory_allocated() - before >= 8000
    assert oar.device.cuda.max_memory_allocated() >= oar.device.cuda.memory_allocated()
    assert oar.device.cuda.device_count() == 1 and x.place == oar.CUDAPlace(0)
    oar.device.cuda.synchronize()


def _train(place, optimizer):
    oar.seed(5)
    oar.set_device(place)
    net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))
    opt = optimizer(parameters=net.parameters())
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((16, 4)).astype("float32"))
    y = oar.to_tensor(np.arange(16) % 3)
    losses = []
    for _ in range(5):
        loss = oar.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, [p.numpy() for p in net.parameters()], net[0].weight.place


@pytest.mark.parametrize("optimizer", [lambda parameters: oar.optimizer.SGD(0.1, parameters=parameters),
                                       lambda parameters: oar.optimizer.Adam(0.01, parameters=parameters)])
def test_training_steps_match_cpu(gpu, optimizer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cpu_losses, cpu_params, cpu_place = _train("cpu", optimizer)
        dev_losses, dev_params, dev_place = _train("gpu", optimizer)
    assert cpu_place == oar.CPUPlace() and dev_place == oar.CUDAPlace(0)
    np.testing.assert_allclose(dev_losses, cpu_losses, rtol=1e-5)
    for a, b in zip(dev_params, cpu_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_no_backend_raises_and_import_loads_no_cupy(tmp_path):
    code = ("import sys, oar\nassert 'cupy' not in sys.modules\n"
            "import oar.nn, oar.optimizer, oar.jit\nassert 'cupy' not in sys.modules\n"
            "try:\n    oar.set_device('gpu')\nexcept RuntimeError as e:\n    print('ERR', e)\n"
            "print(oar.get_device(), oar.device.cuda.device_count())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OAR_DEVICE_BACKEND", "OAR_TEST_DEVICE")}
    env["PYTHONPATH"] = os.getcwd()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ERR no GPU backend") and lines[1] == "cpu 0"
