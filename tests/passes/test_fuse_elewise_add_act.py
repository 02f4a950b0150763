"""fuse_elewise_add_act: add -> activation pairs become one op; values and gradients unchanged."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar.passes import apply_passes, fuse_elewise_add_act
from oar.passes.fuse_elewise_add_act import fused_elemwise_add_act

from pass_helpers import build, const, run

rng = np.random.default_rng(0)


@pytest.mark.parametrize("act", ["relu", "tanh", "sigmoid"])
def test_chain_fused_values_unchanged(act):
    b = const(rng.standard_normal(6))

    def f(x, y):
        h = getattr(F, act)(x + y)
        return getattr(F, act)(h + b) * 2.0

    p, feeds, fetch = build(f, [("x", [-1, 6], "float32"), ("y", [-1, 6], "float32")])
    q = fuse_elewise_add_act(p, keep=fetch)
    types = [op.type for op in q.global_block().ops]
    assert [t for t in types if t not in ("full", "multiply")] == ["fused_elemwise_add_act"] * 2
    assert q.global_block().ops[0].attrs == {"act": act}
    assert q.provenance[-1] == "fuse_elewise_add_act: fused 2 add+activation pairs"
    for batch in (1, 4):
        xs = [rng.standard_normal([batch, 6]).astype("float32") for _ in range(2)]
        np.testing.assert_allclose(run(q, feeds, fetch, xs)[0], run(p, feeds, fetch, xs)[0], rtol=1e-6)


def test_not_fused_when_sum_is_read_twice_kept_or_activation_has_attrs():
    def f(x, y):
        s = x + y
        return F.relu(s) + s

    p, feeds, fetch = build(f, [("x", [3], "float32"), ("y", [3], "float32")])
    assert "fused_elemwise_add_act" not in [o.type for o in fuse_elewise_add_act(p, keep=fetch).global_block().ops]
    p2, feeds2, fetch2 = build(lambda x, y: F.relu(x + y), [("x", [3], "float32"), ("y", [3], "float32")])
    s = p2.global_block().ops[0].output_names()[0]
    q2 = fuse_elewise_add_act(p2, keep=fetch2 + [s])
    assert "fused_elemwise_add_act" not in [o.type for o in q2.global_block().ops]
    p3, _, fetch3 = build(lambda x, y: F.leaky_relu(x + y, 0.1), [("x", [3], "float32"), ("y", [3], "float32")])
    assert "fused_elemwise_add_act" not in [o.type for o in fuse_elewise_add_act(p3, fetch3).global_block().ops]
    q = apply_passes(p2, ["fuse_elewise_add_act", "dead_code_elimination"], keep=fetch2)
    xs = [rng.standard_normal(3).astype("float32") for _ in range(2)]
    np.testing.assert_allclose(run(q, feeds2, fetch2, xs)[0], np.maximum(xs[0] + xs[1], 0))


@pytest.mark.parametrize("act", ["relu", "tanh", "sigmoid"])
def test_op_gradient_matches_unfused_with_broadcast(act):
    x0 = rng.standard_normal([3, 4]) + 0.05
    y0 = rng.standard_normal([4])
    x, y = oar.to_tensor(x0, stop_gradient=False), oar.to_tensor(y0, stop_gradient=False)
    xr, yr = oar.to_tensor(x0, stop_gradient=False), oar.to_tensor(y0, stop_gradient=False)
    w = rng.standard_normal([3, 4])
    (fused_elemwise_add_act(x, y, act) * oar.to_tensor(w)).sum().backward()
    (getattr(F, act)(xr + yr) * oar.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xr.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), yr.grad.numpy(), rtol=1e-10)
    # finite differences (float64)
    f = {"relu": lambda a: np.maximum(a, 0), "tanh": np.tanh, "sigmoid": lambda a: 1 / (1 + np.exp(-a))}[act]
    eps, num = 1e-6, np.zeros_like(y0)
    for i in range(y0.size):
        d = np.zeros_like(y0)
        d[i] = eps
        num[i] = ((f(x0 + y0 + d) * w).sum() - (f(x0 + y0 - d) * w).sum()) / (2 * eps)
    np.testing.assert_allclose(y.grad.numpy(), num, rtol=1e-5, atol=1e-7)


def test_training_through_to_static_keeps_gradients():
    class Net(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = oar.nn.Linear(5, 8), oar.nn.Linear(8, 3)

        def forward(self, x):
            h = F.relu(self.a(x))
            return F.tanh(self.b(h) + x[:, :3])

    oar.seed(1)
    eager = Net()
    conv = Net()
    conv.set_state_dict(eager.state_dict())
    bs = oar.static.BuildStrategy()
    bs.fuse_elewise_add_act_ops = True
    conv = oar.jit.to_static(conv, build_strategy=bs)
    x = oar.to_tensor(rng.standard_normal([4, 5]).astype("float32"))
    for net in (eager, conv):
        net(x).sum().backward()
    cp = conv.forward.concrete_program
    assert [t for t in (op.type for op in cp.run_program.global_block().ops) if t.startswith("fused")] == \
        ["fused_elemwise_add_act", "fused_elemwise_add_act"]
    for (n, p), q in zip(eager.named_parameters(), conv.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=n)
