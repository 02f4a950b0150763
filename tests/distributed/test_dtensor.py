"""Distributed tensors on one process: the global value held whole, the local shard by Paddle's rule (the shards
below are what paddlepaddle 3.3.1 gives on rank 0), layouts checked, Partial refused."""
import numpy as np
import pytest

import oar
import oar.distributed as dist


def test_local_shards_follow_paddles_rule():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    d = dist.shard_tensor(oar.arange(6.0).reshape([3, 2]), mesh, [dist.Shard(0)])
    assert d.is_dist() and d.shape == [3, 2] and d.placements == [dist.Shard(0)] and d.process_mesh == mesh
    assert d._local_value().numpy().tolist() == [[0.0, 1.0], [2.0, 3.0]]
    m2 = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    e = dist.shard_tensor(oar.arange(24.0).reshape([4, 6]), m2, [dist.Shard(0), dist.Shard(1)])
    assert e._local_value().numpy().tolist() == [[0.0, 1.0, 2.0], [6.0, 7.0, 8.0]]
    f = dist.shard_tensor(oar.arange(8.0), m2, [dist.Shard(0), dist.Shard(-1)])
    assert f._local_value().numpy().tolist() == [0.0, 1.0] and f.placements == [dist.Shard(0), dist.Shard(0)]


def test_ops_compute_the_global_value_and_reshard_keeps_it():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    d = dist.shard_tensor(x, mesh, [dist.Shard(1)])
    assert not d.stop_gradient and d.sum().item() == 10.0 and not (d * 2).is_dist()
    r = dist.reshard(d, mesh, [dist.Replicate()])
    assert r.placements == [dist.Replicate()] and r._local_value().numpy().tolist() == x.numpy().tolist()
    g = dist.dtensor_from_fn(oar.full, mesh, [dist.Shard(0)], shape=[4], fill_value=3.0)
    assert g._local_value().numpy().tolist() == [3.0, 3.0]
    np.testing.assert_array_equal(dist.shard_tensor(np.ones(3, "float64"), mesh, [dist.Replicate()]).numpy(),
                                  np.ones(3))
    assert not oar.ones([2]).is_dist() and oar.ones([2]).placements is None


def test_layouts_oar_cannot_honour_are_refused():
    mesh = dist.ProcessMesh([[0, 1]], dim_names=["x", "y"])
    with pytest.raises(ValueError, match="a mesh of 2 dims needs 2 placements"):
        dist.shard_tensor(oar.ones([2]), mesh, [dist.Shard(0)])
    with pytest.raises(ValueError, match="Shard\\(dim=2\\) of a tensor with 1 dims"):
        dist.shard_tensor(oar.ones([2]), mesh, [dist.Replicate(), dist.Shard(2)])
    with pytest.raises(NotImplementedError, match="Partial placements are not supported"):
        dist.shard_tensor(oar.ones([2]), mesh, [dist.Partial(), dist.Replicate()])
    with pytest.raises(TypeError, match="reshard: takes a distributed tensor"):
        dist.reshard(oar.ones([2]), mesh, [dist.Replicate(), dist.Replicate()])
    with pytest.raises(ValueError, match="rank 0 is not in the mesh"):
        dist.shard_tensor(oar.ones([2]), dist.ProcessMesh([1, 2]), [dist.Shard(0)])._local_value()
