"""RNN state_dict keys and shapes equal Paddle 3.3.1's (reference written by tools/paddle_refs/rnn_state_dict.py),
and Paddle-keyed and older oar-keyed state dicts both load."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import oar

REF = json.loads((pathlib.Path(__file__).parent / "rnn_state_dict_ref.json").read_text())["configs"]
_spec = importlib.util.spec_from_file_location(
    "rnn_refs", pathlib.Path(__file__).parents[2] / "tools" / "paddle_refs" / "rnn_state_dict.py")
_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tool)


def _build(name):
    cls, i, h, n, d = _tool.CONFIGS[name]
    return getattr(oar.nn, cls)(i, h, num_layers=n, direction=d)


@pytest.mark.parametrize("name", sorted(_tool.CONFIGS))
def test_state_dict_keys_and_shapes_equal_paddles(name):
    got = [[k, list(v.shape)] for k, v in _build(name).state_dict().items()]
    assert got == REF[name]


@pytest.mark.parametrize("name", ["LSTM-2-bidirect", "GRU-2-forward", "SimpleRNN-1-forward"])
def test_paddle_keyed_and_old_oar_keyed_state_dicts_load(name):
    src = _build(name)
    rng = np.random.default_rng(0)
    by_tensor = {}  # one random value per tensor, under each of its names
    values = {k: by_tensor.setdefault(id(v), rng.standard_normal(v.shape).astype("float32"))
              for k, v in src.state_dict().items()}
    flat = {k: v for k, v in values.items() if "." not in k}  # Paddle's flat names only
    x = oar.to_tensor(rng.standard_normal((2, 5, 3)).astype("float32"))
    for keys in (flat, {k: v for k, v in values.items() if "." in k}):  # ... and oar's older cell paths only
        dst = _build(name)
        assert dst.set_state_dict(keys) == ([], [])
        for k, v in dst.state_dict().items():
            np.testing.assert_array_equal(v.numpy(), values[k])
    a, b = _build(name), _build(name)
    a.set_state_dict(flat)
    b.set_state_dict({k: v for k, v in values.items() if "." in k})
    np.testing.assert_array_equal(a(x)[0].numpy(), b(x)[0].numpy())
    assert len(a.parameters()) == len(flat)  # each tensor once, whatever its names


def test_a_paddle_saved_lstm_checkpoint_gives_paddles_outputs():
    here = pathlib.Path(__file__).parent
    sd = oar.load(str(here / "paddle_lstm.pdparams"))  # written by paddle.save (Paddle 3.3.1)
    m = _build("LSTM-2-bidirect")
    assert m.set_state_dict(sd) == ([], [])
    ref = np.load(here / "paddle_lstm_io.npz")
    y, (h, c) = m(oar.to_tensor(ref["x"]))
    for got, want in ((y, ref["y"]), (h, ref["h"]), (c, ref["c"])):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
