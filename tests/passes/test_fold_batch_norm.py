"""fold_batch_norm: inference batch_norm after conv2d / linear is folded away; results unchanged."""
import numpy as np

import oar
import oar.nn.functional as F
from oar.passes import apply_passes, constant_folding, dead_code_elimination, fold_batch_norm

from pass_helpers import build, const, run

rng = np.random.default_rng(0)


def bn_params(c):
    return (const(rng.standard_normal(c)), const(rng.random(c) + 0.5), const(rng.standard_normal(c)),
            const(rng.standard_normal(c)))


def test_conv_bias_bn():
    w, b = const(rng.standard_normal([4, 3, 3, 3])), const(rng.standard_normal(4))
    mean, var, gamma, beta = bn_params(4)

    def f(x):
        y = F.conv2d(x, w, b, padding=1)
        return F.relu(F.batch_norm(y, mean, var, gamma, beta, training=False, epsilon=1e-3))

    p, feeds, fetch = build(f, [("x", [-1, 3, 6, 6], "float32")])
    q = dead_code_elimination(fold_batch_norm(constant_folding(p), keep=fetch), keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert "batch_norm" not in types and types.count("conv2d") == 1, types
    assert q.provenance[-2] == "fold_batch_norm: folded 1 batch_norm ops"
    x = rng.standard_normal([2, 3, 6, 6]).astype("float32")
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)


def test_conv_without_bias_and_linear():
    w = const(rng.standard_normal([5, 2, 3, 3]))
    lw, lb = const(rng.standard_normal([20, 6])), const(rng.standard_normal(6))
    bn1, bn2 = bn_params(5), bn_params(6)

    def f(x):
        y = F.batch_norm(F.conv2d(x, w), *bn1, training=False)
        y = oar.flatten(F.max_pool2d(y, 2), 1)
        return F.batch_norm(F.linear(y, lw, lb), *bn2, training=False, data_format="NC")

    p, feeds, fetch = build(f, [("x", [-1, 2, 6, 6], "float32")])
    q = apply_passes(p, keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert "batch_norm" not in types, types
    x = rng.standard_normal([3, 2, 6, 6]).astype("float32")
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)


def test_training_bn_and_shared_conv_output_left_alone():
    w = const(rng.standard_normal([4, 3, 1, 1]))
    bn = bn_params(4)

    def f(x):
        y = F.conv2d(x, w)
        return F.batch_norm(y, *bn, training=False) + y  # conv output has a second reader

    p, feeds, fetch = build(f, [("x", [-1, 3, 4, 4], "float32")])
    q = fold_batch_norm(p, keep=fetch)
    assert "batch_norm" in [op.type for op in q.global_block().ops]


def test_train_traced_program_cloned_for_test():
    w = const(rng.standard_normal([4, 3, 3, 3]))
    mean, var, gamma, beta = bn_params(4)

    def f(x):
        return F.batch_norm(F.conv2d(x, w), mean, var, gamma, beta, training=True)

    p, feeds, fetch = build(f, [("x", [-1, 3, 5, 5], "float32")])
    assert "assign" in [op.type for op in p.global_block().ops]
    t = p.clone(for_test=True)
    q = apply_passes(t, keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert "batch_norm" not in types and "assign" not in types, types
    x = rng.standard_normal([2, 3, 5, 5]).astype("float32")
    before = mean.numpy().copy()
    np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(t, feeds, fetch, [x])[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(mean.numpy(), before)
