"""The composed collectives and helpers of oar.distributed in a world of one rank (the multi-rank run is in
collectives_job.py): gather, reduce_scatter, alltoall_single, object collectives, destroy_process_group, io."""
import numpy as np
import pytest

import oar
import oar.distributed as dist

pytest.importorskip("mpi4py")


def test_constants_are_paddles():
    assert (dist.ParallelMode.DATA_PARALLEL, dist.ParallelMode.TENSOR_PARALLEL, dist.ParallelMode.PIPELINE_PARALLEL,
            dist.ParallelMode.SHARDING_PARALLEL, dist.ParallelMode.SEGMENT_PARALLEL) == (0, 1, 2, 3, 4)
    assert [int(t) for t in dist.ReduceType] == list(range(7))
    assert dist.ReduceType.kRedMax.reduce_op == dist.ReduceOp.MAX
    with pytest.raises(ValueError, match="logical"):
        _ = dist.ReduceType.kRedAny.reduce_op


def test_one_rank_compositions():
    got = []
    dist.gather(oar.to_tensor([1.0, 2.0]), got, dst=0)
    assert [t.numpy().tolist() for t in got] == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="gather_list"):
        dist.gather(oar.to_tensor([1.0]), None, dst=0)
    out = oar.zeros([2])
    dist.reduce_scatter(out, [oar.to_tensor([3.0, 4.0])], op=dist.ReduceOp.MAX)
    assert out.numpy().tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match="one tensor per rank"):
        dist.reduce_scatter(out, [out, out])
    out = oar.zeros([3])
    dist.alltoall_single(out, oar.to_tensor([5.0, 6.0, 7.0]))
    assert out.numpy().tolist() == [5.0, 6.0, 7.0]
    dist.alltoall_single(out, oar.to_tensor([1.0, 2.0, 3.0]), in_split_sizes=[3], out_split_sizes=[3])
    assert out.numpy().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="in_split_sizes"):
        dist.alltoall_single(out, oar.to_tensor([1.0, 2.0]), in_split_sizes=[1])


def test_object_collectives():
    objs = [{"lr": 0.1}, [1, 2]]
    dist.broadcast_object_list(objs, src=0)
    assert objs == [{"lr": 0.1}, [1, 2]]
    out = []
    dist.scatter_object_list(out, ["only"], src=0)
    assert out == ["only"]
    with pytest.raises(ValueError, match="1 objects"):
        dist.scatter_object_list(out, ["a", "b"], src=0)
    with pytest.raises(ValueError, match="not a member"):
        dist.broadcast_object_list(objs, src=3)


def test_backend_wait_and_destroy():
    assert dist.is_available() and dist.get_backend() == "MPI"
    x = oar.ones([2])
    dist.wait(x)
    with pytest.raises(TypeError):
        dist.wait([1])
    g = dist.new_group([0])
    dist.destroy_process_group(g)
    with pytest.raises(ValueError, match="no process group"):
        dist.get_group(g.id)
    with pytest.raises(ValueError, match="world group"):
        dist.destroy_process_group(dist.get_group(0))
    dist.init_parallel_env()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    dist.init_parallel_env()
    dist.all_reduce(x)
    assert dist.is_initialized() and x.numpy().tolist() == [1.0, 1.0]


def test_launch_module_is_the_launcher():
    assert dist.launch.find_mpiexec is not None and callable(dist.launch.mpiexec_command)


def test_io_persistables_roundtrip(tmp_path):
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None, 2])
            y = oar.static.nn.batch_norm(oar.static.nn.fc(x, 2))
        exe = oar.static.Executor()
        exe.run(startup)
        exe.run(main, feed={"x": np.random.RandomState(0).randn(4, 2).astype("float32")}, fetch_list=[y])
        before = {k: v.numpy().copy() for k, v in main.state_dict().items()}
        assert any(dist.io.is_persistable(v) for v in main.list_vars()) and not dist.io.is_persistable(x)
        dist.io.save_persistables(exe, str(tmp_path / "ckpt"), main)
        main.set_state_dict({k: np.zeros_like(v) for k, v in before.items()})
        dist.io.load_persistables(exe, str(tmp_path / "ckpt"), main)
        after = {k: v.numpy() for k, v in main.state_dict().items()}
        other = oar.static.Program()
        with oar.static.program_guard(other):
            oar.static.create_parameter([1], "float32", name="unrelated")
        with pytest.raises(ValueError, match="not persistable variables"):
            dist.io.load_persistables(exe, str(tmp_path / "ckpt"), other)
        with pytest.raises(FileNotFoundError):
            dist.io.load_persistables(exe, str(tmp_path / "absent"), main)
    finally:
        oar.disable_static()
    assert sorted(before) == sorted(after) and len(before) >= 5  # fc w, b; bn scale, bias, mean, variance
    for k in before:
        np.testing.assert_array_equal(after[k], before[k])


