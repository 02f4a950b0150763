"""`oar.device` (Paddle's `paddle.device`): which device computes: the CPU (NumPy) or a GPU (CuPy, the optional
extra ``oar-dl[gpu]``; `docs/gpu.md`). Choosing a GPU without CuPy or a GPU raises a clear error.

Example:
    >>> paddle.device.set_device("cpu")
    Place(cpu)
    >>> paddle.device.get_device()
    'cpu'
"""
from ..core.state import set_device, get_device, is_compiled_with_cuda
from . import cuda

__all__ = ["set_device", "get_device", "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_custom_device", "is_compiled_with_cinn",
           "get_all_device_type", "get_all_custom_device_type", "get_available_device",
           "get_available_custom_device", "get_cudnn_version", "synchronize", "cuda", "is_compiled_with_distribute"]


def _no(*args, **kwargs):
    """False: oar has no such backend.

    Example:
        >>> paddle.device.is_compiled_with_rocm(), paddle.device.is_compiled_with_xpu()
        (False, False)
    """
    return False


is_compiled_with_rocm = is_compiled_with_xpu = is_compiled_with_ipu = is_compiled_with_cinn = _no
is_compiled_with_custom_device = _no


def is_compiled_with_distribute():
    """Whether multi-process training can run: oar's `oar.distributed` needs mpi4py (the ``distributed`` extra),
    so this is True when mpi4py can be found (Paddle answers whether it was built with distributed support).

    Example:
        >>> import importlib.util
        >>> oar.device.is_compiled_with_distribute() == (importlib.util.find_spec('mpi4py') is not None)
        True
    """
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def get_all_device_type():
    """The device types this machine can use: ``['cpu']``, plus ``'gpu'`` when a GPU backend works.

    Example:
        >>> 'cpu' in paddle.device.get_all_device_type()
        True
    """
    from .cuda import device_count
    return ["cpu"] + (["gpu"] if device_count() else [])


def get_all_custom_device_type():
    """Plug-in device types: none in oar.

    Example:
        >>> paddle.device.get_all_custom_device_type()
        []
    """
    return []


def get_available_device():
    """The devices that can be chosen: ``'cpu'`` and ``'gpu:N'`` for each GPU.

    Example:
        >>> 'cpu' in paddle.device.get_available_device()
        True
    """
    from .cuda import device_count
    return ["cpu"] + [f"gpu:{i}" for i in range(device_count())]


def get_available_custom_device():
    """Plug-in devices: none in oar.

    Example:
        >>> paddle.device.get_available_custom_device()
        []
    """
    return []


def get_cudnn_version():
    """None: oar has no cuDNN.

    Example:
        >>> paddle.device.get_cudnn_version() is None
        True
    """
    return None


def synchronize(device=None):
    """Waits for the GPU's queued work (CPU work is done when its call returns).

    Example:
        >>> paddle.device.synchronize()
    """
    cuda.synchronize(device)
