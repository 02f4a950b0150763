"""oar.distributed across real processes: 2-3 ranks started by mpiexec, every run bounded by a timeout."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("mpi4py")
from oar.distributed.launch import find_mpiexec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")]),
           OAR_DISTRIBUTED_TIMEOUT="60")
LIMIT = 120  # seconds for any one job: a hang fails the test instead of blocking the suite


def _run(cmd, **kw):
    return subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=LIMIT, **kw)


def _job(script, nprocs, out_dir):
    r = _run([find_mpiexec(), "-n", str(nprocs), sys.executable, os.path.join(HERE, script), str(out_dir)])
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.load(open(os.path.join(out_dir, f"result.{k}.json"))) for k in range(nprocs)]


@pytest.fixture(scope="module")
def collectives(tmp_path_factory):
    return _job("collectives_job.py", 3, tmp_path_factory.mktemp("collectives"))


@pytest.fixture(scope="module")
def data_parallel(tmp_path_factory):
    return _job("data_parallel_job.py", 2, tmp_path_factory.mktemp("data_parallel"))


NAMES = ["all_reduce_sum", "all_reduce_max", "all_reduce_min", "all_reduce_prod", "all_reduce_avg", "broadcast",
         "all_gather", "reduce", "scatter", "alltoall", "send_recv"]


@pytest.mark.parametrize("kind", ["eager", "static", "to_static"])
@pytest.mark.parametrize("name", NAMES)
def test_collective_matches_numpy(collectives, kind, name):
    for rank, res in enumerate(collectives):
        err = res[f"{kind}:{name}"]
        assert not isinstance(err, str), f"rank {rank}: {err}"
        assert err < 1e-4, f"rank {rank}: max abs error {err}"


def test_group_of_two_ranks(collectives):
    assert [r["group:all_reduce"] for r in collectives] == [0.0, 0.0, 0.0]
    assert [r["group:rank"] for r in collectives] == [[0, 0, 2], [-1, -1, 2], [1, 1, 2]]


def test_composed_collectives(collectives):
    for rank, r in enumerate(collectives):
        assert r["gather"] and r["broadcast_object_list"] and r["scatter_object_list"], (rank, r)
        assert r["reduce_scatter"] < 1e-4 and r["alltoall_single"] == 0.0, (rank, r)


def test_scalar_float16_and_bool_tensors(collectives):
    for r in collectives:
        assert r["scalar"] == [[], 1.0]
        assert r["float16"][0].endswith("float16") and r["float16"][1] < 0.05
        assert r["bool"][0].endswith("bool") and r["bool"][1] == [True, False]


def test_all_gather_object_and_isend_irecv(collectives):
    assert [r["all_gather_object"] for r in collectives] == [True, True, True]
    assert [r["isend_irecv"] for r in collectives] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("variant", ["default", "small_buckets", "no_sync", "find_unused", "to_static", "model_fit",
                                     "static_fleet", "captured_step", "captured_step_small_buckets",
                                     "captured_step_no_sync", "captured_step_unused", "captured_step_find_unused",
                                     "model_fit_converted"])
def test_data_parallel_equals_one_process_on_the_whole_batch(data_parallel, variant):
    for res in data_parallel:
        assert res[variant] < 1e-6, res


def test_buckets_start_during_backward(data_parallel):
    for res in data_parallel:
        assert res["small_buckets_count"] > 1
        assert res["small_buckets_early"] == res["small_buckets_count"]  # every bucket started before the walk ended
        assert res["early_buckets"] == 20


def test_captured_step_all_reduces_once_per_bucket_inside_its_program(data_parallel):
    # the job also checks that the c_allreduce ops sit between the last gradient op and the first update
    for res in data_parallel:
        assert res["captured_allreduces"] == res["captured_buckets"] == 1
        assert res["captured_small_allreduces"] == res["captured_small_buckets"] > 1
        assert res["captured_no_sync_allreduces"] == 1  # the backward under no_sync() all-reduces nothing


def test_state_dict_has_no_wrapper_prefix(data_parallel):
    assert data_parallel[0]["state_dict_keys"] == ["conv.bias", "conv.weight"]


def _gone(pid, wait=10.0):
    """True once `pid` has exited (a zombie waiting to be reaped counts as exited)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[-1].startswith("Z"):
                    return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.1)
    return False


def _launch_failure(tmp_path, mode, timeout=None):
    cmd = [sys.executable, "-m", "oar.distributed.launch", "--nproc_per_node", "3", "--log_dir",
           str(tmp_path / "log")] + (["--timeout", str(timeout)] if timeout else []) + [
        os.path.join(HERE, "failure_job.py"), str(tmp_path), mode]
    r = _run(cmd)
    pids = [int(open(tmp_path / f"pid.{k}").read()) for k in range(3)]
    assert r.returncode != 0
    assert all(_gone(p) for p in pids), "a rank was left running"
    return r


