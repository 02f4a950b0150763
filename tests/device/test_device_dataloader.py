"""DataLoader on the (fake) GPU: batches delivered on the loader's place (`places=`, default the current device),
the next `reader_buffer_size` batches copied to the device in a background thread (`use_buffer_reader`)."""
import threading

import numpy as np
import pytest

import oar
from oar.core import devices
from oar.io import prefetch
from device_table import fake_gpu


@pytest.fixture()
def gpu():
    with fake_gpu():
        yield


class Counting(oar.io.Dataset):
    """20 samples (x: 3 floats, y: an int); counts the samples loaded."""

    def __init__(self):
        self.loaded = 0
        g = np.random.default_rng(0)
        self.x, self.y = g.standard_normal((20, 3)).astype("float32"), np.arange(20)

    def __getitem__(self, i):
        self.loaded += 1
        return self.x[i], self.y[i]

    def __len__(self):
        return 20


def _host(batches):
    return [[t.numpy() for t in b] for b in batches]


def _on(batch, place):
    return all(t.place == place for t in batch)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_batches_on_the_current_device_equal_the_cpu_ones(gpu, num_workers):
    ds = Counting()
    loader = oar.io.DataLoader(ds, batch_size=6, num_workers=num_workers)  # made while the GPU is current
    batches = list(loader)
    assert all(_on(b, oar.CUDAPlace(0)) and devices.is_device_array(b[0]._data) for b in batches)
    ref = list(oar.io.DataLoader(ds, batch_size=6, places="cpu"))
    assert all(_on(b, oar.CPUPlace()) for b in ref)
    for got, want in zip(_host(batches), _host(ref)):
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert [b[0].shape for b in batches] == [[6, 3]] * 3 + [[2, 3]]


def test_training_on_the_device_from_the_loader(gpu):
    oar.seed(0)
    net = oar.nn.Linear(3, 4)
    opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
    for x, y in oar.io.DataLoader(Counting(), batch_size=5, shuffle=True):
        loss = oar.nn.functional.cross_entropy(net(x), y % 4)  # no mixed-device error: the batch is on gpu:0
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert net.weight.place == oar.CUDAPlace(0)


def test_places_resolved_when_the_loader_is_made(gpu):
    oar.set_device("cpu")
    on_cpu = oar.io.DataLoader(Counting(), batch_size=4)
    to_gpu = oar.io.DataLoader(Counting(), batch_size=4, places=[oar.CUDAPlace(0)])
    oar.set_device("gpu")
    assert _on(next(iter(on_cpu)), oar.CPUPlace()) and _on(next(iter(to_gpu)), oar.CUDAPlace(0))
    assert on_cpu.places == ["cpu"] and to_gpu.places == ["gpu:0"]


def test_next_batches_are_copied_ahead_in_a_background_thread(gpu, monkeypatch):
    copies = []

    def recording(a, place):
        copies.append(threading.current_thread().name)
        return devices.place_array(a, place)

    monkeypatch.setattr(prefetch, "place_array", recording)
    ds = Counting()
    it = iter(oar.io.DataLoader(ds, batch_size=2, reader_buffer_size=3))
    first = next(it)
    assert ds.loaded == 2 * 4  # batch 0 delivered while batches 1..3 are on their way to the device
    assert _on(first, oar.CUDAPlace(0))
    rest = list(it)
    assert len(rest) == 9 and all(_on(b, oar.CUDAPlace(0)) for b in rest)
    assert len(copies) == 20 and all(name.startswith("oar-device-feed") for name in copies)


def test_unbuffered_reader_copies_in_the_main_thread_on_demand(gpu, monkeypatch):
    names = []
    monkeypatch.setattr(prefetch, "place_array",
                        lambda a, p: names.append(threading.current_thread().name) or devices.place_array(a, p))
    ds = Counting()
    it = iter(oar.io.DataLoader(ds, batch_size=2, use_buffer_reader=False))
    assert _on(next(it), oar.CUDAPlace(0)) and ds.loaded == 2
    assert names == [threading.current_thread().name] * 2


def test_dataset_of_device_tensors_and_errors_pass_through(gpu):
    data = oar.io.TensorDataset([oar.arange(12, dtype="float32").reshape([6, 2]), oar.arange(6)])
    (x, y), = list(oar.io.DataLoader(data, batch_size=6))
    assert x.place == oar.CUDAPlace(0) and x.numpy().tolist() == np.arange(12.0).reshape(6, 2).tolist()

    class Broken(Counting):
        def __getitem__(self, i):
            if i == 7:
                raise KeyError("sample 7 is missing")
            return super().__getitem__(i)

    with pytest.raises(KeyError, match="sample 7"):
        list(oar.io.DataLoader(Broken(), batch_size=2))


def test_signature_and_bad_arguments():
    # Paddle 3.3.1's positional order: ..., num_workers, use_buffer_reader, reader_buffer_size, prefetch_factor, ...
    loader = oar.io.DataLoader(Counting(), None, None, True, None, 1, False, False, None, 0, True, 3, 4)
    assert loader.reader_buffer_size == 3 and loader.prefetch_factor == 4
    with pytest.raises(ValueError, match="feeds one device"):
        oar.io.DataLoader(Counting(), places=["cpu", "cpu"])
    with pytest.raises(ValueError, match="reader_buffer_size"):
        oar.io.DataLoader(Counting(), reader_buffer_size=0)
