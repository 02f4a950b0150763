"""A Layer trained through to_static and saved without input_spec is traced again with an unknown batch dim, so
code that reads `x.shape[0]` works for any batch size after loading (the traced batch is not baked in)."""
import numpy as np

import oar
import oar.nn as nn


class Flat(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        return self.fc(oar.reshape(x, [x.shape[0], -1]))


def test_saved_program_has_no_traced_batch(tmp_path):
    oar.seed(0)
    net = oar.jit.to_static(Flat())
    net(oar.randn([4, 2, 3])).mean().backward()       # traced on a batch of 4
    path = str(tmp_path / "flat")
    oar.jit.save(net, path)
    loaded = oar.jit.load(path)
    prog = loaded.program()
    activations = [v for v in prog.global_block().vars.values() if v.dtype.kind == "f" and not v.persistable]
    assert activations and all(v.shape[0] == -1 for v in activations)
    for batch in (1, 3):
        x = oar.randn([batch, 2, 3])
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)
