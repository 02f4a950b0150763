"""`paddle.base.core`: the build queries and places model code reads from here."""
from ..core.state import is_compiled_with_cuda, CPUPlace, CUDAPlace  # noqa: F401


def is_compiled_with_xpu():
    """False: oar runs on the CPU (and Paddle's other device kinds are not built in).

    Example:
        >>> oar.base.core.is_compiled_with_xpu()
        False
    """
    return False


is_compiled_with_rocm = is_compiled_with_custom_device = is_compiled_with_ipu = is_compiled_with_xpu
