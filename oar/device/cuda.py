"""`oar.device.cuda`: the CUDA queries Paddle scripts make; oar has no GPU, so counts are 0 and memory is 0.

Example:
    >>> paddle.device.cuda.device_count(), paddle.device.cuda.max_memory_allocated()
    (0, 0)
"""

__all__ = ["device_count", "synchronize", "empty_cache", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved"]


def device_count():
    """0: no GPU in oar.

    Example:
        >>> paddle.device.cuda.device_count()
        0
    """
    return 0


def synchronize(device=None):
    """Nothing to wait for on the CPU.

    Example:
        >>> paddle.device.cuda.synchronize()
    """
    return None


def empty_cache():
    """No GPU cache to free.

    Example:
        >>> paddle.device.cuda.empty_cache()
    """
    return None


def _zero(device=None):
    """0 bytes: no GPU memory in oar.

    Example:
        >>> paddle.device.cuda.memory_allocated()
        0
    """
    return 0


max_memory_allocated = max_memory_reserved = memory_allocated = memory_reserved = _zero