def test_rank_that_raises_stops_all_ranks(tmp_path):
    r = _launch_failure(tmp_path, "raise")
    assert "oar.distributed.launch: rank 1 failed" in r.stderr
    assert "ValueError: boom on purpose" in r.stderr
    assert 'failure_job.py", line' in r.stderr  # the traceback names the user's file


def test_killed_rank_stops_all_ranks(tmp_path):
    r = _launch_failure(tmp_path, "kill")
    assert "killed or exited abnormally" in r.stderr


def test_rank_that_exits_with_an_error_code_stops_all_ranks(tmp_path):
    r = _launch_failure(tmp_path, "exit")
    assert "rank 1 failed" in r.stderr and "sys.exit(3)" in r.stderr


def test_rank_that_leaves_early_makes_the_others_time_out(tmp_path):
    r = _launch_failure(tmp_path, "leave", timeout=2)
    logs = "".join(open(tmp_path / "log" / f"workerlog.{k}").read() for k in (0, 2))
    assert "DataParallel gradient all-reduce" in logs and "timeout 2 s" in logs, r.stderr + logs


def test_mpiexec_direct_with_a_raising_rank(tmp_path):
    r = _run([find_mpiexec(), "-n", "2", sys.executable, os.path.join(HERE, "failure_job.py"), str(tmp_path),
              "raise"])
    assert r.returncode != 0
    assert "[oar.distributed] rank 1 failed with an uncaught ValueError" in r.stderr
    assert all(_gone(int(open(tmp_path / f"pid.{k}").read())) for k in range(2))


def test_launcher_writes_per_rank_logs_and_shows_rank_0(tmp_path):
    script = tmp_path / "hello.py"
    script.write_text("import oar.distributed as d\nd.init_parallel_env()\n"
                      "print('hello from', d.get_rank(), 'of', d.get_world_size())\n")
    r = _run([sys.executable, "-m", "oar.distributed.launch", "--nproc_per_node", "2", "--log_dir",
              str(tmp_path / "log"), str(script)])
    assert r.returncode == 0, r.stderr
    assert "hello from 0 of 2" in r.stdout
    assert open(tmp_path / "log" / "workerlog.1").read().strip() == "hello from 1 of 2"


def test_spawn_returns_each_rank_value():
    code = ("import oar.distributed as d, spawn_fns\n"
            "print(d.spawn(spawn_fns.sum_of_ranks, args=(1,), nprocs=2).return_values)\n")
    r = _run([sys.executable, "-c", code])
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[[0, 2, 3.0], [1, 2, 3.0]]"


def test_spawn_raises_with_the_failing_rank_traceback():
    code = ("import oar.distributed as d, spawn_fns\n"
            "try:\n    d.spawn(spawn_fns.fails_on_rank_1, nprocs=2)\n"
            "except d.DistributedError as e:\n    print('CAUGHT', e)\n")
    r = _run([sys.executable, "-c", code])
    assert "CAUGHT spawn: a rank failed" in r.stdout
    assert "KeyError: 'spawned failure'" in r.stdout and "spawn_fns.py" in r.stdout


def test_sync_batch_norm_uses_every_ranks_batch(tmp_path):
    """Issue 25: SyncBatchNorm was plain BatchNorm under DataParallel. Two ranks, half the batch each, must give
    the outputs, gradients and running statistics of BatchNorm2D on the whole batch."""
    for rank, res in enumerate(_job("sync_batch_norm_job.py", 2, tmp_path)):
        for check, diff in res.items():
            assert diff < 1e-4, f"rank {rank}: {check} differs by {diff}"


def test_split_over_two_ranks(tmp_path):
    """dist.split, num_partitions 2: every rank computes with rank 0's weight; gather_out=False gives the rank's
    part (column chunk; row part summing, with the bias, to the whole)."""
    r0, r1 = _job("mp_split_job.py", 2, tmp_path)
    x = np.arange(8, dtype="float32").reshape(2, 4) / 4
    w = np.array(r0["weight"], "float32")  # rank 0's initial weight, as rank 0 makes it
    assert r0["weight"] != r1["weight"]
    whole = x @ w + 0.5
    for r in (r0, r1):
        np.testing.assert_allclose(r["linear_0_1"], whole, rtol=1e-5)
        np.testing.assert_allclose(r["linear_1_1"], whole, rtol=1e-5)
        assert r["embedding"] == r0["embedding"]
    np.testing.assert_allclose(np.array(r0["linear_0_0"]) + np.array(r1["linear_0_0"]) + 0.5, whole, rtol=1e-5)
    np.testing.assert_allclose(np.concatenate([r0["linear_1_0"], r1["linear_1_0"]], 1), whole, rtol=1e-5)
