"""fuse_linear: matmul + bias [+ relu] with constant weights becomes one op; results unchanged."""
import numpy as np

import oar
import oar.nn.functional as F
from oar.passes import apply_passes, fuse_linear

from pass_helpers import build, const, run

rng = np.random.default_rng(0)


def test_mlp_chain_fused():
    w1, b1, w2, b2 = const(rng.standard_normal([8, 16])), const(rng.standard_normal(16)), \
        const(rng.standard_normal([16, 4])), const(rng.standard_normal(4))

    def f(x):
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)

    p, feeds, fetch = build(f, [("x", [-1, 8], "float32")])
    q = fuse_linear(p, keep=fetch)
    assert [op.type for op in q.global_block().ops] == ["fused_linear", "fused_linear"]
    assert q.global_block().ops[0].attrs == {"act": "relu"}
    assert q.provenance[-1] == "fuse_linear: fused 2 linear chains"
    for batch in (1, 3):
        x = rng.standard_normal([batch, 8]).astype("float32")
        np.testing.assert_allclose(run(q, feeds, fetch, [x])[0], run(p, feeds, fetch, [x])[0], rtol=1e-5)


def test_not_fused_when_intermediate_is_read_twice_or_kept():
    w, b = const(rng.standard_normal([8, 4])), const(rng.standard_normal(4))

    def f(x):
        y = oar.matmul(x, w)
        return (y + b) * y

    p, feeds, fetch = build(f, [("x", [-1, 8], "float32")])
    assert "fused_linear" not in [op.type for op in fuse_linear(p, keep=fetch).global_block().ops]
    p2, _, fetch2 = build(lambda x: oar.matmul(x, w) + b, [("x", [-1, 8], "float32")])
    mm = p2.global_block().ops[0].output_names()[0]
    assert "fused_linear" not in [op.type for op in fuse_linear(p2, keep=fetch2 + [mm]).global_block().ops]
    q = apply_passes(p2, keep=fetch2)
    x = rng.standard_normal([2, 8]).astype("float32")
    np.testing.assert_allclose(run(q, ["x"], fetch2, [x])[0], run(p2, ["x"], fetch2, [x])[0], rtol=1e-5)
