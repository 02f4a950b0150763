"""`oar.device.cuda` (Paddle's `paddle.device.cuda`): GPU count, synchronisation and memory statistics, answered
by the GPU backend (CuPy; `docs/gpu.md`). Without CuPy or a GPU the count is 0 and the memory queries are 0.

Example:
    >>> paddle.device.cuda.device_count() >= 0
    True
"""
from ..core import devices

__all__ = ["device_count", "synchronize", "empty_cache", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved"]


def device_count():
    """How many GPUs oar can use (0 without CuPy or a GPU).

    Example:
        >>> paddle.device.cuda.device_count() >= 0
        True
    """
    return devices.device_count()


def _id(device):
    if device is None:
        return None
    if hasattr(device, "get_device_id"):
        return device.get_device_id()
    text = str(device)
    return int(text.split(":")[1]) if ":" in text else int(text)


def synchronize(device=None):
    """Waits until the GPU (`device`: an index, 'gpu:N' or a CUDAPlace) finished its queued work; nothing to do
    without a GPU.

    Example:
        >>> paddle.device.cuda.synchronize()
    """
    if devices.device_count():
        devices.synchronize(_id(device))


def empty_cache():
    """Returns the GPU memory pool's unused blocks to the driver.

    Example:
        >>> paddle.device.cuda.empty_cache()
    """
    if devices.device_count():
        devices.empty_cache()


def _stat(which):
    def query(device=None):
        return devices.memory(which) if devices.device_count() else 0
    query.__name__ = which if not which.startswith("max") else f"max_memory_{which[4:]}"
    query.__doc__ = f"""Bytes of GPU memory {which.replace('_', ' ')} (0 without a GPU; see `oar.core.devices.memory`).

    Example:
        >>> paddle.device.cuda.{'memory_' + which if not which.startswith('max') else 'max_memory_' + which[4:]}() >= 0
        True
    """
    return query


memory_allocated, memory_reserved = _stat("allocated"), _stat("reserved")
max_memory_allocated, max_memory_reserved = _stat("max_allocated"), _stat("max_reserved")
