"""fuse_conv_bias_act: conv2d + bias [+ residual] [+ relu] with constant weights becomes one fused_conv2d op whose
planned kernel (ConvRunner: every im2col algorithm) gives the same results as the unfused program."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar.kernels import conv as K
from oar.kernels.conv_plan import ConvRunner, _ShapePlan
from oar.passes import apply_passes, constant_folding, fuse_conv_bias_act
from oar.graph.serialize import program_to_dict, validate

from pass_helpers import build, const, run

rng = np.random.default_rng(0)


def types(p):
    return [op.type for op in p.global_block().ops]


def block_fn():
    """A residual block as resnet writes it: the shortcut conv is computed after the main branch."""
    w1, b1 = const(rng.standard_normal([6, 3, 3, 3]) * 0.3), const(rng.standard_normal(6))
    w2, b2 = const(rng.standard_normal([6, 6, 3, 3]) * 0.2), const(rng.standard_normal(6))
    wd, bd = const(rng.standard_normal([6, 3, 1, 1])), const(rng.standard_normal(6))

    def f(x):
        y = F.relu(F.conv2d(x, w1, b1, padding=1))
        y = F.conv2d(y, w2, b2, padding=1)
        shortcut = F.conv2d(x, wd, bd)
        return F.relu(y + shortcut)
    return f


def test_residual_block_fused_and_unchanged():
    p, feeds, fetch = build(block_fn(), [("x", [-1, 3, 7, 7], "float32")])
    q = fuse_conv_bias_act(constant_folding(p), keep=fetch)
    assert types(q) == ["fused_conv2d"] * 3
    acts = [op.attrs["act"] for op in q.global_block().ops]
    assert acts == ["relu", None, "relu"] and q.global_block().ops[2].inputs.get("residual")
    assert q.provenance[-1] == "fuse_conv_bias_act: fused 3 convolution chains"
    validate(program_to_dict(q))  # the rewritten program is well formed (and saves)
    for batch in (1, 2):
        x = rng.standard_normal([batch, 3, 7, 7]).astype("float32")
        np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)


def test_without_epilogue_only_bias_is_fused():
    p, feeds, fetch = build(block_fn(), [("x", [-1, 3, 7, 7], "float32")])
    q = fuse_conv_bias_act(constant_folding(p), keep=fetch, epilogue=False)
    assert types(q).count("fused_conv2d") == 3 and "relu" in types(q)
    x = rng.standard_normal([2, 3, 7, 7]).astype("float32")
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)


def test_not_fused_when_intermediate_is_kept_or_read_twice():
    w, b = const(rng.standard_normal([4, 3, 3, 3])), const(rng.standard_normal(4))

    def f(x):
        y = F.conv2d(x, w, b)
        return F.relu(y) * y

    p, feeds, fetch = build(f, [("x", [-1, 3, 5, 5], "float32")])
    q = fuse_conv_bias_act(constant_folding(p), keep=fetch)
    assert types(q).count("fused_conv2d") == 1 and "relu" in types(q)  # conv + bias only: y is read twice
    conv_out = p.global_block().ops[0].output_names()[0]
    assert "fused_conv2d" not in types(fuse_conv_bias_act(constant_folding(p), keep=fetch + [conv_out]))
    x = rng.standard_normal([1, 3, 5, 5]).astype("float32")
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)


def test_grouped_and_strided_convs_unchanged():
    w, b = const(rng.standard_normal([4, 2, 3, 3])), const(rng.standard_normal(4))
    p, feeds, fetch = build(lambda x: F.relu(F.conv2d(x, w, b, stride=2, padding=1, groups=2)),
                            [("x", [-1, 4, 6, 6], "float32")])
    q = apply_passes(p, keep=fetch)
    assert types(q) == ["fused_conv2d"]
    x = rng.standard_normal([2, 4, 6, 6]).astype("float32")
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("c, h, k, s, p, d", [(3, 11, 7, 2, 3, 1), (5, 6, 3, 1, 1, 1), (5, 7, 3, 2, 1, 2),
                                             (5, 4, 1, 1, 0, 1), (5, 6, 1, 2, 0, 1), (2, 5, 3, 1, 0, 1)])
@pytest.mark.parametrize("reuse", [False, True])
def test_every_conv_algorithm_matches_im2col(c, h, k, s, p, d, reuse):
    for n in (1, 2):
        x = rng.standard_normal([n, c, h, h]).astype("float32")
        w = rng.standard_normal([4, c, k, k]).astype("float32")
        want = K.conv_forward(x, w, (s, s), [(p, p), (p, p)], (d, d), 1)
        r = ConvRunner(w, (s, s), [(p, p), (p, p)], (d, d), reuse)
        plan = r.plans[(x.shape, x.dtype)] = _ShapePlan(r, x.shape, x.dtype)
        for algo in plan.candidates:
            plan.algo = algo
            np.testing.assert_allclose(r(x), want, rtol=1e-4, atol=1e-4, err_msg=algo)
            np.testing.assert_allclose(r(x * 2), want * 2, rtol=1e-4, atol=1e-4, err_msg=algo)  # buffers reused
        plan.algo = None
        np.testing.assert_allclose(r(x), want, rtol=1e-4, atol=1e-4)  # the measured choice
        assert plan.algo in plan.candidates


def test_eager_reference_kernel_matches():
    """The op's own (unplanned) kernel, used by constant folding, equals conv + bias + residual + relu."""
    from oar.passes.fuse_conv import _fused_conv2d
    x, w = rng.standard_normal([2, 3, 5, 5]), rng.standard_normal([4, 3, 3, 3])
    b, r = rng.standard_normal([4, 1, 1]), rng.standard_normal([2, 4, 5, 5])
    got = _fused_conv2d(x, w, b, r, strides=[1, 1], paddings=[[1, 1], [1, 1]], dilations=[1, 1], act="relu")
    want = F.relu(F.conv2d(oar.to_tensor(x), oar.to_tensor(w), padding=1) + oar.to_tensor(b) + oar.to_tensor(r))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-10)
