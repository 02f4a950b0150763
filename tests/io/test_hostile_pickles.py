"""Hostile files for `oar.load` and friends (issue 25, items 4-5): pickle bombs (memo "billion laughs", hash bombs,
allocations from declared sizes, quadratic copies), deep nesting, bad `UnpackBigParamInfor@@`, a Rust panic in
safetensors: each is refused with an error naming the file, in bounded time and memory; loading weights costs
their size once."""
import os
import tracemalloc

import numpy as np
import pytest

import oar
from oar.core import safetensors_file
from oar.io.paddle_pickle import MAX_ELEMENTS, PickleBombError, UnsafePickleError, expanded_size

from hostile_pickles import CASES, deep_nesting

MiB = 1 << 20


@pytest.mark.parametrize("name", [n for n, (_, want) in CASES.items() if want])
def test_hostile_pickle_is_refused_naming_the_file(tmp_path, name):
    data, want = CASES[name]
    path = str(tmp_path / "evil.pdparams")
    with open(path, "wb") as f:
        f.write(data)
    tracemalloc.start()
    try:
        with pytest.raises((ValueError, UnsafePickleError)) as info:
            oar.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert path in str(info.value) and want in str(info.value)
    assert peak < 64 * MiB


def test_deeply_nested_pickle_loads_without_recursion(tmp_path):
    path = str(tmp_path / "deep.pdparams")
    with open(path, "wb") as f:
        f.write(deep_nesting(100_000))
    obj = oar.load(path)
    for _ in range(100_000 - 1):
        assert len(obj) == 1
        obj = obj[0]
    assert obj == []


def test_shared_references_stay_shared_and_are_converted_once(tmp_path):
    import pickle
    w = np.ones(3, "float32")
    path = str(tmp_path / "shared.pdparams")
    with open(path, "wb") as f:
        pickle.dump({"a": [w, w], "b": [w]}, f, protocol=4)
    got = oar.load(path, return_numpy=True)
    assert got["a"][0] is got["a"][1] is got["b"][0]
    np.testing.assert_array_equal(got["a"][0], w)


def test_expanded_size_counts_shared_references_each_time():
    leaf = list(range(10))
    assert expanded_size([leaf] * 3, "x") == 1 + 3 * 11
    cyclic = []
    cyclic.append(cyclic)
    with pytest.raises(PickleBombError, match="contains itself"):
        expanded_size(cyclic, "x")
    with pytest.raises(PickleBombError, match="billion laughs"):
        expanded_size([[leaf] * 1000] * (MAX_ELEMENTS // 10_000), "x")


@pytest.mark.parametrize("protocol", [4, "paddle"])
def test_saving_an_object_nested_too_deeply_names_the_file(tmp_path, protocol):
    obj = {"w": np.ones(2, "float32")}
    for _ in range(1000):
        obj = {"k": obj}
    path = str(tmp_path / "deep.pdparams")
    with pytest.raises(ValueError, match=r"deep\.pdparams': the object nests 1001 dicts/lists/tuples deep"):
        oar.save(obj, path, protocol=protocol)
    assert not os.path.exists(path)


class PanicException(BaseException):
    """Stands for pyo3's PanicException (what safetensors' Rust code raises when it panics, out of memory)."""


def _saved_files(tmp_path):
    net = oar.nn.Linear(4, 2)
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 4])])
    oar.save(net.state_dict(), str(tmp_path / "sd.pdparams"))
    return prefix


def test_a_safetensors_panic_is_a_clear_error_in_every_loader(tmp_path, monkeypatch):
    from oar.inference import Config, create_predictor
    prefix = _saved_files(tmp_path)

    def panic(self, name):
        raise PanicException("PyObject pointer is null")
    monkeypatch.setattr(safetensors_file.SafetensorsFile, "get", panic)
    loaders = {"oar.load": lambda: oar.load(str(tmp_path / "sd.pdparams")), "jit.load": lambda: oar.jit.load(prefix),
               "oar.load(prefix)": lambda: oar.load(prefix), "predictor": lambda: create_predictor(Config(prefix))}
    for what, load in loaders.items():
        with pytest.raises(RuntimeError, match=r"(net\.pdiparams|sd\.pdparams).*failed inside safetensors \(a Rust "
                                               r"panic: PyObject pointer is null\)"):
            load()

    def no_memory(self, name):
        raise MemoryError()
    monkeypatch.setattr(safetensors_file.SafetensorsFile, "get", no_memory)
    for what, load in loaders.items():
        with pytest.raises((MemoryError, RuntimeError), match=r"(net\.pdiparams|sd\.pdparams): not enough memory"):
            load()


@pytest.mark.parametrize("kind", ["jit.load", "oar.load", "predictor"])
def test_loading_weights_costs_their_size_once(tmp_path, kind):
    from oar.inference import Config, create_predictor
    net = oar.nn.Linear(1024, 8192)  # 32 MiB of weights
    size = sum(p.numpy().nbytes for p in net.parameters())
    prefix = str(tmp_path / "net")
    if kind == "oar.load":
        oar.save(net.state_dict(), prefix + ".pdparams")
        load = lambda: oar.load(prefix + ".pdparams")  # noqa: E731
    else:
        oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 1024])])
        load = (lambda: oar.jit.load(prefix)) if kind == "jit.load" else (lambda: create_predictor(Config(prefix)))
    del net
    tracemalloc.start()
    try:
        loaded = load()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert loaded is not None and peak <= 1.5 * size, f"peak {peak / size:.2f}x the weights"
