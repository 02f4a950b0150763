"""Paddle's vision models give Paddle's numbers: the same formula-made weights (set through `set_state_dict`, so the
keys, shapes and order must match Paddle's) on the same input give the eval-mode outputs Paddle 3.3.1 gave
(tests/vision/paddle_model_refs.json, written by tools/paddle_refs/vision_models.py)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import oar

HERE = pathlib.Path(__file__).resolve().parent
REFS = json.loads((HERE / "paddle_model_refs.json").read_text())["models"]
_spec = importlib.util.spec_from_file_location("vision_refs", HERE.parents[1] / "tools" / "paddle_refs" /
                                               "vision_models.py")
GEN = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GEN)


@pytest.mark.parametrize("arch", sorted(REFS))
def test_model_matches_paddle(arch):
    net = getattr(oar.vision.models, arch)()
    state = net.state_dict()
    net.set_state_dict(GEN.weights([(k, list(v.shape)) for k, v in state.items()]))
    net.eval()
    ref = REFS[arch]
    outs = net(oar.to_tensor(GEN.image(ref["input_size"])))
    outs = outs if isinstance(outs, (tuple, list)) else [outs]
    assert len(outs) == len(ref["outputs"])
    for got, want in zip(outs, ref["outputs"]):
        got, want = got.numpy().reshape(-1), np.asarray(want, np.float64)
        # absolute tolerance: 1e-4 of the outputs' spread (float32 sums in another order), so near-zero logits are
        # not held to a relative bound
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.std(want))
