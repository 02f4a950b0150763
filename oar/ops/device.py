"""Where an eager op computes once a device array is among its inputs (`apply` comes here only after a GPU
backend was loaded, so CPU-only runs pay one test).

* inputs on two devices (a rank > 0 host array beside a device array, or two GPUs) raise, naming both;
  0-d host arrays (Python scalars made tensors) join the device, as in PyTorch;
* an op with no tensor inputs (creation, random) computes on the host and its outputs go to the current device
  (`oar.set_device`), so a seed draws the same numbers on CPU and GPU;
* an op in `DEVICE_OPS` (its kernels proven on the fake device, `tests/device/test_fake_device_ops.py`) runs its
  kernel on the device arrays; any other op copies its inputs to the host, computes there and copies the outputs
  back, warning once per op (`FALLBACK.seen` lists them).
"""
import warnings

import numpy as np

from ..core.devices import RUNTIME, to_device, to_host
from ..core.state import STATE
from .device_ops import DEVICE_OPS


class Fallback:
    """The ops that ran on the host for device inputs (`seen`), and `strict`: when True every op runs its kernel
    on the device (`tools/device_ops.py` uses it to prove which kernels are device-ready)."""

    def __init__(self):
        self.seen = set()
        self.strict = False
        self.ran = None  # a list: the ops that ran on device arrays are appended (tools/device_ops.py)
        self.listed = DEVICE_OPS  # the ops run on the device (tools/device_ops.py tries candidate lists)


FALLBACK = Fallback()


def _where(op, arrays, host_joins=False):
    """{device name: the first input's name on it} (host arrays left out when `host_joins`)."""
    names = op.inputs if not op.variadic else [f"{op.inputs[0]}[{i}]" for i in range(len(arrays))]
    found = {}
    types = RUNTIME.types
    for n, a in zip(names, arrays):
        if isinstance(a, types):
            found.setdefault(f"gpu:{a.device.id}", n)
        elif not host_joins and getattr(a, "ndim", 0) and (a.flags.writeable or any(a.strides)):
            found.setdefault("cpu", n)  # (a read-only all-zero-strides view is one value broadcast, as the
            # shape-only stand-ins of gradient rules are: it joins the device like a 0-d array)
    return found


def _to(outs, device_id):
    if type(outs) is tuple or type(outs) is list:
        return type(outs)(_to(o, device_id) for o in outs)
    return to_device(outs, device_id) if isinstance(outs, (np.ndarray, np.generic)) else outs


def run(op, arrays, attrs, host_joins=False):
    """`op.impl(*arrays, **attrs)` on the device the inputs are on (see the module's docstring); with
    `host_joins` (the executor: fed arrays and folded constants) host arrays join the device of the others."""
    found = _where(op, arrays, host_joins)
    if not found or list(found) == ["cpu"]:
        out = op.impl(*arrays, **attrs)
        if not arrays and STATE.device != "cpu":
            out = _to(out, int(STATE.device[4:]))
        return out
    if len(found) > 1:
        (d1, n1), (d2, n2) = list(found.items())[:2]
        raise ValueError(f"op '{op.name}': input '{n1}' is on {d1} but input '{n2}' is on {d2}; put both on one "
                         "device first (Tensor.cuda(), .cpu() or .to(place))")
    device_id = int(next(iter(found))[4:])
    arrays = [a if isinstance(a, RUNTIME.types) else to_device(a, device_id) for a in arrays]
    if op.name in FALLBACK.listed or FALLBACK.strict:
        if FALLBACK.ran is not None:
            FALLBACK.ran.append(op.name)
        return op.impl(*arrays, **attrs)
    if op.name not in FALLBACK.seen:
        FALLBACK.seen.add(op.name)
        warnings.warn(f"op '{op.name}' has no device kernel yet: it computes on the CPU (inputs and outputs are "
                      "copied between host and GPU); docs/gpu.md lists these ops", RuntimeWarning, stacklevel=4)
    return _to(op.impl(*[to_host(a) for a in arrays], **attrs), device_id)
