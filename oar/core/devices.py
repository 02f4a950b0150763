"""The accelerator runtime: which array module holds device arrays (CuPy on a GPU, or the fake device of the test
suite), loaded the first time a GPU is asked for, and the transfers between host and device.

`import oar` never imports CuPy: `load()` does, when `set_device('gpu')`, `CUDAPlace`, `to_tensor(place=...)` or
`Tensor.cuda()` first asks for a GPU. ``OAR_DEVICE_BACKEND=fake`` selects `oar.core.fake_device` instead (NumPy
underneath, arrays NumPy refuses), so the CPU suite proves every device path goes through
`oar.kernels.backend.array_module`.

Example:
    >>> import numpy as np
    >>> device_of(np.zeros(2))
    'cpu'
"""
import os

import numpy as np


class DeviceRuntime:
    """The loaded accelerator backend: `xp` (its array module), `extra` (CuPy's `cupyx`: scatter_add, errstate),
    `types` (its array classes; empty until loaded, which keeps `array_module` to one test on the CPU), `kind`
    ('cuda' or 'fake')."""

    __slots__ = ("xp", "extra", "types", "kind", "peak")

    def __init__(self):
        self.xp = self.extra = self.kind = None
        self.types = ()
        self.peak = [0, 0]  # the largest allocated / reserved bytes seen (CuPy's pool keeps no peak)


RUNTIME = DeviceRuntime()
ENV = "OAR_DEVICE_BACKEND"


def load():
    """The runtime, loading CuPy (or the fake device when ``OAR_DEVICE_BACKEND=fake``) on first use; raises a
    RuntimeError saying what is missing when no GPU can be used."""
    if RUNTIME.xp is not None:
        return RUNTIME
    kind = os.environ.get(ENV, "cuda")
    if kind == "fake":
        from . import fake_device
        RUNTIME.xp, RUNTIME.extra, RUNTIME.types = fake_device.xp, fake_device.cupyx, (fake_device.FakeArray,)
    elif kind == "cuda":
        try:
            import cupy
            import cupyx
        except ImportError:
            raise RuntimeError("no GPU backend: CuPy is not installed (pip install 'oar-dl[gpu]' installs the CuPy "
                               "wheel for CUDA 12); oar computes on the CPU") from None
        try:
            n = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # cudaErrorNoDevice, no driver
            raise RuntimeError(f"no GPU backend: CuPy is installed but finds no usable GPU ({e})") from None
        if n == 0:
            raise RuntimeError("no GPU backend: CuPy is installed but finds no GPU")
        RUNTIME.xp, RUNTIME.extra, RUNTIME.types = cupy, cupyx, (cupy.ndarray,)
    else:
        raise ValueError(f"{ENV}={kind!r}: expected 'cuda' (CuPy) or 'fake' (the test suite's fake device)")
    RUNTIME.kind = kind
    return RUNTIME


def unload():
    """Forgets the loaded backend (tests switch the fake device on and off with `load` / `unload`); tensors
    already on the device keep their arrays."""
    RUNTIME.__init__()


def is_device_array(a):
    """True for an array of the loaded accelerator."""
    return bool(RUNTIME.types) and isinstance(a, RUNTIME.types)


def device_of(a):
    """'cpu' for a host array, 'gpu:N' for a device array."""
    if RUNTIME.types and isinstance(a, RUNTIME.types):
        return f"gpu:{a.device.id}"
    return "cpu"


def device_count():
    """How many GPUs the runtime sees (0 when CuPy or a GPU is missing; 1 on the fake device)."""
    try:
        rt = load()
    except RuntimeError:
        return 0
    return 1 if rt.kind == "fake" else rt.xp.cuda.runtime.getDeviceCount()


def _check_id(device_id):
    n = device_count()
    if not 0 <= device_id < n:
        raise ValueError(f"GPU {device_id} does not exist: this machine has {n} GPU(s)")


def to_device(a, device_id=0):
    """`a` (a host or device array) as an array on GPU `device_id` (a copy unless it is there already)."""
    rt = load()
    if rt.kind == "fake":
        _check_id(device_id)
        return rt.xp.asarray(a)
    if isinstance(a, rt.types) and a.device.id == device_id:
        return a
    with rt.xp.cuda.Device(device_id):
        return rt.xp.asarray(a)


def to_host(a):
    """A NumPy copy of `a` (a device array, or a host array which is copied too)."""
    if RUNTIME.types and isinstance(a, RUNTIME.types):
        return a.get()
    return np.array(a, copy=True)


def place_array(a, place):
    """Array `a` on `place` ('cpu' or 'gpu:N'): `a` itself when it is there already, else a copy there.

    Example:
        >>> place_array([1.0], 'cpu').tolist()
        [1.0]
    """
    if place == "cpu":
        return a if type(a) is np.ndarray else to_host(a) if is_device_array(a) else np.asarray(a)
    return to_device(a, int(place[4:]))


def synchronize(device_id=None):
    """Waits until the GPU finished the work queued so far."""
    rt = load()
    if rt.kind == "cuda":
        memory("allocated")  # records the peaks
        if device_id is None:
            rt.xp.cuda.Device().synchronize()
        else:
            rt.xp.cuda.Device(device_id).synchronize()


def memory(which):
    """Bytes of GPU memory: 'allocated' (held by live arrays), 'reserved' (held by the memory pool), and their
    peaks 'max_allocated' / 'max_reserved'. On CuPy the peaks are the largest values seen by these queries and by
    `synchronize` (CuPy's pool keeps no peak); on the fake device 'allocated' is exact."""
    rt = load()
    if rt.kind == "fake":
        from .fake_device import STATS
        return STATS.peak if which.startswith("max") else STATS.current
    pool = rt.xp.get_default_memory_pool()
    used, total = pool.used_bytes(), pool.total_bytes()
    peak = RUNTIME.peak
    peak[0], peak[1] = max(peak[0], used), max(peak[1], total)
    return {"allocated": used, "reserved": total, "max_allocated": peak[0], "max_reserved": peak[1]}[which]


def empty_cache():
    """Returns the memory pool's unused blocks to the GPU."""
    rt = load()
    if rt.kind == "cuda":
        rt.xp.get_default_memory_pool().free_all_blocks()
