"""The op table on the fake device: outputs and gradients equal the CPU's for every case (ops in DEVICE_OPS on
device arrays, the others through the CPU fallback), and DEVICE_OPS is exactly what the fake device proves."""
import warnings

import pytest

from op_table import CASES
from device_table import BACKEND, MIXED, SCENARIOS, fake_gpu, mismatch, prove, run_case
from oar.ops.device_ops import DEVICE_OPS, ALWAYS


@pytest.fixture(scope="module")
def gpu():
    with fake_gpu(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the fallback's warning, tested in test_fake_device.py
        yield


@pytest.mark.parametrize("case", CASES + SCENARIOS, ids=repr)
def test_case_on_fake_device_equals_cpu(gpu, case):
    cpu = run_case(case, "cpu")
    if case.name.startswith("sparse_"):  # sparse tensors keep their NumPy index patterns on the host (docs/gpu.md)
        with pytest.raises((ValueError, TypeError), match=f"{MIXED}|fake-device array|does not support ufuncs"):
            run_case(case, "gpu")
        return
    dev = run_case(case, "gpu")
    why = mismatch(case, cpu, dev)
    assert why is None, f"{case.name} on the fake device: {why}"


@pytest.mark.skipif(BACKEND != "fake", reason="the list is proven on the fake device")
def test_device_ops_list_is_current(gpu):
    proven, _ = prove(CASES + SCENARIOS)
    assert proven - DEVICE_OPS == set(), "ops now pass on the device: run python tools/device_ops.py"
    assert DEVICE_OPS - ALWAYS - proven == set(), "listed ops no longer pass on the device: see tools/device_ops.py"
