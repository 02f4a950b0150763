"""Dropping a model frees it (issue 10, leaks): converted Layers, predictors and loaded TranslatedLayers.

Each test makes, runs and drops 20 models with a 4 MB parameter and checks two things:
- deterministically, weak references to each model's parameters, Programs and runners are dead after
  `gc.collect()`;
- as a process figure, the bytes NumPy and Python hold (tracemalloc, traced after one warm-up model) return to
  within 2 MB of the start, less than half of one model's weights (20 leaked models would be 80 MB).
"""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import oar
from oar import nn
from oar.static import InputSpec

N_MODELS = 20
SIZE = 1024            # Linear(1024, 1024): a 4 MB float32 weight
MARGIN = 2 * 2 ** 20   # bytes


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(SIZE, SIZE)

    @oar.jit.to_static
    def forward(self, x):
        return oar.nn.functional.relu(self.fc(x))


def _returns(make_and_drop):
    """Runs `make_and_drop()` (which returns weak references to what must die) once to warm caches, then
    N_MODELS times under tracemalloc; returns (bytes still held, refs still alive)."""
    gc.collect()
    for r in make_and_drop():
        gc.collect()
        assert r() is None, f"warm-up model: {r} is still alive"
    tracemalloc.start()
    try:
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        refs = []
        for _ in range(N_MODELS):
            refs += make_and_drop()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    return held, [r for r in refs if r() is not None]


def test_dropped_converted_layers_are_freed():
    x = oar.ones([2, SIZE])

    def make_and_drop():
        net = Net()
        out = net(x)
        out.sum().backward()
        concrete = net.forward.get_concrete_program(x)
        refs = [weakref.ref(net), weakref.ref(net.fc.weight), weakref.ref(concrete.main_program),
                weakref.ref(concrete.runner), weakref.ref(net.forward)]
        return refs

    held, alive = _returns(make_and_drop)
    assert not alive, f"{len(alive)} objects of dropped layers still alive, e.g. {alive[0]}"
    assert held < MARGIN, f"{held / 2 ** 20:.1f} MB still held after dropping {N_MODELS} converted layers"


def test_backward_after_dropping_the_layer():
    """The graph keeps the runner (and the parameters) alive as long as the loss needs them, no longer."""
    x = oar.ones([2, SIZE])
    x.stop_gradient = False
    net = Net()
    loss = net(x).sum()
    w = net.fc.weight
    expected_w = x.numpy().T @ (net(x).numpy() > 0).astype(np.float32)
    runner = weakref.ref(net.forward.get_concrete_program(x).runner)
    del net
    gc.collect()
    assert runner() is not None
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), expected_w, rtol=1e-5)
    assert x.grad.shape == [2, SIZE]
    del loss, w
    gc.collect()
    assert runner() is None


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("memory") / "net")
    net = nn.Sequential(nn.Linear(SIZE, SIZE), nn.ReLU())
    net.eval()
    oar.jit.save(net, path, input_spec=[InputSpec([None, SIZE], "float32", "x")])
    return path


def test_dropped_predictors_are_freed(saved_model):
    x = np.ones([2, SIZE], np.float32)

    def make_and_drop():
        config = oar.inference.Config(saved_model + ".pdmodel", saved_model + ".pdiparams")
        p = oar.inference.create_predictor(config)
        h = p.get_input_handle(p.get_input_names()[0])
        h.copy_from_cpu(x)
        p.run()
        out = p.get_output_handle(p.get_output_names()[0]).copy_to_cpu()
        assert out.shape == (2, SIZE)
        return [weakref.ref(p), weakref.ref(h), weakref.ref(p.program), weakref.ref(p._compiled)]

    held, alive = _returns(make_and_drop)
    assert not alive, f"{len(alive)} objects of dropped predictors still alive, e.g. {alive[0]}"
    assert held < MARGIN, f"{held / 2 ** 20:.1f} MB still held after dropping {N_MODELS} predictors"


def test_dropped_loaded_layers_are_freed(saved_model):
    x = oar.ones([2, SIZE])

    def make_and_drop():
        layer = oar.jit.load(saved_model)
        layer.train()
        x.stop_gradient = False
        layer(x).sum().backward()
        params = layer.parameters()
        assert params and params[0].grad is not None
        refs = [weakref.ref(layer)] + [weakref.ref(p) for p in params]
        refs += [weakref.ref(r) for r in layer._runners.values()]
        return refs

    held, alive = _returns(make_and_drop)
    assert not alive, f"{len(alive)} objects of dropped loaded layers still alive, e.g. {alive[0]}"
    assert held < MARGIN, f"{held / 2 ** 20:.1f} MB still held after dropping {N_MODELS} loaded layers"


def test_converted_closures_are_freed():
    """A converted function's twin lives on the function: a closure over a model dies with it."""
    x = oar.ones([2, SIZE])

    def make_and_drop():
        layer = nn.Linear(SIZE, SIZE)

        def f(v):
            if v.mean() > 0:       # tensor-dependent: converted to a cond op
                return layer(v)
            return v

        g = oar.jit.to_static(f)
        assert g(x).shape == [2, SIZE]
        return [weakref.ref(layer.weight), weakref.ref(f), weakref.ref(g)]

    held, alive = _returns(make_and_drop)
    assert not alive, f"{len(alive)} objects of dropped converted closures still alive, e.g. {alive[0]}"
    assert held < MARGIN, f"{held / 2 ** 20:.1f} MB still held after dropping {N_MODELS} converted closures"


def test_a_copied_layer_converts_its_own_forward():
    """The converted method is owned by the instance and left out of copies: a copy builds its own."""
    import copy
    x = oar.ones([2, SIZE])
    net = Net()
    out = net(x).numpy()
    twin = copy.deepcopy(net)
    assert twin.forward is not net.forward and twin.forward._layer is twin
    np.testing.assert_array_equal(twin(x).numpy(), out)
    twin.fc.weight.set_value(np.zeros([SIZE, SIZE], np.float32))
    np.testing.assert_array_equal(net(x).numpy(), out)      # the original's program reads its own weights
