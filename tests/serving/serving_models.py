"""Models the serving tests save and serve, and their references (the layers run eagerly)."""
import numpy as np

import oar
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


def rand(shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)
