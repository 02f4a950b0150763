"""Numeric limits of dtypes (finfo, iinfo), the global flags registry (get_flags / set_flags) and LazyGuard."""
import numpy as np

from . import dtype as D

VERSION = "0.1.0"  # oar.__version__


class finfo:
    """Limits of a floating dtype: ``min``, ``max``, ``eps``, ``resolution``, ``smallest_normal``, ``tiny``, ``bits``.

    Example:
        >>> oar.finfo(oar.float32).eps == float(np.finfo(np.float32).eps), oar.finfo('float16').bits
        (True, 16)
    """

    def __init__(self, dtype):
        d = D.convert_dtype(dtype)
        if d.kind not in "fc":
            raise TypeError(f"finfo takes a floating dtype, got {d.name} (use oar.iinfo for integers)")
        info = np.finfo(d.np) if d.np is not None else None
        if info is None:
            raise TypeError(f"finfo({d.name}) needs the ml_dtypes package")
        self.dtype = d.name if d.kind == "f" else {"complex64": "float32", "complex128": "float64"}[d.name]
        self.bits, self.eps, self.resolution = int(info.bits), float(info.eps), float(info.resolution)
        self.min, self.max = float(info.min), float(info.max)
        self.tiny = self.smallest_normal = float(info.smallest_normal)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, eps={self.eps}, "
                f"smallest_normal={self.smallest_normal}, tiny={self.tiny}, bits={self.bits}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``min``, ``max``, ``bits``.

    Example:
        >>> oar.iinfo(oar.int32).max, oar.iinfo('uint8').min
        (2147483647, 0)
    """

    def __init__(self, dtype):
        d = D.convert_dtype(dtype)
        if d.kind not in "iub":
            raise TypeError(f"iinfo takes an integer dtype, got {d.name} (use oar.finfo for floats)")
        info = np.iinfo(d.np) if d.kind != "b" else np.iinfo(np.uint8)
        self.dtype, self.bits, self.min, self.max = d.name, int(info.bits), int(info.min), int(info.max)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


class _Flags:
    """Paddle's global FLAGS_* settings that mean something on oar's CPU runtime (others are accepted and kept)."""

    def __init__(self):
        self.values = {"FLAGS_check_nan_inf": False, "FLAGS_cudnn_deterministic": False,
                       "FLAGS_use_mkldnn": False, "FLAGS_eager_delete_tensor_gb": 0.0,
                       "FLAGS_call_stack_level": 1, "FLAGS_paddle_num_threads": 1,
                       "FLAGS_benchmark": False, "FLAGS_enable_pir_api": False, "FLAGS_lazy": False}
        self.setters = {}  # flag -> function applying a new value (registered by the layer that owns it)


FLAGS = _Flags()


def get_flags(flags):
    """The values of the named flags as a dict.

    Example:
        >>> oar.get_flags(['FLAGS_check_nan_inf'])
        {'FLAGS_check_nan_inf': False}
    """
    names = [flags] if isinstance(flags, str) else list(flags)
    unknown = [n for n in names if n not in FLAGS.values]
    if unknown:
        raise ValueError(f"get_flags: unknown flags {unknown}; known: {sorted(FLAGS.values)}")
    return {n: FLAGS.values[n] for n in names}


def set_flags(flags):
    """Sets flags from a dict ``{'FLAGS_name': value}``; names must start with ``FLAGS_``.

    Example:
        >>> oar.set_flags({'FLAGS_check_nan_inf': True})
        >>> oar.get_flags('FLAGS_check_nan_inf')
        {'FLAGS_check_nan_inf': True}
        >>> oar.set_flags({'FLAGS_check_nan_inf': False})
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags takes a dict of flag names to values, got {type(flags).__name__}")
    for k, v in flags.items():
        if not str(k).startswith("FLAGS_"):
            raise ValueError(f"set_flags: flag names start with 'FLAGS_', got {k!r}")
        setter = FLAGS.setters.get(k)
        if setter is not None:
            setter(v)
        FLAGS.values[k] = v


class LazyGuard:
    """Paddle delays parameter initialization inside this context (for very large models); oar creates and
    initializes parameters at once, so the guard only marks the block.

    Example:
        >>> with oar.LazyGuard():
        ...     layer = oar.nn.Linear(2, 3)
        >>> layer.weight.shape
        [2, 3]
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
