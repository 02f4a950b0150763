"""`F.interpolate` against Paddle 3.3.1's resize kernels (tests/nn/data/interp_refs.npz, made by
tools/paddle_refs/interp_refs.py): every mode over small sizes and scale factors, so the sampling positions are
Paddle's, not merely plausible (float32 steps, the single-output rule, nearest rounding half up with aligned
corners, bicubic's edge handling); plus Paddle's argument checks and the float64 gradients of the new modes."""
import importlib.util
import os

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar.ops.nn.common import resize

HERE = os.path.dirname(__file__)
_spec = importlib.util.spec_from_file_location(
    "interp_refs", os.path.join(HERE, "..", "..", "tools", "paddle_refs", "interp_refs.py"))


def _cases():
    """The generator's case list, read from its source without importing paddle."""
    src = open(_spec.origin).read()
    ns = {}
    exec(compile(src[src.index("def cases"):src.index("def run")], _spec.origin, "exec"), ns)
    return list(ns["cases"]())


REFS = np.load(os.path.join(HERE, "data", "interp_refs.npz"))
CASES = _cases()


def _inputs():
    rng = np.random.default_rng(0)
    return {c[0]: rng.random(c[1], dtype=np.float32) for c in CASES}


INPUTS = _inputs()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_paddle(case):
    key, _, size, scale, mode, ac, am = case
    x, want = oar.to_tensor(INPUTS[key]), REFS[key]
    if want.size == 0:  # Paddle refuses an output size of 0
        with pytest.raises(ValueError, match="output size"):
            F.interpolate(x, size=size, scale_factor=scale, mode=mode, align_corners=ac, align_mode=am)
        return
    if mode == "nearest" and ac:  # only model files reach it (legacy nearest_interp); the public API refuses it
        got = resize(x, size, None, "nearest", True, 0)
    else:
        got = F.interpolate(x, size=size, scale_factor=scale, mode=mode, align_corners=ac, align_mode=am)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def test_nearest_aligned_rounds_half_up():
    x = oar.arange(4, dtype="float32").reshape([1, 1, 1, 4])
    got = resize(x, [1, 7], None, "nearest", True, 0).numpy().ravel().tolist()
    assert got == [0, 1, 1, 2, 2, 3, 3]  # positions 0, .5, 1, ..., 3: half up, not to even ([0, 0, 1, 2, 2, 2, 3])


@pytest.mark.parametrize("kwargs, match", [
    (dict(size=[3, 3], mode="nearest", align_corners=True), "align_corners=True needs an interpolating mode"),
    (dict(size=[3, 3], mode="linear"), "'linear' takes a 3-D input"),
    (dict(size=[3, 3], mode="cubic"), "mode must be one of"),
    (dict(size=[3, 3], scale_factor=2), "only one"),
    (dict(), "needs `size`"),
    (dict(scale_factor=-1.0), "must be > 0"),
    (dict(size=[3, 3], align_mode=2, mode="bilinear"), "align_mode must be 0 or 1"),
    (dict(size=[3], mode="bilinear"), "size has 1 values for a 4-D input"),
    (dict(scale_factor=0.1), r"output size \[0, 0\]"),
])
def test_argument_checks(kwargs, match):
    with pytest.raises(ValueError, match=match):
        F.interpolate(oar.ones([1, 1, 4, 4]), **kwargs)


def test_align_corners_must_be_bool():
    with pytest.raises(TypeError, match="bool"):
        F.interpolate(oar.ones([1, 1, 4, 4]), size=[2, 2], mode="bilinear", align_corners=1)


@pytest.mark.parametrize("mode, ac", [("bicubic", False), ("bicubic", True), ("area", False)])
def test_new_modes_gradients(mode, ac):
    rng = np.random.default_rng(1)
    x0 = rng.random((1, 2, 3, 4))
    w = rng.random((1, 2, 5, 3))

    def f(a):
        x = oar.to_tensor(a, stop_gradient=False)
        return (F.interpolate(x, size=[5, 3], mode=mode, align_corners=ac) * oar.to_tensor(w)).sum(), x
    loss, x = f(x0)
    loss.backward()
    num, eps = np.zeros_like(x0), 1e-6
    for i in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[i] = eps
        num[i] = (float(f(x0 + d)[0]) - float(f(x0 - d)[0])) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_bicubic_converts_and_saves(tmp_path):
    layer = oar.nn.Upsample(size=[6, 5], mode="bicubic")
    x = oar.to_tensor(np.random.default_rng(2).random((1, 1, 3, 4), dtype=np.float32))
    want = layer(x).numpy()
    static = oar.jit.to_static(layer)
    np.testing.assert_allclose(static(x).numpy(), want, rtol=1e-6)
    oar.jit.save(static, str(tmp_path / "m"), input_spec=[oar.static.InputSpec([1, 1, 3, 4], "float32")])
    np.testing.assert_allclose(oar.jit.load(str(tmp_path / "m"))(x).numpy(), want, rtol=1e-6)
