"""paddle.incubate (LookAhead, ModelAverage, graph_* aliases, softmax_mask_fuse, FusedDropoutAdd) and the
paddle.geometric functions behind them, against Paddle 3.3.1 (tests/incubate/incubate_ref.json, written by
tools/paddle_refs/incubate_refs.py) and NumPy."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import oar

_spec = importlib.util.spec_from_file_location(
    "incubate_refs", pathlib.Path(__file__).resolve().parents[2] / "tools" / "paddle_refs" / "incubate_refs.py")
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)
REF = json.loads((pathlib.Path(__file__).with_name("incubate_ref.json")).read_text())


@pytest.mark.parametrize("kind", ["lookahead", "model_average"])
def test_optimizer_trajectories_match_paddle(kind):
    np.testing.assert_allclose(R.trajectory(oar, kind), REF[kind], rtol=2e-5, atol=1e-5)


def test_lookahead_matches_its_definition():
    lin = oar.nn.Linear(3, 1, bias_attr=False)
    opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.05, parameters=lin.parameters()), alpha=0.4, k=2)
    w = lin.weight.numpy().copy()
    slow = None
    for t in range(1, 6):
        x = np.full((1, 3), float(t), "float32")
        lin(oar.to_tensor(x)).sum().backward()
        opt.step()
        opt.clear_grad()
        w = w - 0.05 * x.T
        slow = w.copy() if t == 1 else slow
        if t % 2 == 0:
            w = slow = 0.4 * w + 0.6 * slow
        np.testing.assert_allclose(lin.weight.numpy(), w, rtol=1e-5)
    state = opt.state_dict()
    assert state["lookahead_step"] == 5
    with pytest.raises(ValueError, match="alpha"):
        oar.incubate.LookAhead(opt.inner_optimizer, alpha=2.0)


def test_model_average_restores_and_refuses_static_mode():
    lin = oar.nn.Linear(2, 1)
    avg = oar.incubate.ModelAverage(0.5, parameters=lin.parameters(), min_average_window=1, max_average_window=3)
    lin(oar.ones([1, 2])).sum().backward()
    avg.step()
    trained = lin.weight.numpy().copy()
    with avg.apply(need_restore=False):
        pass
    avg.restore()
    np.testing.assert_array_equal(lin.weight.numpy(), trained)
    oar.enable_static()
    try:
        with pytest.raises(NotImplementedError, match="dynamic mode"):
            oar.incubate.ModelAverage(0.5, parameters=[])
    finally:
        oar.disable_static()


def _i(v):
    return oar.to_tensor(v, dtype="int32")


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_u_recv_matches_paddle(reduce_op):
    x = oar.to_tensor(R.X, dtype="float32")
    out = oar.geometric.send_u_recv(x, _i(R.SRC), _i(R.DST), reduce_op=reduce_op)
    assert out.numpy().tolist() == REF[f"send_u_recv_{reduce_op}"]
    alias = oar.incubate.graph_send_recv(x, _i(R.SRC), _i(R.DST), pool_type=reduce_op)
    assert alias.numpy().tolist() == REF[f"send_u_recv_{reduce_op}"]


def test_send_u_recv_gradients_and_out_size():
    x = oar.to_tensor(R.X, dtype="float32", stop_gradient=False)
    oar.geometric.send_u_recv(x, _i(R.SRC), _i(R.DST), reduce_op="max").sum().backward()
    assert x.grad.numpy().tolist() == REF["send_u_recv_max_grad"]
    x.clear_grad()
    oar.geometric.send_u_recv(x, _i(R.SRC), _i(R.DST), reduce_op="mean").sum().backward()
    # node 0 sends to 0 (1 message) and to 1 (2 messages); node 1 to 2 (1); node 2 to 1 (2)
    np.testing.assert_allclose(x.grad.numpy()[:, 0], [1.5, 1.0, 0.5])
    assert oar.geometric.send_u_recv(x, _i(R.SRC), _i(R.DST), out_size=4).numpy().tolist() == \
        REF["send_u_recv_out_size_4"]
    with pytest.raises(ValueError, match="reduce_op"):
        oar.geometric.send_u_recv(x, _i(R.SRC), _i(R.DST), reduce_op="prod")


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
def test_send_ue_recv_matches_paddle(message_op):
    x = oar.to_tensor(R.X, dtype="float32")
    out = oar.geometric.send_ue_recv(x, oar.to_tensor(R.EDGE), _i(R.SRC), _i(R.DST), message_op, "mean")
    np.testing.assert_allclose(out.numpy(), REF[f"send_ue_recv_{message_op}_mean"], rtol=1e-6)


def test_send_uv_and_reindexing_match_paddle():
    x = oar.to_tensor(R.X, dtype="float32")
    assert oar.geometric.send_uv(x, x, _i(R.SRC), _i(R.DST), "mul").numpy().tolist() == REF["send_uv_mul"]
    nodes, nb, cnt = oar.to_tensor([0, 1, 2]), oar.to_tensor([8, 9, 0, 4, 7, 6, 7]), _i([2, 3, 2])
    assert [t.numpy().tolist() for t in oar.geometric.reindex_graph(nodes, nb, cnt)] == REF["reindex_graph"]
    assert [t.numpy().tolist() for t in oar.incubate.graph_reindex(nodes, nb, cnt)] == REF["reindex_graph"]
    heter = oar.geometric.reindex_heter_graph(nodes, [nb, oar.to_tensor([0, 5, 3])], [cnt, _i([1, 1, 1])])
    assert [t.numpy().tolist() for t in heter] == REF["reindex_heter_graph"]
    with pytest.raises(ValueError, match="count"):
        oar.geometric.reindex_graph(nodes, nb, _i([1, 1, 1]))


def test_sample_neighbors_takes_all_when_degree_fits_and_samples_a_subset_otherwise():
    row, colptr, nodes = oar.to_tensor(R.ROW), oar.to_tensor(R.COLPTR), oar.to_tensor(R.NODES)
    got = oar.geometric.sample_neighbors(row, colptr, nodes, sample_size=2, eids=oar.arange(13), return_eids=True)
    assert [t.numpy().tolist() for t in got] == REF["sample_neighbors_all"]
    assert got[1].dtype == oar.int32
    oar.seed(3)
    nb, cnt = oar.incubate.graph_sample_neighbors(row, colptr, oar.to_tensor([5, 6]), sample_size=1)
    assert cnt.numpy().tolist() == [1, 1]
    assert nb.numpy()[0] in R.ROW[7:9] and nb.numpy()[1] in R.ROW[9:11]
    w = oar.to_tensor([1.0, 0.0] + [1.0] * 11)
    picks = {int(oar.geometric.weighted_sample_neighbors(row, colptr, w, oar.to_tensor([0]), 1)[0].numpy()[0])
             for _ in range(20)}
    assert picks == {3}  # the zero-weight edge (to 7) is never drawn
    with pytest.raises(IndexError):
        oar.geometric.sample_neighbors(row, colptr, oar.to_tensor([10]))


def test_softmax_mask_fuse_and_fused_dropout_add():
    rs = np.random.RandomState(0)
    x, mask = rs.randn(2, 3, 4, 4).astype("float32"), np.where(rs.rand(2, 1, 4, 4) > 0.5, 0, -1e4).astype("float32")
    z = x + mask
    want = np.exp(z - z.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    got = oar.incubate.softmax_mask_fuse(oar.to_tensor(x), oar.to_tensor(mask))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="mask"):
        oar.incubate.softmax_mask_fuse(oar.to_tensor(x), oar.to_tensor(mask[:, :, :2]))
    from oar.incubate.nn import FusedDropoutAdd
    layer = FusedDropoutAdd(p=0.25)
    oar.seed(0)
    out = layer(oar.ones([1000]), oar.full([1000], 2.0)).numpy()
    kept = out > 2.5
    np.testing.assert_allclose(out[kept], 2 + 1 / 0.75, rtol=1e-6)
    assert (out[~kept] == 2.0).all() and 0.65 < kept.mean() < 0.85
    layer.eval()
    assert layer(oar.ones([2]), oar.ones([2])).numpy().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="mode"):
        FusedDropoutAdd(mode="bad")


def test_lookahead_minimize_runs_the_inner_minimize_then_the_lookahead():
    def run(use_minimize):
        lin = oar.nn.Linear(2, 1, weight_attr=oar.nn.initializer.Constant(1.0), bias_attr=False)
        opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=lin.parameters()), alpha=0.5, k=2)
        for t in range(4):
            loss = lin(oar.full([1, 2], float(t + 1))).sum()
            loss.backward()
            opt.minimize(loss) if use_minimize else opt.step()
            opt.clear_grad()
        return lin.weight.numpy()
    np.testing.assert_allclose(run(True), run(False))
    assert not np.allclose(run(True), 1.0)
