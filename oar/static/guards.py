"""`paddle.static.cpu_places`, `device_guard` and `name_scope` (on a CPU-only framework)."""
import contextlib
import os

from ..core.state import STATE, CPUPlace


def cpu_places(device_count=None):
    """`device_count` CPU places (by default the ``CPU_NUM`` environment variable, else 1, as Paddle).

    Example:
        >>> oar.static.cpu_places(2)
        [Place(cpu), Place(cpu)]
    """
    if device_count is None:
        device_count = int(os.environ.get("CPU_NUM", "1"))
    if not isinstance(device_count, int) or device_count < 1:
        raise ValueError(f"cpu_places: device_count must be a positive int, got {device_count!r}")
    return [CPUPlace() for _ in range(device_count)]


@contextlib.contextmanager
def device_guard(device=None):
    """Places the ops built inside it on `device`. oar runs every op on the CPU, so ``'cpu'`` and None (the
    default device) are accepted and any other device is refused, naming it (Paddle's CPU build cannot run a
    'gpu' op either).

    Example:
        >>> oar.enable_static()
        >>> with oar.static.program_guard(oar.static.Program()):
        ...     with oar.static.device_guard('cpu'):
        ...         y = oar.static.data('dg_x', [2]) * 2
        >>> oar.disable_static()
        >>> y.shape
        [2]
    """
    if device is not None and not isinstance(device, str):
        raise TypeError(f"device_guard: device must be a str or None, got {type(device).__name__}")
    if device not in (None, "cpu"):
        kind = device.split(":")[0]
        if kind not in ("gpu", "xpu", "npu", "ipu", "custom_device") and ":" not in device:
            raise ValueError(f"device_guard: the device must be 'cpu', 'gpu', 'gpu:x', 'xpu' or 'xpu:x', got "
                             f"{device!r}")
        raise RuntimeError(f"device_guard({device!r}): oar runs on a CPU only; build the ops without it or with "
                           f"device_guard('cpu')")
    yield


@contextlib.contextmanager
def name_scope(prefix=None):
    """Opens the name scope `prefix` (nested scopes make ``/outer/inner/``) while static ops are built. As in
    Paddle 3.3.1's default (PIR) static mode, the scope does not change the program: it was a label for graph
    viewers (Paddle 2.6 wrote it into each op's ``op_namescope`` attribute); in dynamic mode it does nothing.
    An empty prefix is refused in static mode, as Paddle's.

    Example:
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('ns_x', [2])
        ...     with oar.static.name_scope('encoder'):
        ...         y = x * 2
        >>> oar.disable_static()
        >>> [op.type for op in main.global_block().ops]
        ['full', 'multiply']
    """
    if not STATE.static:
        yield
        return
    if not prefix:
        raise ValueError("name_scope: the prefix must not be empty in static mode")
    yield
