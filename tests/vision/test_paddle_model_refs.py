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
    got = net(oar.to_tensor(GEN.image(ref["input_size"]))).numpy().reshape(-1)
    want = np.asarray(ref["output"], np.float64)
    bias = list(state.values())[-1].numpy()  # the classifier's bias comes last
    # compare what the network adds to the classifier's bias, at a tolerance set by its own scale
    scale = np.std(want - bias)
    np.testing.assert_allclose(got - bias, want - bias, rtol=1e-4, atol=1e-4 * scale)
