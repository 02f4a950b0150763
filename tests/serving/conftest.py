"""Saved models and a running server for the serving tests (127.0.0.1, a free port, always stopped)."""
import numpy as np
import pytest

import oar
from oar.serving import ServedModel, Server
from oar.static import InputSpec


class TwoHeads(oar.nn.Layer):
    """Two inputs, two outputs: ``(x @ W + y, relu(x @ W))``."""

    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(4, 3)

    def forward(self, x, y):
        h = self.fc(x)
        return h + y, oar.nn.functional.relu(h)


class Centered(oar.nn.Layer):
    """Rows interact (subtracts the batch mean): must not be batched."""

    def forward(self, x):
        return x - x.mean()


class Lookup(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = oar.nn.Embedding(10, 3)

    def forward(self, ids):
        return self.emb(ids)


def save_models(root):
    """name -> (prefix, layer) for the models the tests serve."""
    oar.seed(0)
    mlp = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))
    models = {
        "mlp": (mlp, [InputSpec([None, 4], "float32", "x")]),
        "two": (TwoHeads(), [InputSpec([None, 4], "float32", "x"), InputSpec([None, 3], "float32", "y")]),
        "centered": (Centered(), [InputSpec([None, 4], "float32", "x")]),
        "lookup": (Lookup(), [InputSpec([None, 2], "int64", "ids")]),
    }
    out = {}
    for name, (layer, spec) in models.items():
        prefix = str(root / name)
        oar.jit.save(layer, prefix, input_spec=spec)
        out[name] = (prefix, layer)
    return out


def reference(layer, *arrays):
    outs = layer(*[oar.to_tensor(a) for a in arrays])
    return [o.numpy() for o in (outs if isinstance(outs, (tuple, list)) else [outs])]


@pytest.fixture(scope="package")
def saved(tmp_path_factory):
    return save_models(tmp_path_factory.mktemp("served"))


@pytest.fixture(scope="package")
def server(saved):
    models = {n: ServedModel(n, p, workers=2, max_batch_size=16, batch_timeout_ms=5) for n, (p, _) in saved.items()}
    with Server(models, max_body_bytes=1 << 16) as s:
        yield s


@pytest.fixture
def client(server):
    import tritonclient.http as httpclient
    c = httpclient.InferenceServerClient(f"127.0.0.1:{server.port}", connection_timeout=30, network_timeout=30)
    yield c
    c.close()


def rand(shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)
