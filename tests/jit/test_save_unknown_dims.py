"""A converted function indexing an unknown dim with a constant (`x[2, 0]` under InputSpec([None, 3])) builds
and saves: shape inference does not probe that dim with sizes the index does not fit."""
import numpy as np

import oar as paddle
from oar.static import InputSpec


def pick(x):
    return x[2, 0] + x[-3, 1:].sum()


def test_constant_index_on_an_unknown_dim_saves_and_loads(tmp_path):
    sf = paddle.jit.to_static(pick, input_spec=[InputSpec([None, 3], "float32")])
    path = str(tmp_path / "pick")
    paddle.jit.save(sf, path)
    loaded = paddle.jit.load(path)
    for rows in (3, 5):
        x = paddle.to_tensor(np.arange(rows * 3, dtype="float32").reshape(rows, 3))
        want = pick(x).numpy()
        np.testing.assert_allclose(sf(x).numpy(), want)
        np.testing.assert_allclose(loaded(x).numpy(), want)
    assert list(sf.concrete_program.outputs[0].shape) == []
