"""oar.distributed in one process: environment, a world of one rank, the ops in programs, the launcher's command."""
import numpy as np
import pytest

import oar
import oar.distributed as dist
from oar.distributed import ParallelEnv
from oar.distributed.launch import failed_ranks, mpiexec_command
from oar.distributed.reducer import _buckets, count_reads

pytest.importorskip("mpi4py")


def test_parallel_env_reads_the_launcher_environment(monkeypatch):
    monkeypatch.setenv("PMI_RANK", "3")
    monkeypatch.setenv("PMI_SIZE", "4")
    monkeypatch.setenv("MPI_LOCALRANKID", "1")
    env = ParallelEnv()
    assert (env.rank, env.world_size, env.nranks, env.local_rank, env.device_id) == (3, 4, 4, 1, 0)


def test_distributed_batch_sampler_takes_rank_and_size_from_the_environment(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    for v in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"):
        monkeypatch.delenv(v, raising=False)
    ds = oar.io.TensorDataset([oar.arange(10)])
    bs = oar.io.DistributedBatchSampler(ds, batch_size=2)
    assert (bs.nranks, bs.local_rank) == (2, 1)
    assert list(bs) == [[2, 3], [6, 7], [9]]


def test_distributed_batch_sampler_pads_and_shuffles_alike_on_every_rank():
    epochs = []
    for rank in range(3):
        bs = oar.io.DistributedBatchSampler(list(range(11)), batch_size=2, num_replicas=3, rank=rank, shuffle=True)
        bs.set_epoch(5)
        epochs.append([i for b in bs for i in b])
    assert [len(e) for e in epochs] == [4, 4, 4]  # 11 indices padded with the first one to 12, split in 3
    assert sorted(i for e in epochs for i in e) == sorted(list(range(11)) + [0])
    assert epochs[0] != list(range(4))  # shuffled


def test_world_of_one_rank():
    dist.init_parallel_env()
    assert dist.get_rank() == 0 and dist.get_world_size() == 1 and dist.is_initialized()
    x = oar.to_tensor([1.0, -2.0])
    for op in ("sum", "max", "min", "prod", "avg"):
        dist.all_reduce(x, op=op)
    np.testing.assert_array_equal(x.numpy(), [1.0, -2.0])
    parts = []
    dist.all_gather(parts, x)
    assert len(parts) == 1 and parts[0].numpy().tolist() == [1.0, -2.0]
    assert dist.all_reduce(x, sync_op=False).wait()


def test_collectives_reject_bad_arguments():
    x = oar.to_tensor([1.0])
    with pytest.raises(ValueError, match="ReduceOp"):
        dist.all_reduce(x, op="mean")
    with pytest.raises(ValueError, match="not a member"):
        dist.broadcast(x, src=5)
    with pytest.raises(ValueError, match="tensor_list"):
        dist.scatter(x, None, src=0)
    with pytest.raises(ValueError, match="ranks must be"):
        dist.new_group([7])
    with pytest.raises(TypeError, match="floating-point"):
        dist.all_reduce(oar.to_tensor([1, 2]), op=dist.ReduceOp.AVG)


def test_all_reduce_of_a_parameter_is_not_recorded():
    p = oar.nn.Linear(2, 2).weight
    before = p.numpy().copy()
    dist.all_reduce(p)  # a leaf that requires grad may be changed by a collective (no tape)
    np.testing.assert_array_equal(p.numpy(), before)
    assert p.is_leaf and not p.stop_gradient


def test_collective_ops_survive_passes_and_serialize():
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main):
            x = oar.static.data("x", [2], "float32")
            dist.all_reduce(x)          # nothing reads the result: it must still run (other ranks wait for it)
            dist.barrier()
    finally:
        oar.disable_static()
    types = [op.type for op in main.global_block().ops]
    assert "c_allreduce" in types and "c_barrier" in types
    from oar.passes.dead_code import dead_code_elimination
    kept = [op.type for op in dead_code_elimination(main, keep=['x']).global_block().ops]
    assert "c_allreduce" in kept and "c_barrier" in kept
    text = str(main)
    assert "c_allreduce" in text and "reduce_op" in text
    import json
    from oar.graph.serialize import program_from_dict, program_to_dict
    again = program_from_dict(json.loads(json.dumps(program_to_dict(main))))
    assert [op.type for op in again.global_block().ops] == types


