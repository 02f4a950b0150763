"""DataParallel over MPI with parameters on the (fake) GPU: 2 ranks under mpiexec, gradients staged through the
host for the all-reduce (on a real GPU under tools/gpu_check.sh: ``OAR_GPU_CHECK_BACKEND=cuda``). Skips when
mpi4py or mpiexec is missing."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("mpi4py")
from oar.distributed.launch import find_mpiexec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BACKEND = os.environ.get("OAR_GPU_CHECK_BACKEND", "fake")
TOL = 1e-5 if BACKEND == "fake" else 1e-4  # (a GPU's reductions sum in other orders than NumPy's)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    try:
        mpiexec = find_mpiexec()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    out = tmp_path_factory.mktemp("device_dp")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]),
               OAR_DISTRIBUTED_TIMEOUT="60", OAR_DEVICE_BACKEND=BACKEND)
    r = subprocess.run([mpiexec, "-n", "2", sys.executable, os.path.join(HERE, "device_data_parallel_job.py"),
                        str(out)], env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.load(open(os.path.join(out, f"result.{k}.json"))) for k in range(2)]


@pytest.mark.parametrize("variant", ["plain", "accumulate"])
def test_device_data_parallel_matches_one_process(results, variant):
    for rank in results:
        r = rank[variant]
        assert r["diff"] < TOL, r  # float32, Adam, 10 steps: the same as one process on the whole batch
        assert r["params_on_device"] and r["grads_on_device"], r
        assert r["buckets"] > 10, r  # several buckets per step went through the host staging


def test_collectives_on_device_tensors(results):
    for rank in results:
        c = rank["collectives"]
        assert c["all_reduce"] == [3.0, 4.0] and c["broadcast"] == [1.0]
        assert c["all_gather"] == [[0.0], [1.0]] and c["on_device"]
        assert rank["fell_back"] == [], rank["fell_back"]
