"""The op table run on the fake device: each case's forward outputs and first-order gradients on `gpu:0` against
the CPU. `prove` runs every kernel on the device arrays (no fallback) and returns the ops proven device-ready:
`tools/device_ops.py` writes them to `oar/ops/device_ops.py`, `test_fake_device_ops.py` checks that list."""
import contextlib
import os

import numpy as np

import oar
from oar.core import devices
from oar.ops.device import FALLBACK


@contextlib.contextmanager
def fake_gpu():
    """The fake device loaded and selected; the CPU (and no backend) afterwards."""
    old = os.environ.get(devices.ENV)
    os.environ[devices.ENV] = "fake"
    devices.unload()
    devices.load()
    try:
        oar.set_device("gpu")
        yield
    finally:
        oar.set_device("cpu")
        devices.unload()
        if old is None:
            del os.environ[devices.ENV]
        else:
            os.environ[devices.ENV] = old


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def run_case(case, place):
    """(forward outputs, gradients of the differentiable inputs) as host arrays, computed on `place` (the tensors
    made there, and `place` the current device for the tensors the op functions create)."""
    before = oar.get_device()
    oar.set_device(place)
    try:
        return _run_case(case, place)
    finally:
        oar.set_device(before)


def _run_case(case, place):
    ts = [oar.to_tensor(a, place=place, stop_gradient=i not in case.diff) for i, a in enumerate(case.inputs)]
    outs = _outs(case.fn(*ts))
    host = [o.numpy() for o in outs]
    floats = [o for o in outs if o.dtype.kind == "f" and not o.stop_gradient]
    grads = []
    if case.diff and floats:
        rng = np.random.default_rng(3)
        loss = None
        for o in floats:
            w = oar.to_tensor(rng.standard_normal(o.shape).astype(o.dtype.np), place=place)
            term = (o * w).sum()
            loss = term if loss is None else loss + term
        gs = oar.grad(loss, [ts[i] for i in case.diff], allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return host, grads


def mismatch(case, cpu, dev):
    """None when the device results equal the CPU's (float32 tolerance), else what differs."""
    for kind, a_list, b_list in (("output", cpu[0], dev[0]), ("gradient", cpu[1], dev[1])):
        if len(a_list) != len(b_list):
            return f"{len(b_list)} {kind}s on the device, {len(a_list)} on the CPU"
        for i, (a, b) in enumerate(zip(a_list, b_list)):
            if (a is None) != (b is None):
                return f"{kind} {i}: None on one device only"
            if a is None:
                continue
            if a.shape != b.shape or a.dtype != b.dtype:
                return f"{kind} {i}: {b.dtype}{list(b.shape)} on the device, {a.dtype}{list(a.shape)} on the CPU"
            try:
                np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, equal_nan=True)
            except AssertionError as e:
                return f"{kind} {i}: {str(e).strip().splitlines()[-1]}"
    return None


def prove(cases):
    """(ops proven device-ready, {case name: why it failed}) with every kernel run on the device arrays."""
    used, blamed, failures = set(), set(), {}
    for case in cases:
        cpu = run_case(case, "cpu")
        FALLBACK.strict, FALLBACK.ran = True, []
        try:
            dev = run_case(case, "gpu")
            why = mismatch(case, cpu, dev)
            if why is not None:
                blamed.update(FALLBACK.ran)
        except Exception as e:  # noqa: BLE001 - the failing kernel is the last one that ran
            why = f"{type(e).__name__}: {e}"
            if FALLBACK.ran:
                blamed.add(FALLBACK.ran[-1])
        finally:
            ran, FALLBACK.strict, FALLBACK.ran = FALLBACK.ran, False, None
        if why is None:
            used.update(ran)
        else:
            failures[case.name] = why
    return used - blamed, failures