def test_data_parallel_with_one_rank_is_the_plain_layer():
    oar.seed(0)
    net = oar.nn.Linear(3, 2)
    model = oar.DataParallel(net)
    x = oar.randn([4, 3])
    model(x).sum().backward()
    assert model._reducer is None
    np.testing.assert_allclose(net.weight.grad.numpy(), np.tile(x.numpy().sum(0)[:, None], (1, 2)), rtol=1e-6)
    assert sorted(model.state_dict()) == ["bias", "weight"]
    model.set_state_dict({"weight": np.zeros([3, 2], "float32"), "bias": np.ones([2], "float32")})
    assert net.bias.numpy().tolist() == [1.0, 1.0]
    with model.no_sync():
        model(x).sum().backward()
    with pytest.raises(TypeError, match="Layer"):
        oar.DataParallel(lambda x: x)


def test_buckets_follow_sizes_and_dtypes():
    ps = [oar.Parameter(np.zeros(n, dt)) for n, dt in [(10, "float32"), (10, "float32"), (300, "float32"),
                                                        (5, "float64"), (5, "float64")]]
    bs = _buckets(ps, first_bytes=80, bytes_each=1000)
    assert [[p._data.size for p in b.params] for b in bs] == [[10, 10], [300], [5, 5]]
    assert [b.size for b in bs] == [20, 300, 10]


def test_count_reads_counts_each_use_of_a_parameter():
    lin = oar.nn.Linear(2, 2)
    h = lin(oar.ones([1, 2]))
    out = lin(h) + lin.bias
    counts = count_reads([out], [id(lin.weight), id(lin.bias)])
    assert counts == {id(lin.weight): 2, id(lin.bias): 3}


def test_mpiexec_command_forms():
    cmd = mpiexec_command(2, ["--script", "t.py"])
    assert cmd[1:3] == ["-n", "2"] and cmd[-3:] == ["oar.distributed._worker", "--script", "t.py"]
    cmd = mpiexec_command(4, ["--script", "t.py"], ips="node1,node2", timeout=30)
    i = cmd.index("-hosts")
    assert cmd[i:i + 6] == ["-hosts", "node1,node2", "-ppn", "4", "-n", "8"]
    assert cmd[cmd.index("-genv"):][:3] == ["-genv", "OAR_DISTRIBUTED_TIMEOUT", "30"]
    assert mpiexec_command(2, [], hostfile="hosts")[1:5] == ["-f", "hosts", "-n", "2"]


def test_failed_ranks_reads_the_logs(tmp_path):
    (tmp_path / "workerlog.0").write_text("training...\n")
    (tmp_path / "workerlog.1").write_text("x\n[oar.distributed] rank 1 failed: ValueError: bad\nTraceback\n")
    assert list(failed_ranks(str(tmp_path))) == [1]
    assert failed_ranks(str(tmp_path))[1].startswith("[oar.distributed] rank 1 failed: ValueError: bad")


def test_timeout_must_be_positive():
    with pytest.raises(ValueError, match="timeout"):
        dist.init_parallel_env(timeout=0)


def test_fleet_init_refuses_a_strategy_and_a_role_maker():
    """Issue 25: fleet.init(strategy=...) was accepted and ignored."""
    from oar.distributed import fleet
    with pytest.raises(NotImplementedError, match="DistributedStrategy options are not supported"):
        fleet.init(is_collective=True, strategy=object())
    with pytest.raises(NotImplementedError, match="role_maker"):
        fleet.init(role_maker=object(), is_collective=True)


def test_new_group_and_distributed_optimizer_refuse_what_oar_cannot_honour():
    from oar.distributed import fleet
    with pytest.raises(ValueError, match="backend='nccl' is not supported"):
        oar.distributed.new_group(backend="nccl")
    with pytest.raises(NotImplementedError, match="per-group timeouts"):
        oar.distributed.new_group(timeout=10)
    with pytest.raises(NotImplementedError, match="DistributedStrategy"):
        fleet.distributed_optimizer(oar.optimizer.SGD(parameters=oar.nn.Linear(1, 1).parameters()), strategy=object())
