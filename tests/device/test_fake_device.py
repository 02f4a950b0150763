"""Device storage on the fake device: places, transfers, mixed-device errors, the CPU fallback, training steps and
what `import oar` loads; plus what happens without a GPU backend."""
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import oar
from oar.core import devices, fake_device
from oar.kernels.backend import array_module, scatter_add
from oar.ops.device import FALLBACK
from device_table import ATOL, BACKEND, RTOL, fake_gpu

fake_only = pytest.mark.skipif(BACKEND != "fake", reason="about the fake device / a machine without a GPU backend")


@pytest.fixture()
def gpu():
    with fake_gpu():
        yield


@fake_only
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
    assert devices.is_device_array(x._data) and type(x._data) is not np.ndarray
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
    x = oar.zeros([100000], "float64")
    assert oar.device.cuda.memory_allocated() - before >= 800000
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
    np.testing.assert_allclose(dev_losses, cpu_losses, rtol=RTOL)
    for a, b in zip(dev_params, cpu_params):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


@fake_only
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


def test_jit_save_from_device_training_and_load_with_place(gpu, tmp_path):
    spec = [oar.static.InputSpec([None, 4], "float32", "x")]
    x = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    paths = {}
    for place in ("cpu", "gpu"):
        oar.seed(3)
        oar.set_device(place)
        with oar.base.unique_name.guard():  # the same layer and parameter names in both files
            net = oar.nn.Linear(4, 2)
            opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
            loss = net(oar.to_tensor(x)).sum()
            loss.backward()
            opt.step()
            paths[place] = str(tmp_path / place / "net")
            oar.jit.save(net, paths[place], input_spec=spec)
    for suffix in (".pdmodel", ".pdiparams"):  # the same bytes, but for the random id of each save
        cpu_bytes, gpu_bytes = [re.sub(rb"[0-9a-f]{32}", b"ID", open(paths[p] + suffix, "rb").read())
                                for p in ("cpu", "gpu")]
        assert cpu_bytes == gpu_bytes, suffix
    oar.set_device("cpu")
    on_gpu = oar.jit.load(paths["gpu"], place="gpu:0")
    on_cpu = oar.jit.load(paths["gpu"], place=oar.CPUPlace())
    assert {p.place for p in on_gpu.parameters()} == {oar.CUDAPlace(0)}
    assert {p.place for p in on_cpu.parameters()} == {oar.CPUPlace()}
    want = on_cpu(oar.to_tensor(x)).numpy()
    got = on_gpu(oar.to_tensor(x, place="gpu")).numpy()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_predictor_enable_use_gpu(gpu, tmp_path):
    oar.set_device("cpu")
    net = oar.nn.Sequential(oar.nn.Conv2D(2, 4, 3, padding=1), oar.nn.BatchNorm2D(4), oar.nn.ReLU(),
                            oar.nn.Flatten(), oar.nn.Linear(4 * 5 * 5, 8), oar.nn.ReLU(), oar.nn.Linear(8, 2))
    net.eval()  # (the inference passes fold the batch norm and fuse conv + bias + relu, linear + relu)
    oar.jit.save(net, str(tmp_path / "net"), input_spec=[oar.static.InputSpec([None, 2, 5, 5], "float32", "x")])
    x = np.random.default_rng(2).standard_normal((3, 2, 5, 5)).astype("float32")
    outs = {}
    for gpu_on in (False, True):
        config = oar.inference.Config(str(tmp_path / "net.pdmodel"), str(tmp_path / "net.pdiparams"))
        if gpu_on:
            config.enable_use_gpu(8, 0)
        assert config.use_gpu() is gpu_on
        predictor = oar.inference.create_predictor(config)
        assert {"fused_conv2d", "fused_linear"} <= {op.type for op in predictor.program.global_block().ops}
        if gpu_on:
            assert {devices.device_of(a) for a in predictor.scope.vars.values()} == {"gpu:0"}
        (out,) = predictor.run([x])
        h = predictor.get_input_handle(predictor.get_input_names()[0])
        h.copy_from_cpu(x)
        predictor.run()
        handle_out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
        assert type(out) is np.ndarray and type(handle_out) is np.ndarray
        outs[gpu_on] = (out, handle_out)
    for a, b in zip(outs[True], outs[False]):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)
    with pytest.raises(ValueError, match="precision"):
        oar.inference.Config(str(tmp_path / "net.pdmodel"), str(tmp_path / "net.pdiparams")).enable_use_gpu(
            8, 0, precision_mode="float16")


def test_to_static_runs_on_the_device(gpu):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results = {}
        for place in ("cpu", "gpu"):
            oar.seed(4)
            oar.set_device(place)
            net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))
            static = oar.jit.to_static(net)
            opt = oar.optimizer.Adam(0.01, parameters=net.parameters())
            x = oar.to_tensor(np.random.default_rng(0).standard_normal((6, 4)).astype("float32"))
            for _ in range(3):
                loss = (static(x) ** 2).mean()
                loss.backward()
                opt.step()
                opt.clear_grad()
            results[place] = (float(loss), [p.numpy() for p in net.parameters()], loss.place)
    assert results["gpu"][2] == oar.CUDAPlace(0)
    np.testing.assert_allclose(results["gpu"][0], results["cpu"][0], rtol=RTOL)
    for a, b in zip(results["gpu"][1], results["cpu"][1]):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


def test_captured_training_step_runs_on_the_device(gpu):
    """A whole converted step (forward, backward, Adam update, fused elementwise chains) on gpu:0 equals the CPU."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results = {}
        for place in ("cpu", "gpu"):
            oar.seed(4)
            oar.set_device(place)
            net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))
            opt = oar.optimizer.Adam(0.01, parameters=net.parameters())

            @oar.jit.to_static
            def step(x, y):
                loss = oar.nn.functional.cross_entropy(net(x), y)
                loss.backward()
                opt.step()
                opt.clear_grad()
                return loss

            x = oar.to_tensor(np.random.default_rng(0).standard_normal((6, 4)).astype("float32"))
            y = oar.to_tensor(np.arange(6) % 3)
            losses = [float(step(x, y)) for _ in range(4)]
            results[place] = (losses, [p.numpy() for p in net.parameters()], net[0].weight.place)
    assert results["gpu"][2] == oar.CUDAPlace(0)
    np.testing.assert_allclose(results["gpu"][0], results["cpu"][0], rtol=RTOL)
    for a, b in zip(results["gpu"][1], results["cpu"][1]):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)