def test_process_mesh_answers_as_paddle():
    m = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    assert (m.shape, m.ndim, m.process_ids, m.dim_names, m.size) == ([2, 2], 2, [0, 1, 2, 3], ["x", "y"], 4)
    assert repr(m) == "shape [2, 2], process_ids [0, 1, 2, 3], dim_names ['x', 'y']"  # Paddle 3.3.1's str
    assert repr(m.get_mesh_with_dim("y")) == "shape [2, 2], process_ids [0, 2, 1, 3], dim_names ['y', 'x']"
    assert repr(m["x"]) == "shape [2], process_ids [0, 2], dim_names ['x']"  # through rank 0
    assert m.get_mesh_with_dim("x", 1).process_ids == [2, 3]
    assert m.get_rank_by_dim_and_process_id("y", 3) == 1 and m.contains(2) and not m.contains(7)
    assert m == dist.ProcessMesh(shape=[2, 2], process_ids=[0, 1, 2, 3], dim_names=["x", "y"])
    assert dist.ProcessMesh([0, 1, 2]).dim_names == ["d0"]
    with pytest.raises(ValueError, match="unique"):
        dist.ProcessMesh([0, 0])
    with pytest.raises(ValueError, match="no dim named"):
        m.get_dim_size("z")


def test_placements_and_dist_attr():
    assert repr(dist.Shard(0)) == "Shard(dim=0)" and dist.Shard(1).get_dim() == 1
    assert repr(dist.Partial()) == "Partial(reduce_type=SUM)"
    assert repr(dist.Partial(dist.ReduceType.kRedMax)) == "Partial(reduce_type=MAX)"
    assert dist.Shard(0) == dist.Shard(0) != dist.Shard(1) and dist.Replicate() == dist.Replicate()
    assert dist.Partial() == dist.Partial(dist.ReduceType.kRedSum) != dist.Partial(dist.ReduceType.kRedMin)
    assert len({dist.Shard(0), dist.Shard(0), dist.Replicate()}) == 2
    assert dist.Shard(0).is_shard(0) and not dist.Shard(0).is_shard(1) and dist.Partial().is_partial()
    m = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    assert dist.DistAttr(m, ["x", None]).dims_mapping == [0, -1]  # Paddle 3.3.1
    assert dist.DistAttr(m, [None, "y", "x"]).dims_mapping == [-1, 1, 0]
    with pytest.raises(ValueError, match="only one"):
        dist.DistAttr(m, ["x", "x"])


def test_distributed_checkpoint_roundtrip(tmp_path):
    src = oar.nn.Sequential(oar.nn.Linear(3, 4), oar.nn.BatchNorm1D(4))
    dist.save_state_dict(src.state_dict(), str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0.metadata", "0_0.distcp"]
    dst = oar.nn.Sequential(oar.nn.Linear(3, 4), oar.nn.BatchNorm1D(4))
    target = dst.state_dict()
    dist.load_state_dict(target, str(tmp_path))
    for k, v in src.state_dict().items():
        np.testing.assert_array_equal(dst.state_dict()[k].numpy(), v.numpy())
    with pytest.raises(KeyError, match="not in the checkpoint"):
        dist.load_state_dict({"other": oar.zeros([1])}, str(tmp_path))
    with pytest.raises(ValueError, match="shape"):
        dist.load_state_dict({"0.weight": oar.zeros([4, 3])}, str(tmp_path))
    with pytest.raises(FileNotFoundError):
        dist.load_state_dict(target, str(tmp_path / "none"))
